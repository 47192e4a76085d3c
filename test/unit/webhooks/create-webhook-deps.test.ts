// The webhooks function's dependencies from its environment: with EKS_CLUSTER_NAME, every request to the management
// cluster carries an EKS token signed with the function's own credentials (a loopback HTTP server stands in for the
// EKS API server and records what arrives).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';

const authorizations: string[] = [];
const server = createServer((req, res) => {
  authorizations.push(req.headers.authorization ?? '');
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
});
let endpoint = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('computeWebhooksHandlerOptions', () => {
  test('with EKS_CLUSTER_NAME, lookups carry an EKS token signed with the function credentials', async () => {
    const options = computeWebhooksHandlerOptions({
      AWS_REGION: 'eu-west-1',
      EKS_CLUSTER_NAME: 'mgmt',
      EKS_CLUSTER_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      AWS_SESSION_TOKEN: 'session',
    });
    const { reader } = await options.getDeps();
    const cc = await reader.getClusterClass({ namespace: 'default', name: 'missing' });
    assert.equal(cc, undefined);
    assert.ok(authorizations.length > 0);
    const token = authorizations.at(-1)?.replace(/^Bearer /, '') ?? '';
    assert.match(token, /^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
    assert.equal(url.host, 'sts.eu-west-1.amazonaws.com');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.match(url.searchParams.get('X-Amz-Credential') ?? '', /^AKIDEXAMPLE\//);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), 'session');
    assert.match(url.searchParams.get('X-Amz-SignedHeaders') ?? '', /x-k8s-aws-id/);
  });

  test('with EKS_CLUSTER_NAME but no credentials in the environment, a lookup fails naming the variable', async () => {
    const options = computeWebhooksHandlerOptions({ EKS_CLUSTER_NAME: 'mgmt', EKS_CLUSTER_ENDPOINT: endpoint });
    const { reader } = await options.getDeps();
    await assert.rejects(reader.getClusterClass({ namespace: 'default', name: 'x' }), /AWS_ACCESS_KEY_ID/);
  });

  test("with WEBHOOK_TOKEN_SECRET_ARN, the accepted tokens are the secret's, read through the extension per request", async () => {
    let secretString = 'token-a-0123456789abcdef token-b-0123456789abcdef';
    const seen: string[] = [];
    const extension = createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${String(req.headers['x-aws-parameters-secrets-token'])}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ SecretString: secretString }));
    });
    await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', () => resolve()));
    try {
      const options = computeWebhooksHandlerOptions({
        WEBHOOK_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:webhook-token-AbCdEf',
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String((extension.address() as AddressInfo).port),
        AWS_SESSION_TOKEN: 'session',
      });
      assert.equal(options.pathToken, undefined);
      assert.deepEqual(await options.getPathTokens?.(), ['token-a-0123456789abcdef', 'token-b-0123456789abcdef']);
      secretString = 'token-b-0123456789abcdef';
      assert.deepEqual(await options.getPathTokens?.(), ['token-b-0123456789abcdef'], 'a rotation needs no restart');
      assert.match(seen[0] ?? '', /^\/secretsmanager\/get\?secretId=arn%3Aaws%3Asecretsmanager%3A.* session$/);
      secretString = 'short';
      await assert.rejects(options.getPathTokens?.() ?? Promise.resolve(), /at least 16 characters/);
    } finally {
      await new Promise<void>((resolve) => extension.close(() => resolve()));
    }
  });
});
