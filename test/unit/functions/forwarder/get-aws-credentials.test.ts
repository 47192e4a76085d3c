// The forwarder's credential sources, each answered by a recorded request function (no AWS endpoint involved).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AwsCredentialsError,
  createCredentialsProvider,
  findCredentialsSource,
} from '#functions/forwarder/get-aws-credentials.ts';
import type { TextRequest } from '#functions/forwarder/request-text.ts';

type Call = { url: string; req: TextRequest };
const answering = (calls: Call[], statusCode: number, body: string) => (url: string, req: TextRequest) => {
  calls.push({ url, req });
  return Promise.resolve({ statusCode, body });
};
const files: Record<string, string> = { '/token': 'web-identity-jwt\n', '/pod-identity': 'pod-token\n' };
const readFile = (path: string) => files[path] ?? '';

describe('findCredentialsSource', () => {
  const cases: [string, Record<string, string>, ReturnType<typeof findCredentialsSource>][] = [
    ['static keys', { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }, 'environment'],
    ['IRSA', { AWS_WEB_IDENTITY_TOKEN_FILE: '/token', AWS_ROLE_ARN: 'arn:aws:iam::1:role/r' }, 'web identity'],
    ['EKS Pod Identity', { AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials' }, 'container'],
    ['nothing', {}, undefined],
  ];
  for (const [name, env, source] of cases)
    test(`finds ${name}`, () => assert.equal(findCredentialsSource(env), source));
});

describe('createCredentialsProvider', () => {
  test('exchanges the IRSA token at the regional STS endpoint and caches the answer until near its expiry', async () => {
    const calls: Call[] = [];
    let now = Date.parse('2026-11-27T16:00:00Z');
    const xml = `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>
      <AccessKeyId>ASIA1</AccessKeyId><SecretAccessKey>s&amp;k</SecretAccessKey><SessionToken>tok</SessionToken>
      <Expiration>2026-11-27T17:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`;
    const get = createCredentialsProvider({
      env: { AWS_WEB_IDENTITY_TOKEN_FILE: '/token', AWS_ROLE_ARN: 'arn:aws:iam::1:role/fwd' },
      region: 'eu-west-1',
      readFile,
      request: answering(calls, 200, xml),
      now: () => now,
    });
    assert.deepEqual(await get(), {
      accessKeyId: 'ASIA1',
      secretAccessKey: 's&k',
      sessionToken: 'tok',
      expiresAtMs: Date.parse('2026-11-27T17:00:00Z'),
    });
    await get();
    assert.equal(calls.length, 1, 'cached');
    assert.equal(calls[0]?.url, 'https://sts.eu-west-1.amazonaws.com/');
    const form = new URLSearchParams(calls[0]?.req.body);
    assert.equal(form.get('Action'), 'AssumeRoleWithWebIdentity');
    assert.equal(form.get('RoleArn'), 'arn:aws:iam::1:role/fwd');
    assert.equal(form.get('WebIdentityToken'), 'web-identity-jwt');
    now = Date.parse('2026-11-27T16:56:00Z');
    await get();
    assert.equal(calls.length, 2, 'refreshed five minutes before expiry');
  });

  test('reads EKS Pod Identity credentials with the token file as Authorization', async () => {
    const calls: Call[] = [];
    const get = createCredentialsProvider({
      env: {
        AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials',
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: '/pod-identity',
      },
      region: 'eu-west-1',
      readFile,
      request: answering(calls, 200, JSON.stringify({ AccessKeyId: 'A', SecretAccessKey: 'S', Token: 'T' })),
    });
    assert.deepEqual(await get(), { accessKeyId: 'A', secretAccessKey: 'S', sessionToken: 'T' });
    assert.equal(calls[0]?.req.headers?.['authorization'], 'pod-token');
  });

  test('a refused STS exchange names the role and the server message', async () => {
    const get = createCredentialsProvider({
      env: { AWS_WEB_IDENTITY_TOKEN_FILE: '/token', AWS_ROLE_ARN: 'arn:aws:iam::1:role/fwd' },
      region: 'eu-west-1',
      readFile,
      request: answering(
        [],
        403,
        '<ErrorResponse><Error><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error></ErrorResponse>',
      ),
    });
    await assert.rejects(
      get(),
      (err: unknown) =>
        err instanceof AwsCredentialsError && /arn:aws:iam::1:role\/fwd failed: Not authorized/.test(err.message),
    );
  });

  test('without any source, says what to set', async () => {
    await assert.rejects(
      createCredentialsProvider({ env: {}, region: 'eu-west-1' })(),
      /no AWS credentials: set AWS_ACCESS_KEY_ID/,
    );
  });
});
