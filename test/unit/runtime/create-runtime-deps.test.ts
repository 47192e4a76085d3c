// The kubeconfig secret is read through the AWS Parameters and Secrets Lambda Extension.
// NOTE: the extension is an AWS binary that only runs inside Lambda, so these tests talk to a loopback test double
// of its documented HTTP API (GET /secretsmanager/get?secretId=…, X-Aws-Parameters-Secrets-Token header, the
// GetSecretValue JSON in the body); the client code under test is the real one.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import {
  getKubeconfigSecret,
  KubeconfigSecretError,
  resolveKubeconfigSource,
} from '#shared/runtime/create-runtime-deps.ts';

const kubeconfig = 'apiVersion: v1\nkind: Config\ncurrent-context: mgmt\n';
const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((req, res) => {
  requests.push({ url: req.url ?? '', headers: req.headers });
  const url = new URL(req.url ?? '/', 'http://localhost');
  const secretId = url.searchParams.get('secretId') ?? '';
  if (url.pathname !== '/secretsmanager/get' || req.headers['x-aws-parameters-secrets-token'] !== 'session-1') {
    res.writeHead(401).end('unauthorized');
  } else if (secretId === 'mgmt-kubeconfig') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:mgmt-kubeconfig-AbCdEf',
        Name: secretId,
        SecretString: kubeconfig,
        VersionId: 'v1',
      }),
    );
  } else if (secretId === 'binary') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ Name: secretId, SecretBinary: 'AAE=' }));
  } else {
    res.writeHead(400).end(`ResourceNotFoundException: Secrets Manager can't find the specified secret.`);
  }
});
let port = 0;
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, 'localhost', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('getKubeconfigSecret', () => {
  test('returns the SecretString and authenticates with the session token', async () => {
    requests.length = 0;
    assert.equal(await getKubeconfigSecret('mgmt-kubeconfig', { port, sessionToken: 'session-1' }), kubeconfig);
    assert.equal(requests[0]?.url, '/secretsmanager/get?secretId=mgmt-kubeconfig');
  });

  const failures = [
    {
      name: 'names the secret and the extension’s answer when it is missing',
      id: 'other',
      token: 'session-1',
      why: /ResourceNotFoundException/,
    },
    { name: 'fails on a secret without a SecretString', id: 'binary', token: 'session-1', why: /no SecretString/ },
    { name: 'fails when the session token is refused', id: 'mgmt-kubeconfig', token: 'stale', why: /HTTP 401/ },
  ];
  for (const f of failures) {
    test(f.name, async () => {
      await assert.rejects(getKubeconfigSecret(f.id, { port, sessionToken: f.token }), (err: unknown) => {
        assert.ok(err instanceof KubeconfigSecretError);
        assert.match(err.message, new RegExp(`^failed to read kubeconfig secret ${f.id}: `));
        assert.match(err.message, f.why);
        return true;
      });
    });
  }
});

describe('resolveKubeconfigSource', () => {
  test('reads the secret named by KUBECONFIG_SECRET_ARN on the configured extension port', async () => {
    const config = computeRuntimeConfig({
      KUBECONFIG_SECRET_ARN: 'mgmt-kubeconfig',
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port),
    });
    assert.deepEqual(await resolveKubeconfigSource(config, { AWS_SESSION_TOKEN: 'session-1' }), { kubeconfig });
  });

  test('uses the EKS endpoint and CA when no kubeconfig is configured', async () => {
    const config = computeRuntimeConfig({
      EKS_CLUSTER_NAME: 'mgmt',
      EKS_CLUSTER_ENDPOINT: 'https://abc.eks.example',
      EKS_CLUSTER_CA_DATA: 'Y2E=',
    });
    assert.deepEqual(await resolveKubeconfigSource(config, {}), {
      server: 'https://abc.eks.example',
      certificateAuthorityData: 'Y2E=',
    });
  });
});
