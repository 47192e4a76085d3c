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
});
