// The EKS token: decoded, it is an STS GetCallerIdentity URL presigned for 60 s with x-k8s-aws-id signed; the
// signature is recomputed here step by step from the documented SigV4 algorithm and matches botocore's.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { computeEksToken, createEksTokenProvider } from '#shared/kube/eks-token.ts';

const credentials = Object.freeze({
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+x=',
});
const now = Date.UTC(2024, 0, 2, 3, 4, 5);
// NOTE: produced by botocore 1.43 (`sts.generate_presigned_url('get_caller_identity', ExpiresIn=60)` with the
// x-k8s-aws-id header added before signing and the clock fixed at 2024-01-02T03:04:05Z), i.e. by `aws eks get-token`.
const botocoreSignature = '12213ee0244d8feb381ff20efbe9ff1a09cabcc86354ea4b032065767b892903';

function decode(token: string): URL {
  assert.ok(token.startsWith('k8s-aws-v1.'));
  const body = token.slice('k8s-aws-v1.'.length);
  assert.doesNotMatch(body, /[=+/]/, 'base64url without padding');
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

/** SigV4 query signing from https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html */
function expectedSignature(url: URL, clusterName: string, region: string): string {
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const params = [...url.searchParams].filter(([k]) => k !== 'X-Amz-Signature');
  const canonicalQuery = params
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${url.hostname}\nx-k8s-aws-id:${clusterName}\n`,
    'host;x-k8s-aws-id',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = `${date.slice(0, 8)}/${region}/sts/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    date,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  let key = hmac(`AWS4${credentials.secretAccessKey}`, date.slice(0, 8));
  for (const part of [region, 'sts', 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

describe('computeEksToken', () => {
  test('presigns GetCallerIdentity on the regional STS endpoint for 60 seconds with the cluster header signed', async () => {
    const url = decode(await computeEksToken({ clusterName: 'mgmt', region: 'eu-west-1', credentials, now }));
    assert.equal(url.origin + url.pathname, 'https://sts.eu-west-1.amazonaws.com/');
    const q = url.searchParams;
    assert.equal(q.get('Action'), 'GetCallerIdentity');
    assert.equal(q.get('Version'), '2011-06-15');
    assert.equal(q.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    assert.equal(q.get('X-Amz-Credential'), 'AKIDEXAMPLE/20240102/eu-west-1/sts/aws4_request');
    assert.equal(q.get('X-Amz-Date'), '20240102T030405Z');
    assert.equal(q.get('X-Amz-Expires'), '60');
    assert.equal(q.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
    assert.equal(q.get('X-Amz-Security-Token'), credentials.sessionToken);
  });

  const cases = [
    { name: 'signs as the documented SigV4 algorithm computes', cluster: 'mgmt', region: 'eu-west-1' },
    { name: 'signs another cluster and region with their own scope', cluster: 'prod-mgmt-1', region: 'us-east-2' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const url = decode(await computeEksToken({ clusterName: c.cluster, region: c.region, credentials, now }));
      assert.equal(url.searchParams.get('X-Amz-Signature'), expectedSignature(url, c.cluster, c.region));
    });
  }

  test('matches the signature botocore (aws eks get-token) computes for the same inputs', async () => {
    const url = decode(await computeEksToken({ clusterName: 'mgmt', region: 'eu-west-1', credentials, now }));
    assert.equal(url.searchParams.get('X-Amz-Signature'), botocoreSignature);
  });
});

describe('createEksTokenProvider', () => {
  test('reuses a token within its lifetime and signs a new one before it expires', async () => {
    let t = now;
    let credentialReads = 0;
    const provider = createEksTokenProvider({
      clusterName: 'mgmt',
      region: 'eu-west-1',
      getCredentials: () => Promise.resolve((credentialReads++, credentials)),
      now: () => t,
    });
    const first = await provider();
    t += 30_000;
    assert.equal(await provider(), first);
    t += 20_000;
    const renewed = await provider();
    assert.notEqual(renewed, first);
    assert.equal(decode(renewed).searchParams.get('X-Amz-Date'), '20240102T030455Z');
    assert.equal(credentialReads, 2);
  });
});
