// A provider whose Deployment never becomes available (no kubelet, or an image that does not pull) is requeued on
// every tick: those passes must write nothing while nothing changes. On the Cluster API Operator's own CRDs a
// condition `severity` is pruned by the API server (the operator's conditions are metav1.Conditions), so a pass that
// wrote one found the status changed on every pass and wrote it again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  ensureNamespace,
  pass,
  readProvider,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

describe('a provider waiting for its Deployment', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-waiting' });
    await waitForProviderKinds(mgmt.kube);
    await ensureNamespace(mgmt.kube, 'capi-system');
    await seedReleaseConfigMap(mgmt.kube, {
      namespace: 'capi-system',
      provider: 'core',
      version: 'v1.0.0',
      labels: { 'provider-components': 'waiting-core' },
      versionIn: 'name',
    });
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.0.0',
      fetchConfig: { selector: { matchLabels: { 'provider-components': 'waiting-core' } } },
    });
  });
  after(() => mgmt?.stop());

  test('is requeued with Ready False, and the passes after the install write nothing', async () => {
    const first = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(first.result, 'Requeue', first.error);
    const ready = conditionOf(await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api'), 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'NoDeploymentAvailableConditionReason');

    const { kube, log } = await mgmt.newClient();
    for (let i = 0; i < 2; i++) {
      const outcome = await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
      assert.equal(outcome.result, 'Requeue', outcome.error);
      assert.deepEqual(outcome.changed, []);
    }
    assert.deepEqual(
      log.mutating().map((r) => `${r.method} ${r.path}`),
      [],
    );
  });
});
