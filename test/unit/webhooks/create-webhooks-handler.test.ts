import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';

const reader: WebhookReader = {
  getClusterClass: async () => undefined,
  listClustersUsingClass: async () => [],
  listClusters: async () => [],
  listProviders: async () => [],
  getTopologyUpgradeState: async () => ({ controlPlane: { error: 'not read' }, machineDeployments: [] }),
};
const token = 'a-secret-token-0123456789';
const handler = createWebhooksHandler({ pathToken: token, getDeps: async () => ({ reader }) });

const crsReview = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', kind: 'ClusterResourceSet' },
    resource: { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', resource: 'clusterresourcesets' },
    name: 'crs',
    namespace: 'default',
    operation: 'CREATE',
    object: {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
      kind: 'ClusterResourceSet',
      metadata: { namespace: 'default', name: 'crs' },
      spec: { clusterSelector: {}, resources: [{ kind: 'ConfigMap', name: 'cni' }] },
    },
  },
};

function event(path: string, body: unknown, method = 'POST', base64 = false) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    rawPath: path,
    body: base64 ? Buffer.from(text).toString('base64') : text,
    isBase64Encoded: base64,
    requestContext: { http: { method } },
  };
}

describe('createWebhooksHandler', () => {
  const cases: [string, unknown, number][] = [
    ['answers 403 without the path token', event('/validate', crsReview), 403],
    ['answers 403 for a wrong token', event('/not-the-token-000000/validate', crsReview), 403],
    ['answers 403 for a token prefix', event(`/${token.slice(0, -1)}/validate`, crsReview), 403],
    ['answers 404 for an unknown mode', event(`/${token}/convert`, crsReview), 404],
    ['answers 405 for a GET', event(`/${token}/validate`, crsReview, 'GET'), 405],
    ['answers 200 to the reachability probe (GET healthz)', event(`/${token}/healthz`, '', 'GET'), 200],
    ['answers 403 to a reachability probe with a wrong token', event('/not-the-token-000000/healthz', '', 'GET'), 403],
    ['answers 405 to a POST on healthz', event(`/${token}/healthz`, crsReview), 405],
    ['answers 400 for a body that is not JSON', event(`/${token}/validate`, '{'), 400],
    ['answers 400 for JSON that is not an AdmissionReview', event(`/${token}/validate`, { kind: 'Pod' }), 400],
    ['answers 400 for an event that is not from a Function URL', { hello: 'world' }, 400],
  ];
  for (const [name, e, status] of cases) {
    test(name, async () => assert.equal((await handler(e)).statusCode, status));
  }

  test('answers a validating review (base64 body) with a refusal in the Status format', async () => {
    const result = await handler(event(`/${token}/validate`, crsReview, 'POST', true));
    assert.equal(result.statusCode, 200);
    const body = JSON.parse(result.body) as {
      response: { uid: string; allowed: boolean; status: { reason: string; message: string } };
    };
    assert.equal(body.response.uid, 'u-1');
    assert.equal(body.response.allowed, false);
    assert.equal(body.response.status.reason, 'Invalid');
    assert.match(
      body.response.status.message,
      /spec\.clusterSelector: Invalid value: \{\}: selector must not be empty/,
    );
  });

  test('answers a mutating review with a JSONPatch', async () => {
    const result = await handler(event(`/${token}/mutate`, crsReview));
    const body = JSON.parse(result.body) as { response: { allowed: boolean; patchType: string; patch: string } };
    assert.equal(body.response.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(body.response.patch, 'base64').toString('utf8')), [
      { op: 'add', path: '/spec/strategy', value: 'ApplyOnce' },
    ]);
  });

  test('fails closed: with no token configured every request is refused before any read', async () => {
    let reads = 0;
    const open = createWebhooksHandler({ getDeps: async () => (reads++, { reader }) });
    for (const path of ['/validate', `/${token}/validate`, '/mutate']) {
      const result = await open(event(path, crsReview));
      assert.equal(result.statusCode, 403);
      assert.match(result.body, /no webhook path token is configured/);
    }
    const empty = createWebhooksHandler({ getPathTokens: async () => [], getDeps: async () => (reads++, { reader }) });
    assert.equal((await empty(event(`/${token}/validate`, crsReview))).statusCode, 403);
    assert.equal(reads, 0, 'no management-cluster read for a refused request');
  });

  test('accepts either token during a rotation and only the new one after it', async () => {
    const oldToken = 'old-token-0123456789abcdef';
    const newToken = 'new-token-0123456789abcdef';
    let secret = `${newToken}\n${oldToken}`;
    const rotating = createWebhooksHandler({
      getPathTokens: async () => secret.split(/\s+/),
      getDeps: async () => ({ reader }),
    });
    assert.equal((await rotating(event(`/${oldToken}/validate`, crsReview))).statusCode, 200);
    assert.equal((await rotating(event(`/${newToken}/validate`, crsReview))).statusCode, 200);
    secret = newToken;
    assert.equal((await rotating(event(`/${oldToken}/validate`, crsReview))).statusCode, 403);
    assert.equal((await rotating(event(`/${newToken}/validate`, crsReview))).statusCode, 200);
  });

  test('fails closed with 503 when the tokens cannot be read, without reading the cluster', async () => {
    let reads = 0;
    const broken = createWebhooksHandler({
      getPathTokens: () => Promise.reject(new Error('extension not ready')),
      getDeps: async () => (reads++, { reader }),
    });
    const result = await broken(event(`/${token}/validate`, crsReview));
    assert.equal(result.statusCode, 503);
    assert.match(result.body, /webhook path tokens unavailable: extension not ready/);
    assert.equal(reads, 0);
  });

  test('refuses a weak path token when the handler is built', () => {
    assert.throws(
      () => createWebhooksHandler({ pathToken: 'short', getDeps: async () => ({ reader }) }),
      /at least 16/,
    );
  });
});
