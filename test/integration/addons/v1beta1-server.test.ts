// The add-on pass against a management cluster that serves Cluster API only in v1beta1 (as upstream up to v1.10):
// ClusterResourceSets and Clusters are read in v1beta1 and converted to v1beta2 at the edge, and everything the pass
// writes (finalizer, owner references, binding, status) lands in v1beta1 as upstream's conversion would write it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  getServedVersions,
  findObject,
  getObject,
  deleteObject,
  applyObject,
  applyStatus,
} from '#shared/kube/index.ts';
import { reconcileAddons } from '#shared/addons/index.ts';
import { defaultTargets } from '#functions/forwarder/default-targets.ts';
import { getCollectionPath } from '#functions/forwarder/get-collection-path.ts';
import { computeV1Beta1OnlyCrds } from '#test/support/harness/clusters.ts';
import {
  configMap,
  configMapData,
  ensureNamespace,
  putResourceConfigMap,
  useAddonsClusters,
  user,
  yamlDocs,
} from '#test/integration/addons/setup.ts';

const ctx = useAddonsClusters({ name: 'mgmt-v1beta1', crds: 'none', extraCrds: computeV1Beta1OnlyCrds() });
const ns = 'v1beta1-only';
const v1beta1 = 'addons.cluster.x-k8s.io/v1beta1';
const crsRef = { apiVersion: v1beta1, kind: 'ClusterResourceSet', namespace: ns, name: 'cni' };
const bindingRef = { apiVersion: v1beta1, kind: 'ClusterResourceSetBinding', namespace: ns, name: 'c1' };

type Status = {
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason?: string }[];
  v1beta2?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};

