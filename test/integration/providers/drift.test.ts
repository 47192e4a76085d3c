// Drift of what the provider operator installed is repaired on a real API server (issue 16): a component
// Deployment deleted by hand, or changed by another manager, is put back although the inputs hash is unchanged;
// a pass over an undrifted provider changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, deleteObject, findObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  containerOf,
  getDeployment,
  installCore,
  markAvailable,
  pass,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const deploymentRef = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'capi-system',
  name: 'capi-controller-manager',
};

describe('provider drift', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-drift' });
    await waitForProviderKinds(mgmt.kube);
    await installCore(mgmt.kube);
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('an undrifted provider: a pass changes nothing', async () => {
    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(outcome.result, 'Success', outcome.error);
    assert.deepEqual(outcome.changed, []);
  });

  test('a component Deployment deleted by hand is put back', async () => {
    const before = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    await deleteObject(mgmt.kube, deploymentRef);
    assert.equal(await findObject(mgmt.kube, deploymentRef), undefined);

    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');

    const restored = await findObject(mgmt.kube, deploymentRef);
    assert.ok(restored, 'the Deployment is back');
    assert.notEqual(restored.metadata.uid, before.metadata.uid);
    assert.equal(containerOf(restored).image, containerOf(before).image);
    assert.ok(
      outcome.changed.some((c) => c.includes('Deployment capi-system/capi-controller-manager')),
      JSON.stringify(outcome.changed),
    );
    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    const healthy = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(healthy.result, 'Success', healthy.error);
  });

  test('a component Deployment changed by another manager is put back', async () => {
    const before = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    const original = containerOf(before).image;
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { namespace: 'capi-system', name: 'capi-controller-manager' },
        spec: { template: { spec: { containers: [{ name: 'manager', image: 'evil.example.com/manager:latest' }] } } },
      },
      { fieldManager: 'kubectl-edit', force: true },
    );
    assert.equal(
      containerOf(await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager')).image,
      'evil.example.com/manager:latest',
    );

    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');

    assert.equal(containerOf(await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager')).image, original);
    assert.ok(outcome.changed.length > 0, 'the repair is reported');
  });
});
