// Fault: API priority and fairness throttles the functions' user (429). The passes run as a ServiceAccount whose
// FlowSchema sends them to a PriorityLevelConfiguration with one seat and `Reject`, on a kube-apiserver with a tiny
// server concurrency; a burst of passes meets 429s, and the client sends each refused request again after its
// Retry-After inside the pass deadline, so no pass fails; once the FlowSchema is removed every object has converged,
// none lost, duplicated or wrong. Writes its row to test/faults/results/throttling.json.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import type { CheckpointStore } from '#shared/checkpoint/index.ts';
import { applyObject, listObjects } from '#shared/kube/index.ts';
import { createControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent, tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { createConfigMapReconciler, sourceLabel } from '#test/integration/runtime/configmap-reconciler.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/support/harness/dynamodb.ts';
import {
  createThrottledIdentity,
  tinyServerConcurrencyArgs,
  type ThrottledIdentity,
} from '#test/support/harness/throttled-identity.ts';

const burstSize = 24;
// NOTE: a 15 s Lambda with a 4 s stop margin gives each pass 11 s (production: 5 min and 10 s); the 429s' Retry-After
// is 1-2 s, so a pass has room for a few waits.
const lambdaTimeoutMs = 15_000;
const resultsPath = new URL('./results/throttling.json', import.meta.url);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('fault: API priority and fairness throttling (429)', () => {
  let mgmt: TestCluster;
  let ddb: DynamoDBServer;
  let store: CheckpointStore;
  let identity: ThrottledIdentity;
  before(async () => {
    [mgmt, ddb] = await Promise.all([
      startManagementCluster({ name: 'throttle', extraApiServerArgs: [...tinyServerConcurrencyArgs] }),
      startDynamoDB(),
    ]);
    store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName: `throttle-${process.pid}` });
    await ensureTable(store);
    identity = await createThrottledIdentity(mgmt);
  });
  after(async () => {
    identity?.kube.close();
    store?.client.destroy();
    await Promise.all([mgmt?.stop(), ddb?.stop()]);
  });

  test('passes meet 429s while throttled and succeed after Retry-After, none lost, duplicated or wrong', async () => {
    const deps = {
      kube: identity.kube,
      store,
      logger: new Logger({ serviceName: 'faults', logLevel: 'SILENT' }),
      config: computeRuntimeConfig({ BACKOFF_BASE_MS: '500', BACKOFF_MAX_MS: '5000', STOP_BEFORE_TIMEOUT_MS: '4000' }),
      now: () => Date.now(),
      jitter: () => 0.5,
    };
    const handler = createControllerHandler({
      reconciler: createConfigMapReconciler(),
      logger: deps.logger,
      getDeps: () => Promise.resolve(deps),
    });
    const names = Array.from({ length: burstSize }, (_, i) => `t-${i}`);
    for (const name of names) {
      await applyObject(
        mgmt.kube,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'default', name, labels: { [sourceLabel]: 'true' } },
          data: { v: 'round1' },
        },
        { fieldManager: 'test-user', force: true },
      );
    }
    await identity.throttle();
    let eventCount = 0;
    const reasons: string[] = [];
    let failed = 0;
    const failedInvocations: string[] = [];
    const deliver = (name: string) =>
      handler(
        objectChangedEvent(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name, type: 'MODIFIED' },
          `throttle-${++eventCount}`,
          new Date(),
        ),
        localLambdaContext('addons', lambdaTimeoutMs),
      );
    await mapLimit(names, burstSize, async (name) => {
      try {
        const result = await handler(
          objectChangedEvent(
            { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name, type: 'MODIFIED' },
            `throttle-${++eventCount}`,
            new Date(),
          ),
          localLambdaContext('addons', lambdaTimeoutMs),
        );
        for (const pass of result.status === 'Handled' ? result.passes : []) {
          if (pass.result === 'Error') {
            failed++;
            reasons.push(pass.reason);
          }
        }
      } catch (err) {
        failed++;
        failedInvocations.push(name);
        reasons.push(
          `invocation failed, Lambda retries the event: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    });
    await identity.unthrottle();
    const clearedAt = Date.now();
    const audit = async () => {
      const { items } = await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
      const derived = items.filter((o) => o.metadata.name?.startsWith('t-') && o.metadata.name.endsWith('-derived'));
      const lost = names.filter((n) => !derived.some((d) => d.metadata.name === `${n}-derived`)).length;
      const wrong = derived.filter((d) => (d['data'] as Record<string, string> | undefined)?.['v'] !== 'ROUND1').length;
      return { lost, wrong, duplicated: derived.length - (names.length - lost) };
    };
    // Lambda retries a failed asynchronous invocation twice (after about 1 and 2 minutes; 1 s and 2 s here).
    let retry = failedInvocations;
    for (let attempt = 1; attempt <= 2 && retry.length > 0; attempt++) {
      await sleep(1_000 * attempt);
      const again: string[] = [];
      for (const name of retry) await deliver(name).catch(() => again.push(name));
      retry = again;
    }
    let state = await audit();
    for (let i = 0; i < 120 && state.lost + state.wrong > 0; i++) {
      await sleep(500);
      await handler(tickEvent('addons', `throttle-tick-${i}`, new Date()), localLambdaContext('addons', 30_000)).catch(
        () => undefined,
      );
      state = await audit();
    }
    const throttled = identity.records.filter((r) => r.statusCode === 429);
    const retryAfters = [...new Set(throttled.map((t) => t.retryAfter ?? '(none)'))].sort();
    const result = {
      fault: 'API priority and fairness throttling (429, one seat, Reject)',
      throttledRequests: throttled.length,
      retryAfterSeconds: retryAfters.join(', '),
      userSees:
        [
          ...new Set(
            reasons
              .map((r) => r.trim())
              .map((r) => r.replace(/(https?:\/\/)?127\.0\.0\.1:\d+/g, '<server>').replace(/t-\d+/g, '<name>')),
          ),
        ]
          .slice(0, 2)
          .join(' | ') ||
        `(no failed pass) ${throttled.length} requests met 429 (Retry-After ${retryAfters.join(', ')} s) and were ` +
          'sent again after it, inside the pass deadline',
      failedPasses: failed,
      convergeAfterClearMs: Date.now() - clearedAt,
      ...state,
    };
    process.stdout.write(`\n${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(resultsPath, JSON.stringify({ burstSize, lambdaTimeoutMs, results: [result] }, null, 2) + '\n');
    assert.ok(throttled.length > 0, `the fault was injected: some request met a 429 (${JSON.stringify(result)})`);
    assert.equal(failed, 0, `no pass failed: each 429 was retried after its Retry-After (${JSON.stringify(result)})`);
    assert.deepEqual(state, { lost: 0, wrong: 0, duplicated: 0 }, JSON.stringify(result));
  });
});