describe('the add-on pass on a v1beta1-only management cluster', () => {
  test('applies, records and cleans up in v1beta1 through the edge conversion', async () => {
    assert.deepEqual([...(await getServedVersions(ctx.pass.kube, 'addons.cluster.x-k8s.io'))], ['v1beta1']);
    assert.deepEqual([...(await getServedVersions(ctx.pass.kube, 'cluster.x-k8s.io'))], ['v1beta1']);
    await ensureNamespace(ctx.mgmt.kube, ns);
    await ensureNamespace(ctx.w1.kube, ns);
    // A v1beta1 Cluster (infrastructureReady, the v1beta1 spelling) and its kubeconfig Secret.
    const cluster = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { namespace: ns, name: 'c1', labels: { cni: 'calico' } },
      spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
    };
    await applyObject(ctx.mgmt.kube, cluster, { fieldManager: user });
    await applyStatus(ctx.mgmt.kube, { ...cluster, status: { infrastructureReady: true } }, { fieldManager: user });
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: ns, name: 'c1-kubeconfig', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
        type: 'cluster.x-k8s.io/secret',
        data: { value: Buffer.from(ctx.w1.controlPlane.kubeconfig).toString('base64') },
      },
      { fieldManager: user },
    );
    await putResourceConfigMap(ctx.mgmt, ns, 'calico', {
      'a.yaml': yamlDocs(configMap(ns, 'from-v1beta1', { n: '1' })),
    });
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: v1beta1,
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'cni' },
        spec: {
          clusterSelector: { matchLabels: { cni: 'calico' } },
          resources: [{ kind: 'ConfigMap', name: 'calico' }],
          strategy: 'Reconcile',
        },
      },
      { fieldManager: user },
    );

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'cni' });

    assert.equal(outcome.result, 'Success', outcome.error);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-v1beta1'), { n: '1' });
    const crs = await getObject(ctx.mgmt.kube, crsRef);
    assert.deepEqual(crs.metadata.finalizers, ['management.cluster.x-k8s.io/clusterresourceset']);
    const status = crs['status'] as Status;
    assert.equal(status.observedGeneration, crs.metadata.generation);
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status]),
      [['ResourcesApplied', 'True']],
      'the v1beta1 conditions where upstream v1.10 keeps them',
    );
    assert.deepEqual(
      status.v1beta2?.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['ResourcesApplied', 'True', 'Applied'],
        ['Paused', 'False', 'NotPaused'],
      ],
      'the v1beta2 conditions under status.v1beta2, as upstream converts them down',
    );
    const ownerRef = { apiVersion: v1beta1, kind: 'ClusterResourceSet', name: 'cni', uid: crs.metadata.uid };
    const resource = await getObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'calico',
    });
    assert.deepEqual(
      resource.metadata.ownerReferences,
      [ownerRef],
      'an owner reference the garbage collector resolves',
    );
    const binding = await getObject(ctx.mgmt.kube, bindingRef);
    assert.deepEqual(binding.metadata.ownerReferences, [ownerRef]);
    const spec = binding['spec'] as { clusterName: string; bindings: { resources: Record<string, unknown>[] }[] };
    assert.equal(spec.clusterName, 'c1');
    assert.deepEqual(
      spec.bindings.map((b) => b.resources.map((r) => [r['kind'], r['name'], r['applied'], typeof r['hash']])),
      [[['ConfigMap', 'calico', true, 'string']]],
    );

    // A second pass over unchanged inputs writes nothing.
    ctx.resetLogs();
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'cni' })).result, 'Success');
    assert.deepEqual(ctx.mutating(), [], 'a second pass with nothing changed writes nothing anywhere');

    // Reconcile strategy: a changed resource is applied again and its new hash recorded.
    const hashBefore = spec.bindings[0]?.resources[0]?.['hash'];
    await putResourceConfigMap(ctx.mgmt, ns, 'calico', {
      'a.yaml': yamlDocs(configMap(ns, 'from-v1beta1', { n: '2' })),
    });
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'cni' })).result, 'Success');
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-v1beta1'), { n: '2' });
    const rebound = (await getObject(ctx.mgmt.kube, bindingRef))['spec'] as typeof spec;
    assert.notEqual(rebound.bindings[0]?.resources[0]?.['hash'], hashBefore);

    // Deleting the ClusterResourceSet removes its binding and then its finalizer; the workload object stays.
    await deleteObject(ctx.mgmt.kube, crsRef);
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'cni' })).result, 'Success');
    assert.equal(await findObject(ctx.mgmt.kube, bindingRef), undefined);
    assert.equal(await findObject(ctx.mgmt.kube, crsRef), undefined);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-v1beta1'), { n: '2' });
  });

  test('a v1beta1 ClusterResourceSet without resources (optional in v1beta1) binds the Cluster and applies nothing', async () => {
    // NOTE: upstream's v1beta2 CRD requires a resource, but a v1beta1 object converts to a v1beta2 one without any;
    // upstream's controller then records the Cluster's binding entry and reports ResourcesApplied.
    const emptyRef = { ...crsRef, name: 'empty' };
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: v1beta1,
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'empty' },
        spec: { clusterSelector: { matchLabels: { cni: 'calico' } } },
      },
      { fieldManager: user },
    );

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'empty' });

    assert.equal(outcome.result, 'Success', outcome.error);
    const crs = await getObject(ctx.mgmt.kube, emptyRef);
    assert.deepEqual(
      (crs['status'] as Status).conditions?.map((c) => [c.type, c.status]),
      [['ResourcesApplied', 'True']],
    );
    const binding = await getObject(ctx.mgmt.kube, bindingRef);
    const spec = binding['spec'] as { bindings: { clusterResourceSetName: string; resources?: unknown[] }[] };
    assert.deepEqual(
      spec.bindings.map((b) => [b.clusterResourceSetName, b.resources ?? []]),
      [['empty', []]],
    );
    await deleteObject(ctx.mgmt.kube, emptyRef);
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'empty' })).result, 'Success');
    assert.equal(await findObject(ctx.mgmt.kube, emptyRef), undefined);
  });

  test('the forwarder watches the add-on kinds in v1beta1 there (its v1beta2 target falls back)', async () => {
    const targets = defaultTargets().filter((t) => t.apiVersion.startsWith('addons.cluster.x-k8s.io/'));
    assert.deepEqual(await Promise.all(targets.map((t) => getCollectionPath(ctx.pass.kube, t))), [
      '/apis/addons.cluster.x-k8s.io/v1beta1/clusterresourcesets',
      '/apis/addons.cluster.x-k8s.io/v1beta1/clusterresourcesetbindings',
    ]);
  });
});
