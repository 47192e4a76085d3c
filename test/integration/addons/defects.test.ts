// ClusterResourceSet defects found by trying it (issue 16), each proven on real management and workload clusters:
// the paused annotation, a Secret of the wrong type never gets an owner reference, and a selected Cluster whose
// infrastructure is not ready is recorded in its binding and on the condition, as upstream v1.14 does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { parseObject } from '#shared/api/parse.ts';
import { getBinding, reconcileAddons } from '#shared/addons/index.ts';
import { applyObject, findObject, getObject, patchObject } from '#shared/kube/index.ts';
import {
  configMap,
  configMapData,
  ensureNamespace,
  putClusterResourceSet,
  putResourceConfigMap,
  registerCluster,
  useAddonsClusters,
  user,
  yamlDocs,
} from '#test/integration/addons/setup.ts';

const ctx = useAddonsClusters();

async function getCRS(namespace: string, name: string): Promise<ClusterResourceSet> {
  const raw = await findObject(ctx.mgmt.kube, {
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    namespace,
    name,
  });
  assert.ok(raw, `ClusterResourceSet ${namespace}/${name} exists`);
  return parseObject(ClusterResourceSet, 'ClusterResourceSet', raw);
}

function conditionOf(crs: ClusterResourceSet, type: string) {
  return crs.status?.conditions?.find((c) => c.type === type);
}

/** The v1beta1 condition upstream keeps under `status.deprecated.v1beta1` (with our detailed message). */
function legacyConditionOf(crs: ClusterResourceSet, type: string) {
  return crs.status?.deprecated?.v1beta1?.conditions?.find((c) => c.type === type);
}

