// The Lambda entry: built from the reconciler the function module passes in, with the environment parsed at cold
// start; a malformed event is answered without touching Kubernetes or DynamoDB.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '#shared/errors/index.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

const unreachable = () => Promise.reject(new Error('a malformed event must not reach the reconciler'));
const reconciler = {
  controller: 'addons',
  kinds: [{ apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet' }],
  getFacts: unreachable,
  reconcile: unreachable,
} as unknown as Reconciler;
const env = { AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'SILENT' };
const context = { awsRequestId: 'req-1', functionName: 'addons', getRemainingTimeInMillis: () => 60_000 };

describe('createFunctionHandler', () => {
  test("answers a tick meant for another controller with the passed-in reconciler's controller name", async () => {
    const handler = createFunctionHandler(reconciler, env);
    const tick = {
      version: '0',
      id: 'e1',
      'detail-type': 'Tick',
      source: 'capi-serverless.scheduler',
      time: '2024-01-02T03:04:05Z',
      resources: [],
      detail: { controller: 'topology' },
    };
    const result = await handler(tick, context);
    assert.equal(result.status, 'Rejected');
    assert.match(result.status === 'Rejected' ? result.reason : '', /this is addons/);
  });

  test('answers passes fanned out to another controller without running them', async () => {
    const handler = createFunctionHandler(reconciler, { ...env, EVENT_BUS_NAME: 'capi-serverless' });
    const batch = {
      version: '0',
      id: 'f1',
      'detail-type': 'Passes Requested',
      source: 'capi-serverless.fanout',
      time: '2024-01-02T03:04:05Z',
      resources: [],
      detail: {
        controller: 'topology',
        trigger: 'event e1',
        keys: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: 'c-1' }],
      },
    };
    const result = await handler(batch, context);
    assert.equal(result.status, 'Rejected');
    assert.match(
      result.status === 'Rejected' ? result.reason : '',
      /rejected passes for controller topology, this is addons/,
    );
  });

  test('refuses a fan-out batch outside 1..100 at cold start', () => {
    for (const bad of ['0', '101', 'many'])
      assert.throws(
        () => createFunctionHandler(reconciler, { ...env, FANOUT_BATCH: bad }),
        (err: unknown) => err instanceof ValidationError && /FANOUT_BATCH/.test(err.message),
      );
  });

  test('fails at cold start naming the bad environment variable', () => {
    assert.throws(
      () => createFunctionHandler(reconciler, { ...env, LEASE_TTL_MS: 'soon' }),
      (err: unknown) => err instanceof ValidationError && /LEASE_TTL_MS/.test(err.message),
    );
  });
});
