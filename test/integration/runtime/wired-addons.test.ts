// functions/addons.ts as deployed, driven with EventBridge events against a real management cluster, a real workload
// cluster and DynamoDB Local: a ClusterResourceSet event applies its ConfigMap's objects to the workload cluster and
// records a checkpoint, an unchanged object costs no writes, and Cluster/ConfigMap/binding changes reach the right pass.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AddonsApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import { applyObject, applyStatus, deleteObject, findObject, getObject, patchObject } from '#shared/kube/index.ts';
import { startWorkloadCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { changeEvent, ddbWrites, invoke, resetCounters, useWiredFunction } from './wired-setup.ts';

const ctx = useWiredFunction('addons');
const user = { fieldManager: 'test-user', force: true };
const ns = 'default';
const capi = 'cluster.x-k8s.io/v1beta2';
const crs = { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSet', namespace: ns, name: 'cni' };
const addonRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: 'cni-settings' };

function addonYaml(mode: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cni-settings\n  namespace: kube-system\ndata:\n  mode: ${mode}\n`;
}

async function putResource(mode: string) {
  await applyObject(
    ctx.mgmt.kube,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ns, name: 'cni-resources' },
      data: { 'cni.yaml': addonYaml(mode) },
    },
    user,
  );
}

describe('the wired addons function', () => {
  let workload: TestCluster;
  before(async () => {
    workload = await startWorkloadCluster(ctx.mgmt, { namespace: ns, name: 'workload-1' });
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: capi,
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'workload-1', labels: { cni: 'demo' } },
        spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
      },
      user,
    );
    // NOTE: no infrastructure provider runs here; mark the Cluster ready as one would.
    await applyStatus(
      ctx.mgmt.kube,
      {
        apiVersion: capi,
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'workload-1' },
        status: { initialization: { infrastructureProvisioned: true } },
      },
      { fieldManager: 'infrastructure-provider', force: true },
    );
    await putResource('vxlan');
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: crs.apiVersion,
        kind: crs.kind,
        metadata: { namespace: ns, name: 'cni' },
        spec: {
          clusterSelector: { matchLabels: { cni: 'demo' } },
          resources: [{ kind: 'ConfigMap', name: 'cni-resources' }],
          strategy: 'Reconcile',
        },
      },
      user,
    );
  });
  after(async () => {
    await workload?.stop();
  });

  test('a ClusterResourceSet event applies its objects to the workload cluster and records a Success checkpoint', async () => {
    const passes = await invoke(ctx.functionHandler, changeEvent({ ...crs, type: 'ADDED' }));
    assert.equal(passes.length, 1);
    assert.equal(passes[0]?.status, 'Ran');
    assert.equal(passes[0]?.result, 'Success', passes[0]?.reason);
    assert.ok(
      passes[0]?.changed?.some((c) => c.includes('ConfigMap kube-system/cni-settings') && c.includes('workload-1')),
      JSON.stringify(passes[0]?.changed),
    );
    const applied = await getObject(workload.kube, addonRef);
    assert.deepEqual(applied['data'], { mode: 'vxlan' });
    const live = await getObject(ctx.mgmt.kube, crs);
    const checkpoint = await getCheckpoint(ctx.store, {
      controller: 'addons',
      kind: 'ClusterResourceSet',
      namespace: ns,
      name: 'cni',
    });
    assert.equal(checkpoint?.result, 'Success');
    assert.equal(checkpoint?.observedGeneration, live.metadata.generation);
    assert.equal(checkpoint?.lastPassId, passes[0]?.passId);
    const binding = await findObject(ctx.mgmt.kube, { ...crs, kind: 'ClusterResourceSetBinding', name: 'workload-1' });
    assert.ok(binding, 'the pass bound the Cluster');
  });

  test('a second identical event is skipped with zero mutating requests and zero DynamoDB writes', async () => {
    resetCounters(ctx);
    const passes = await invoke(ctx.countedHandler, changeEvent(crs));
    assert.deepEqual(
      passes.map((p) => [p.status, p.reason]),
      [['Skipped', 'UpToDate']],
    );
    assert.deepEqual(ctx.kubeLog.mutating(), []);
    assert.deepEqual(ddbWrites(ctx), []);
  });

  test("upstream's finalizer on an up-to-date ClusterResourceSet brings a pass, which takes it away", async () => {
    const live = await getObject(ctx.mgmt.kube, crs);
    await patchObject(
      ctx.mgmt.kube,
      crs,
      {
        metadata: {
          resourceVersion: live.metadata.resourceVersion,
          finalizers: [...(live.metadata.finalizers ?? []), 'addons.cluster.x-k8s.io'],
        },
      },
      { fieldManager: 'manager' },
    );
    const passes = await invoke(ctx.functionHandler, changeEvent(crs));
    assert.deepEqual(
      passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    assert.deepEqual((await getObject(ctx.mgmt.kube, crs)).metadata.finalizers, [
      'management.cluster.x-k8s.io/clusterresourceset',
    ]);
    // NOTE: the next event runs one more pass (the checkpoint recorded the facts with upstream's finalizer on), which
    // writes nothing; the one after is skipped.
    await invoke(ctx.functionHandler, changeEvent(crs));
  });

  test('a Cluster status change maps to the ClusterResourceSet selecting it, which is up to date', async () => {
    resetCounters(ctx);
    const passes = await invoke(
      ctx.countedHandler,
      changeEvent({ apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'workload-1' }),
    );
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.key.name, p.status, p.reason]),
      [['ClusterResourceSet', 'cni', 'Skipped', 'UpToDate']],
    );
    assert.deepEqual(ctx.kubeLog.mutating(), []);
  });

  test('a changed ConfigMap maps to its ClusterResourceSet, whose pass re-applies the new content', async () => {
    await putResource('geneve');
    const passes = await invoke(
      ctx.functionHandler,
      changeEvent({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'cni-resources' }),
    );
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.key.name, p.status, p.result]),
      [['ClusterResourceSet', 'cni', 'Ran', 'Success']],
    );
    assert.deepEqual((await getObject(workload.kube, addonRef))['data'], { mode: 'geneve' });
    const unrelated = await invoke(
      ctx.functionHandler,
      changeEvent({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'something-else' }),
    );
    assert.deepEqual(unrelated, [], 'a ConfigMap no ClusterResourceSet lists maps to nothing');
  });

  test('a deleted Cluster loses its ClusterResourceSetBinding; its binding events then map to nothing to do', async () => {
    await deleteObject(ctx.mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'workload-1' });
    const passes = await invoke(
      ctx.functionHandler,
      changeEvent({ apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'workload-1', type: 'DELETED' }),
    );
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.key.name, p.status, p.result]),
      [['Cluster', 'workload-1', 'Ran', 'Success']],
    );
    assert.equal(
      await findObject(ctx.mgmt.kube, { ...crs, kind: 'ClusterResourceSetBinding', name: 'workload-1' }),
      undefined,
    );
    const again = await invoke(
      ctx.functionHandler,
      changeEvent({
        apiVersion: AddonsApiVersion,
        kind: 'ClusterResourceSetBinding',
        namespace: ns,
        name: 'workload-1',
        type: 'DELETED',
      }),
    );
    assert.deepEqual(
      again.map((p) => [p.status, p.reason]),
      [['Skipped', 'NotFound']],
    );
  });
});