async function ownersOf(kind: 'ConfigMap' | 'Secret', namespace: string, name: string) {
  const obj = await getObject(ctx.mgmt.kube, { apiVersion: 'v1', kind, namespace, name });
  return (obj.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`);
}

describe('ClusterResourceSet defects on real management and workload clusters', () => {
  test('a paused ClusterResourceSet applies nothing and says so; unpaused, it applies', async () => {
    const ns = 'paused';
    await ensureNamespace(ctx.mgmt.kube, ns);
    await ensureNamespace(ctx.w1.kube, ns);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'cm', { 'x.yaml': yamlDocs(configMap(ns, 'from-paused', { n: '1' })) });
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'set', annotations: { 'cluster.x-k8s.io/paused': '' } },
        spec: { clusterSelector: { matchLabels: { app: 'x' } }, resources: [{ kind: 'ConfigMap', name: 'cm' }] },
      },
      { fieldManager: user, force: true },
    );

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });
    assert.equal(outcome.result, 'Success', outcome.error);
    assert.equal(await configMapData(ctx.w1.kube, ns, 'from-paused'), undefined, 'nothing applied while paused');
    assert.equal(await getBinding(ctx.mgmt.kube, { namespace: ns, name: 'c1' }), undefined, 'no binding');
    assert.deepEqual(await ownersOf('ConfigMap', ns, 'cm'), [], 'its ConfigMap is not touched');
    const paused = await getCRS(ns, 'set');
    assert.deepEqual(
      paused.metadata.finalizers,
      ['management.cluster.x-k8s.io/clusterresourceset'],
      'the finalizer comes first, as upstream',
    );
    const condition = conditionOf(paused, 'Paused');
    assert.equal(condition?.status, 'True');
    assert.equal(condition?.reason, 'Paused');
    assert.equal(condition?.message, 'ClusterResourceSet has the cluster.x-k8s.io/paused annotation');
    assert.equal(condition?.observedGeneration, paused.metadata.generation);
    assert.equal(conditionOf(paused, 'ResourcesApplied'), undefined);
    assert.equal(paused.status?.deprecated, undefined, 'upstream sets no v1beta1 condition while paused');
    assert.equal(paused.status?.observedGeneration, undefined, 'nor observedGeneration');

    await patchObject(
      ctx.mgmt.kube,
      { apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet', namespace: ns, name: 'set' },
      { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } },
      { fieldManager: user },
    );
    const resumed = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });
    assert.equal(resumed.result, 'Success', resumed.error);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-paused'), { n: '1' });
    const crs = await getCRS(ns, 'set');
    assert.equal(conditionOf(crs, 'Paused')?.status, 'False');
    assert.equal(conditionOf(crs, 'Paused')?.reason, 'NotPaused');
    assert.equal(conditionOf(crs, 'ResourcesApplied')?.status, 'True');
    assert.equal(conditionOf(crs, 'ResourcesApplied')?.reason, 'Applied');
    assert.equal(legacyConditionOf(crs, 'ResourcesApplied')?.status, 'True');
    assert.deepEqual(
      crs.status?.conditions?.map((c) => c.type),
      ['ResourcesApplied', 'Paused'],
      "upstream's order: Paused last",
    );
  });

  test('a Secret of the wrong type gets no owner reference; the ConfigMap next to it does', async () => {
    const ns = 'secret-owner';
    await ensureNamespace(ctx.mgmt.kube, ns);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: ns, name: 'opaque' },
        type: 'Opaque',
        stringData: { 'x.yaml': yamlDocs(configMap(ns, 'from-opaque', { n: '1' })) },
      },
      { fieldManager: user },
    );
    await putResourceConfigMap(ctx.mgmt, ns, 'cm', { 'x.yaml': yamlDocs(configMap(ns, 'from-cm', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [
        { kind: 'Secret', name: 'opaque' },
        { kind: 'ConfigMap', name: 'cm' },
      ],
    });

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });

    assert.equal(outcome.result, 'Error');
    const set = await getCRS(ns, 'set');
    assert.equal(conditionOf(set, 'ResourcesApplied')?.reason, 'WrongSecretType');
    assert.equal(legacyConditionOf(set, 'ResourcesApplied')?.reason, 'WrongSecretType');
    assert.deepEqual(await ownersOf('Secret', ns, 'opaque'), [], 'the Opaque Secret is left alone');
    assert.deepEqual(await ownersOf('ConfigMap', ns, 'cm'), ['ClusterResourceSet/set']);
  });

  test('a selected Cluster whose infrastructure is not ready gets its binding entry and a condition saying why', async () => {
    const ns = 'not-ready';
    await ensureNamespace(ctx.mgmt.kube, ns);
    await ensureNamespace(ctx.w1.kube, ns);
    const key = { namespace: ns, name: 'c1' };
    await registerCluster(ctx.mgmt, key, ctx.w1, { labels: { app: 'x' }, infrastructureReady: false });
    await putResourceConfigMap(ctx.mgmt, ns, 'cm', { 'x.yaml': yamlDocs(configMap(ns, 'from-not-ready', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'cm' }],
    });

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });

    assert.equal(outcome.result, 'Requeue', 'waiting for the infrastructure is not an error');
    assert.equal(ctx.workloadLogs.get(`${ns}/c1`), undefined, 'no client was made');
    assert.equal(await configMapData(ctx.w1.kube, ns, 'from-not-ready'), undefined);
    const crs = await getCRS(ns, 'set');
    const binding = await getBinding(ctx.mgmt.kube, key);
    assert.equal(binding?.spec?.clusterName, 'c1');
    assert.deepEqual(binding?.spec?.bindings, [{ clusterResourceSetName: 'set' }], 'an empty list is left out');
    assert.deepEqual(
      binding?.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
      [['ClusterResourceSet', 'set', crs.metadata.uid]],
    );
    assert.equal(conditionOf(crs, 'ResourcesApplied')?.reason, 'InternalError');
    const condition = legacyConditionOf(crs, 'ResourcesApplied');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'RemoteClusterClientFailed');
    assert.equal(condition?.severity, 'Error');
    assert.equal(
      condition?.message,
      'failed to get a client for Cluster not-ready/c1: its infrastructure is not ready yet (status.initialization.infrastructureProvisioned is not true)',
    );

    await registerCluster(ctx.mgmt, key, ctx.w1, { labels: { app: 'x' } });
    const ready = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });
    assert.equal(ready.result, 'Success', ready.error);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-not-ready'), { n: '1' });
    assert.equal(conditionOf(await getCRS(ns, 'set'), 'ResourcesApplied')?.status, 'True');
  });
});
