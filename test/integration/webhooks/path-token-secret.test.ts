// The webhooks' path token read at run time from a Kubernetes Secret (WEBHOOK_TOKEN_KUBE_SECRET, the stack's default)
// through a real kube-apiserver: the Secret's token is accepted and no other, a missing Secret fails closed, and a
// rotated token is picked up once the per-container cache lapses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { parseAllDocuments } from 'yaml';
import { applyObject, deleteObject, type KubeObject } from '#shared/kube/index.ts';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { createMetrics } from '#shared/runtime/middlewares/record-metrics.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { chartFile } from '../../../infra/chart/chart-files.ts';

const namespace = 'capi-serverless-system';
const name = 'capi-serverless-webhook-token';
const fieldManager = 'path-token-test';

let mgmt: TestCluster;

const secret = (token: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name },
    data: { token: Buffer.from(token).toString('base64') },
  }) as KubeObject;

/** A Function URL GET on `path`: past the token check it is answered 404 or 405, never 403. */
const get = (path: string) => ({ rawPath: path, requestContext: { http: { method: 'GET' } } });

/** The deployed handler over the harness's API server; its EMF lines (metrics) are collected in `emf`. */
function handlerFor(env: Record<string, string>, emf: string[] = []) {
  const metrics: Metrics = createMetrics();
  Object.assign(metrics, { console: { log: (line: string) => emf.push(line), warn: () => undefined } });
  return createWebhooksHandler({
    ...computeWebhooksHandlerOptions({
      KUBECONFIG: mgmt.controlPlane.kubeconfigPath,
      WEBHOOK_TOKEN_KUBE_SECRET: `${namespace}/${name}`,
      ...env,
    }),
    metrics,
  });
}

before(async () => {
  mgmt = await startManagementCluster({ name: 'path-token-secret', crds: 'none' });
  await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as KubeObject, {
    fieldManager,
  });
});
after(async () => mgmt?.stop());

describe('webhook path token from a Kubernetes Secret', () => {
  test("accepts the Secret's token and refuses any other", async () => {
    await applyObject(mgmt.kube, secret('token-a-0123456789abcdef'), { fieldManager, force: true });
    const emf: string[] = [];
    const handler = handlerFor({}, emf);
    assert.equal((await handler(get('/token-a-0123456789abcdef/validate'))).statusCode, 405);
    assert.equal((await handler(get('/token-b-0123456789abcdef/validate'))).statusCode, 403);
    assert.deepEqual(emf, [], 'a refused stranger is not unhealthy');
  });

  test('a missing Secret fails closed (503) without naming a token, and counts toward Unhealthy', async () => {
    await deleteObject(mgmt.kube, { apiVersion: 'v1', kind: 'Secret', namespace, name });
    const emf: string[] = [];
    const result = await handlerFor({}, emf)(get('/token-a-0123456789abcdef/validate'));
    assert.equal(result.statusCode, 503);
    assert.match(result.body, /webhook path tokens unavailable/);
    assert.doesNotMatch(result.body, /token-a/);
    assert.deepEqual(
      emf.map((l) => (JSON.parse(l) as Record<string, unknown>)['Unhealthy']),
      [1],
    );
  });

  test('a rotated token is accepted once the cache lapses, the old one refused', async () => {
    await applyObject(mgmt.kube, secret('token-a-0123456789abcdef'), { fieldManager, force: true });
    const handler = handlerFor({ WEBHOOK_TOKEN_CACHE_MS: '0' });
    assert.equal((await handler(get('/token-a-0123456789abcdef/validate'))).statusCode, 405);
    await applyObject(mgmt.kube, secret('token-c-0123456789abcdef'), { fieldManager, force: true });
    assert.equal((await handler(get('/token-c-0123456789abcdef/validate'))).statusCode, 405);
    assert.equal((await handler(get('/token-a-0123456789abcdef/validate'))).statusCode, 403);
  });

  test("functions-rbac.yaml lets the webhooks' group get this Secret and no other, and a group without Secrets none", async () => {
    const rbac = chartFile('functions-rbac.yaml');
    for (const doc of parseAllDocuments(readFileSync(rbac, 'utf8')))
      await applyObject(mgmt.kube, doc.toJS() as KubeObject, { fieldManager, force: true });
    const allowed = async (secret: string, group = 'capi-serverless:webhooks') =>
      (
        await mgmt.kube.request<{ status: { allowed: boolean } }>({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: 'arn:aws:sts::111111111111:assumed-role/webhooks/fn',
              groups: [group, 'system:authenticated'],
              resourceAttributes: { namespace, verb: 'get', resource: 'secrets', name: secret },
            },
          },
          target: { verb: 'create', kind: 'SubjectAccessReview' },
        })
      ).status.allowed;
    assert.equal(await allowed(name), true);
    assert.equal(await allowed('another-secret'), false);
    // NOTE: topology (the cluster shim), addons (kubeconfigs, ClusterResourceSet resources) and providers (components)
    // read Secrets in every namespace by design; the rollout function reads none, so its group must not read the token.
    assert.equal(await allowed(name, 'capi-serverless:rollout'), false);
  });
});
