// Fault: API priority and fairness throttles the functions' user (429). The passes run as a ServiceAccount whose
// FlowSchema sends them to a PriorityLevelConfiguration with one seat and `Reject`, on a kube-apiserver with a tiny
// server concurrency; a burst of passes meets 429s; once the FlowSchema is removed every object converges, none
// lost, duplicated or wrong. Appends its row to test/faults/results/throttling.json.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { parse } from 'yaml';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import type { CheckpointStore } from '#shared/checkpoint/index.ts';
import { applyObject, createKubeClient, deleteObject, listObjects, type KubeClient } from '#shared/kube/index.ts';
import { createControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent, tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { createConfigMapReconciler, sourceLabel } from '#test/integration/runtime/configmap-reconciler.ts';
import { startManagementCluster, type TestCluster } from '#test/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/harness/dynamodb.ts';

const burstSize = 24;
const resultsPath = new URL('./results/throttling.json', import.meta.url);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const flowSchema = {
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name: 'faults-functions' },
  spec: {
    priorityLevelConfiguration: { name: 'faults-one-seat' },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'functions' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
      },
    ],
  },
};

describe('fault: API priority and fairness throttling (429)', () => {
  let mgmt: TestCluster;
  let ddb: DynamoDBServer;
  let store: CheckpointStore;
  let functionsKube: KubeClient;
  before(async () => {
    [mgmt, ddb] = await Promise.all([
      startManagementCluster({
        name: 'throttle',
        extraApiServerArgs: ['--max-requests-inflight=2', '--max-mutating-requests-inflight=1'],
      }),
      startDynamoDB(),
    ]);
    store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName: `throttle-${process.pid}` });
    await ensureTable(store);
    const fieldManager = 'faults-setup';
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'default', name: 'functions' } },
      { fieldManager },
    );
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'faults-functions' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'functions' }],
      },
      { fieldManager },
    );
    const tokenRequest = await mgmt.kube.request<{ status: { token: string } }>({
      method: 'POST',
      path: '/api/v1/namespaces/default/serviceaccounts/functions/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      target: { verb: 'create token for', kind: 'ServiceAccount', namespace: 'default', name: 'functions' },
    });
    const kubeconfig = parse(mgmt.controlPlane.kubeconfig) as { clusters: { cluster: Record<string, string> }[] };
    functionsKube = await createKubeClient(
      {
        server: mgmt.controlPlane.server,
        certificateAuthorityData: kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '',
      },
      { tokenProvider: () => Promise.resolve(tokenRequest.status.token) },
    );
  });
  after(async () => {
    functionsKube?.close();
    store?.client.destroy();
    await Promise.all([mgmt?.stop(), ddb?.stop()]);
  });

  test('passes meet 429s while throttled, and converge once the FlowSchema is gone', async () => {
    const deps = {
      kube: functionsKube,
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
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: 'faults-one-seat' },
        spec: {
          type: 'Limited',
          limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } },
        },
      },
      { fieldManager: 'faults-setup' },
    );
    await applyObject(mgmt.kube, flowSchema, { fieldManager: 'faults-setup' });
    await sleep(1_000);
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
        localLambdaContext('addons', 8_000),
      );
    await mapLimit(names, burstSize, async (name) => {
      try {
        const result = await handler(
          objectChangedEvent(
            { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name, type: 'MODIFIED' },
            `throttle-${++eventCount}`,
            new Date(),
          ),
          localLambdaContext('addons', 8_000),
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
    await deleteObject(mgmt.kube, {
      apiVersion: flowSchema.apiVersion,
      kind: flowSchema.kind,
      name: flowSchema.metadata.name,
    });
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
    const result = {
      fault: 'API priority and fairness throttling (429, one seat, Reject)',
      userSees:
        [
          ...new Set(
            reasons
              .map((r) => r.trim())
              .map((r) => r.replace(/(https?:\/\/)?127\.0\.0\.1:\d+/g, '<server>').replace(/t-\d+/g, '<name>')),
          ),
        ]
          .slice(0, 2)
          .join(' | ') || '(no failed pass)',
      failedPasses: failed,
      convergeAfterClearMs: Date.now() - clearedAt,
      ...state,
    };
    process.stdout.write(`\n${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(resultsPath, JSON.stringify({ burstSize, results: [result] }, null, 2) + '\n');
    assert.ok(
      reasons.some((r) => /429|Too many requests/i.test(r)),
      `the fault was injected: some pass met a 429 (${JSON.stringify(result)})`,
    );
    assert.deepEqual(state, { lost: 0, wrong: 0, duplicated: 0 }, JSON.stringify(result));
  });
});
