// The forwarder's SigV4 signer against the one the AWS SDK uses (@smithy/signature-v4) as the oracle: the same
// request, credentials and time give the same signature.
import assert from 'node:assert/strict';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, SourceData } from '@smithy/types';
import { formatAmzDate, signAwsRequest, type AwsCredentials } from '#functions/forwarder/sign-aws-request.ts';

class Sha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.make();
  }
  private make(): Hash | Hmac {
    return this.secret === undefined
      ? createHash('sha256')
      : createHmac('sha256', typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as Uint8Array));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.make();
  }
}

const signatureOf = (authorization: string) => /Signature=([0-9a-f]{64})$/.exec(authorization)?.[1];

describe('signAwsRequest', () => {
  const now = Date.UTC(2026, 10, 27, 16, 5, 9, 123);
  const cases: [string, AwsCredentials, string][] = [
    ['signs a PutEvents with static keys', { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret/key+1' }, '{}'],
    [
      'signs the session token of temporary credentials',
      { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 's3cr3t', sessionToken: 'token/with+chars==' },
      JSON.stringify({ Entries: [{ Detail: '{"name":"ünïcode"}' }] }),
    ],
  ];
  for (const [name, credentials, body] of cases)
    test(name, async () => {
      const headers = signAwsRequest(
        {
          method: 'POST',
          host: 'events.eu-west-1.amazonaws.com',
          path: '/',
          headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
          body,
          region: 'eu-west-1',
          service: 'events',
        },
        credentials,
        now,
      );
      const { authorization, ...signed } = headers;
      const oracle = await new SignatureV4({
        service: 'events',
        region: 'eu-west-1',
        credentials,
        sha256: Sha256,
      }).sign(
        {
          method: 'POST',
          protocol: 'https:',
          hostname: 'events.eu-west-1.amazonaws.com',
          path: '/',
          headers: signed,
          body,
        },
        { signingDate: new Date(now) },
      );
      const expected = oracle.headers['authorization'] ?? oracle.headers['Authorization'];
      assert.ok(expected, 'the oracle signed');
      assert.equal(signatureOf(authorization!), signatureOf(expected));
      assert.match(authorization!, /^AWS4-HMAC-SHA256 Credential=\w+\/20261127\/eu-west-1\/events\/aws4_request, /);
      assert.equal(headers['x-amz-security-token'], credentials.sessionToken);
    });

  test('formats the time as ISO 8601 basic format without milliseconds', () => {
    assert.equal(formatAmzDate(now), '20261127T160509Z');
  });
});
