// ClusterResourceSet passes against a real management cluster and two real workload clusters: what lands in the
// workload clusters, what the bindings and the ClusterResourceSet status record, and what a pass sends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClusterResourceSet, type ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { parseObject } from '#shared/api/parse.ts';
import {
  computeResourceHash,
  formatKubeTime,
  getBinding,
  reconcileAddons,
  reconcileAddonsForCluster,
} from '#shared/addons/index.ts';
import {
  applyObject,
  createObject,
  deleteObject,
  findObject,
  getObject,
  patchObject,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { defaultTargets } from '#functions/forwarder/default-targets.ts';
import { getCollectionPath } from '#functions/forwarder/get-collection-path.ts';
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

async function getCRS(namespace: string, name: string): Promise<ClusterResourceSet | undefined> {
  const raw = await findObject(ctx.mgmt.kube, {
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    namespace,
    name,
  });
  return raw === undefined ? undefined : parseObject(ClusterResourceSet, 'ClusterResourceSet', raw);
}

async function binding(namespace: string, name: string): Promise<ClusterResourceSetBinding | undefined> {
  return getBinding(ctx.mgmt.kube, { namespace, name });
}

/** The v1beta1 condition upstream keeps under `status.deprecated.v1beta1` (with our detailed message). */
function legacyConditionOf(crs: ClusterResourceSet | undefined, type: string) {
  return crs?.status?.deprecated?.v1beta1?.conditions?.find((c) => c.type === type);
}

/** The v1beta2 condition of `type` as [status, reason, message]. */
function stateOf(crs: ClusterResourceSet | undefined, type: string) {
  const c = crs?.status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : [c.status, c.reason, c.message];
}

function entriesOf(b: ClusterResourceSetBinding | undefined, crsName: string) {
  return b?.spec?.bindings?.find((e) => e.clusterResourceSetName === crsName)?.resources ?? [];
}

async function resourceHash(namespace: string, name: string): Promise<string> {
  const cm = await getObject(ctx.mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
  return computeResourceHash({ kind: 'ConfigMap', namespace, name, data: cm['data'] as Record<string, string> });
}

/** Namespaces for one test: in the management cluster and in every workload cluster. */
async function namespaces(name: string, ...clusters: KubeClient[]): Promise<void> {
  await ensureNamespace(ctx.mgmt.kube, name);
  for (const kube of clusters) await ensureNamespace(kube, name);
}

function tick(seconds: number): void {
  ctx.clock.now = new Date(ctx.clock.now.getTime() + seconds * 1000);
}

describe('ClusterResourceSet passes on real management and workload clusters', () => {
  test('ApplyOnce applies every object to both matching clusters and nothing to a non-matching one', async () => {
    const ns = 'once-two';
    await namespaces(ns, ctx.w1.kube, ctx.w2.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { cni: 'calico' } });
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c2' }, ctx.w2, { labels: { cni: 'calico' } });
    // c3 is the management cluster itself (self-hosted), so its contents can be checked too.
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c3' }, ctx.mgmt, { labels: { cni: 'cilium' } });
    // Matching, but not eligible yet: infrastructure not ready / no kubeconfig Secret.
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c4' }, ctx.w1, {
      labels: { cni: 'calico' },
      infrastructureReady: false,
    });
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c5' }, ctx.w1, {
      labels: { cni: 'calico' },
      kubeconfig: false,
    });
    await putResourceConfigMap(ctx.mgmt, ns, 'calico', {
      'a.yaml': yamlDocs(configMap(ns, 'one', { n: '1' }), configMap(ns, 'two', { n: '2' })),
      'b.json': JSON.stringify([configMap(ns, 'three', { n: '3' })]),
      // No namespace: a cluster-scoped kind keeps none, a namespaced one goes to `default`.
      'c.yaml': yamlDocs(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'once-two-reader' },
          rules: [],
        },
        configMap(undefined, 'once-two-defaulted', { n: '4' }),
      ),
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'calico', {
      clusterSelector: { matchLabels: { cni: 'calico' } },
      resources: [{ kind: 'ConfigMap', name: 'calico' }],
    });
    ctx.resetLogs();

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'calico' });

    assert.equal(outcome.result, 'Requeue', 'c4 and c5 are waiting');
    assert.equal(outcome.requeueAfterMs, 60_000);
    for (const w of [ctx.w1, ctx.w2]) {
      assert.deepEqual(await configMapData(w.kube, ns, 'one'), { n: '1' });
      assert.deepEqual(await configMapData(w.kube, ns, 'two'), { n: '2' });
      assert.deepEqual(await configMapData(w.kube, ns, 'three'), { n: '3' });
      assert.deepEqual(await configMapData(w.kube, 'default', 'once-two-defaulted'), { n: '4' });
      const role = await getObject(w.kube, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        name: 'once-two-reader',
      });
      assert.equal(role.metadata.namespace, undefined);
    }
    assert.equal(await configMapData(ctx.mgmt.kube, ns, 'one'), undefined, 'c3 does not match');
    assert.equal(ctx.workloadLogs.get(`${ns}/c3`), undefined, 'no client was made for c3');
    assert.equal(ctx.workloadLogs.get(`${ns}/c4`), undefined, 'no client was made for c4');
    assert.equal(await binding(ns, 'c3'), undefined, 'no binding for c3');
    // As upstream v1.14: a selected Cluster without a workload client yet gets its (empty) entry and is reported.
    for (const name of ['c4', 'c5']) assert.deepEqual(entriesOf(await binding(ns, name), 'calico'), []);

    const crs = await getCRS(ns, 'calico');
    assert.ok(crs);
    assert.deepEqual(crs.metadata.finalizers, ['management.cluster.x-k8s.io/clusterresourceset']);
    assert.equal(crs.status?.observedGeneration, crs.metadata.generation);
    // As upstream v1.14: v1beta2 conditions (ResourcesApplied, then Paused) with upstream's reasons and the
    // generation they saw; the v1beta1 condition with the details under status.deprecated.v1beta1.
    assert.deepEqual(
      crs.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]),
      [
        [
          'ResourcesApplied',
          'False',
          'InternalError',
          'Please check controller logs for errors',
          crs.metadata.generation,
        ],
        ['Paused', 'False', 'NotPaused', '', crs.metadata.generation],
      ],
    );
    const condition = legacyConditionOf(crs, 'ResourcesApplied');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'RemoteClusterClientFailed');
    assert.match(condition?.message ?? '', /Cluster once-two\/c4: its infrastructure is not ready yet/);
    assert.match(condition?.message ?? '', /Cluster once-two\/c5: Secret once-two\/c5-kubeconfig does not exist yet/);
    const hash = await resourceHash(ns, 'calico');
    for (const name of ['c1', 'c2']) {
      const b = await binding(ns, name);
      assert.equal(b?.spec?.clusterName, name);
      assert.deepEqual(
        b?.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
        [['ClusterResourceSet', 'calico', crs.metadata.uid]],
      );
      assert.deepEqual(entriesOf(b, 'calico'), [
        { name: 'calico', kind: 'ConfigMap', hash, lastAppliedTime: formatKubeTime(ctx.clock.now), applied: true },
      ]);
    }
    const source = await getObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'calico',
    });
    assert.deepEqual(
      source.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
      [['ClusterResourceSet', 'calico', crs.metadata.uid]],
      'the ClusterResourceSet owns its ConfigMap',
    );

    ctx.resetLogs();
    tick(60);
    const again = await reconcileAddons(ctx.deps, { namespace: ns, name: 'calico' });
    assert.equal(again.result, 'Requeue');
    assert.deepEqual(again.changed, []);
    assert.deepEqual(ctx.mutating(), [], 'a second pass with nothing changed writes nothing anywhere');
    assert.equal(ctx.workloadLogs.get(`${ns}/c1`)?.records.length ?? 0, 0, 'nor reads anything from c1');
  });

  test('ApplyOnce leaves an object that already exists untouched and records it as applied', async () => {
    const ns = 'once-pre';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await applyObject(ctx.w1.kube, configMap(ns, 'pre', { owner: 'user' }), { fieldManager: user });
    await putResourceConfigMap(ctx.mgmt, ns, 'addons', {
      'x.yaml': yamlDocs(configMap(ns, 'pre', { owner: 'crs' }), configMap(ns, 'fresh', { owner: 'crs' })),
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'addons' }],
    });

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });

    assert.equal(outcome.result, 'Success');
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'pre'), { owner: 'user' });
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'fresh'), { owner: 'crs' });
    assert.equal(entriesOf(await binding(ns, 'c1'), 'set')[0]?.applied, true);
  });

  test('Reconcile re-applies every object of a changed ConfigMap and records the new hash; ApplyOnce ignores the change', async () => {
    const ns = 'reconcile';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    const recData = (v: string) => ({
      'x.yaml': yamlDocs(configMap(ns, 'rec-x', { v }), configMap(ns, 'rec-y', { v: 'static' })),
    });
    const onceData = (v: string) => ({ 'x.yaml': yamlDocs(configMap(ns, 'once-x', { v })) });
    await putResourceConfigMap(ctx.mgmt, ns, 'rec-src', recData('1'));
    await putResourceConfigMap(ctx.mgmt, ns, 'once-src', onceData('1'));
    await putClusterResourceSet(ctx.mgmt, ns, 'rec', {
      strategy: 'Reconcile',
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'rec-src' }],
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'once', {
      strategy: 'ApplyOnce',
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'once-src' }],
    });
    assert.equal((await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' })).result, 'Success');
    const before = await binding(ns, 'c1');
    const recHashBefore = entriesOf(before, 'rec')[0]?.hash;
    const onceBefore = entriesOf(before, 'once')[0];
    assert.equal(recHashBefore, await resourceHash(ns, 'rec-src'));

    await putResourceConfigMap(ctx.mgmt, ns, 'rec-src', recData('2'));
    await putResourceConfigMap(ctx.mgmt, ns, 'once-src', onceData('2'));
    tick(60);
    ctx.resetLogs();
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'rec' })).result, 'Success');
    const applied = ctx.workloadLogs
      .get(`${ns}/c1`)
      ?.mutating()
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(applied, [
      `PATCH /api/v1/namespaces/${ns}/configmaps/rec-x`,
      `PATCH /api/v1/namespaces/${ns}/configmaps/rec-y`,
    ]);
    ctx.resetLogs();
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'once' })).result, 'Success');
    assert.equal(ctx.workloadLogs.get(`${ns}/c1`)?.records.length, 0, 'ApplyOnce does not even connect');

    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'rec-x'), { v: '2' });
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'once-x'), { v: '1' });
    const after = await binding(ns, 'c1');
    const recAfter = entriesOf(after, 'rec')[0];
    assert.equal(recAfter?.hash, await resourceHash(ns, 'rec-src'));
    assert.notEqual(recAfter?.hash, recHashBefore);
    assert.equal(recAfter?.lastAppliedTime, formatKubeTime(ctx.clock.now));
    assert.deepEqual(entriesOf(after, 'once')[0], onceBefore, 'the ApplyOnce entry is untouched');
  });

  test('a field another manager set on a workload object survives a Reconcile re-apply', async () => {
    const ns = 'reconcile-ssa';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    const data = (v: string) => ({
      'x.yaml': yamlDocs({
        ...configMap(ns, 'shared', { v }),
        metadata: { namespace: ns, name: 'shared', labels: { from: 'crs' } },
      }),
    });
    await putResourceConfigMap(ctx.mgmt, ns, 'src', data('1'));
    await putClusterResourceSet(ctx.mgmt, ns, 'rec', {
      strategy: 'Reconcile',
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'src' }],
    });
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'rec' })).result, 'Success');
    // Another controller in the workload cluster adds a label and a data key.
    await applyObject(
      ctx.w1.kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns, name: 'shared', labels: { injected: 'yes' } },
        data: { extra: 'kept' },
      },
      { fieldManager: 'other-controller' },
    );

    await putResourceConfigMap(ctx.mgmt, ns, 'src', data('2'));
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'rec' })).result, 'Success');

    const shared = await getObject(ctx.w1.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'shared' });
    assert.deepEqual(shared['data'], { v: '2', extra: 'kept' });
    assert.deepEqual(shared.metadata.labels, { from: 'crs', injected: 'yes' });
  });

  test('a resource added to the ClusterResourceSet later is applied to the clusters it already serves', async () => {
    const ns = 'added-later';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'first', { 'x.yaml': yamlDocs(configMap(ns, 'first-obj', { n: '1' })) });
    await putResourceConfigMap(ctx.mgmt, ns, 'second', { 'x.yaml': yamlDocs(configMap(ns, 'second-obj', { n: '2' })) });
    const spec = (names: string[]) => ({
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: names.map((name) => ({ kind: 'ConfigMap', name })),
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', spec(['first']));
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' })).result, 'Success');
    assert.equal(await configMapData(ctx.w1.kube, ns, 'second-obj'), undefined);

    await putClusterResourceSet(ctx.mgmt, ns, 'set', spec(['first', 'second']));
    ctx.resetLogs();
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' })).result, 'Success');

    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'second-obj'), { n: '2' });
    assert.deepEqual(
      ctx.workloadLogs
        .get(`${ns}/c1`)
        ?.mutating()
        .map((r) => `${r.method} ${r.path}`),
      [`POST /api/v1/namespaces/${ns}/configmaps`],
      'only the new resource is applied',
    );
    assert.deepEqual(
      entriesOf(await binding(ns, 'c1'), 'set').map((e) => [e.name, e.applied]),
      [
        ['first', true],
        ['second', true],
      ],
    );
    const crs = await getCRS(ns, 'set');
    assert.equal(crs?.status?.observedGeneration, crs?.metadata.generation);
  });

  test('a cluster relabelled to match gets everything', async () => {
    const ns = 'relabel';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c3' }, ctx.mgmt, { labels: { app: 'y' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'a', { 'x.yaml': yamlDocs(configMap(ns, 'a-obj', { n: '1' })) });
    await putResourceConfigMap(ctx.mgmt, ns, 'b', { 'x.yaml': yamlDocs(configMap(ns, 'b-obj', { n: '2' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }] },
      resources: [
        { kind: 'ConfigMap', name: 'a' },
        { kind: 'ConfigMap', name: 'b' },
      ],
    });
    assert.equal((await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c3' })).result, 'Success');
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' })).result, 'Success');
    assert.equal(await configMapData(ctx.mgmt.kube, ns, 'a-obj'), undefined);

    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'c3', labels: { app: 'x' } },
        spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
      },
      { fieldManager: user },
    );
    const outcome = await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c3' });

    assert.equal(outcome.result, 'Success');
    assert.deepEqual(await configMapData(ctx.mgmt.kube, ns, 'a-obj'), { n: '1' });
    assert.deepEqual(await configMapData(ctx.mgmt.kube, ns, 'b-obj'), { n: '2' });
    assert.deepEqual(
      entriesOf(await binding(ns, 'c3'), 'set').map((e) => [e.name, e.applied]),
      [
        ['a', true],
        ['b', true],
      ],
    );
  });

  test('two ClusterResourceSets with the same resource: created once, recorded as applied by both', async () => {
    const ns = 'two-sets';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'shared', { 'x.yaml': yamlDocs(configMap(ns, 'shared-obj', { n: '1' })) });
    for (const name of ['set-a', 'set-b']) {
      await putClusterResourceSet(ctx.mgmt, ns, name, {
        clusterSelector: { matchLabels: { app: 'x' } },
        resources: [{ kind: 'ConfigMap', name: 'shared' }],
      });
    }
    ctx.resetLogs();

    const outcome = await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' });

    assert.equal(outcome.result, 'Success');
    const creates = ctx.workloadLogs
      .get(`${ns}/c1`)
      ?.mutating()
      .map((r) => `${r.method} ${r.statusCode}`);
    assert.deepEqual(creates, ['POST 201', 'POST 409'], 'the second set finds the object already there');
    const b = await binding(ns, 'c1');
    const hash = await resourceHash(ns, 'shared');
    for (const name of ['set-a', 'set-b']) {
      assert.deepEqual(
        entriesOf(b, name).map((e) => [e.name, e.applied, e.hash]),
        [['shared', true, hash]],
      );
    }
    assert.deepEqual(
      b?.metadata.ownerReferences?.map((r) => r.name),
      ['set-a', 'set-b'],
    );
    const source = await getObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'shared',
    });
    assert.deepEqual(
      source.metadata.ownerReferences?.map((r) => r.name),
      ['set-a', 'set-b'],
    );
  });

  test('a Secret of the wrong type is refused with a clear condition; a resource-set Secret applies', async () => {
    const ns = 'secrets';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    const secret = (name: string, type: string, objName: string) =>
      applyObject(
        ctx.mgmt.kube,
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { namespace: ns, name },
          type,
          stringData: { 'x.yaml': yamlDocs(configMap(ns, objName, { n: '1' })) },
        },
        { fieldManager: user },
      );
    await secret('opaque', 'Opaque', 'from-opaque');
    await secret('good', 'addons.cluster.x-k8s.io/resource-set', 'from-good');
    await putResourceConfigMap(ctx.mgmt, ns, 'cm', { 'x.yaml': yamlDocs(configMap(ns, 'from-cm', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'wrong', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [
        { kind: 'Secret', name: 'opaque' },
        { kind: 'ConfigMap', name: 'cm' },
      ],
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'right', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'Secret', name: 'good' }],
    });

    const wrong = await reconcileAddons(ctx.deps, { namespace: ns, name: 'wrong' });
    const right = await reconcileAddons(ctx.deps, { namespace: ns, name: 'right' });

    assert.equal(wrong.result, 'Error');
    const wrongSet = await getCRS(ns, 'wrong');
    assert.deepEqual(stateOf(wrongSet, 'ResourcesApplied'), [
      'False',
      'WrongSecretType',
      'Secret type of resource opaque is not supported',
    ]);
    const condition = legacyConditionOf(wrongSet, 'ResourcesApplied');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'WrongSecretType');
    assert.match(condition?.message ?? '', /Secret secrets\/opaque has type "Opaque"/);
    assert.equal(await configMapData(ctx.w1.kube, ns, 'from-opaque'), undefined);
    assert.equal(
      await configMapData(ctx.w1.kube, ns, 'from-cm'),
      undefined,
      'upstream stops the cluster before applying',
    );
    assert.deepEqual(entriesOf(await binding(ns, 'c1'), 'wrong'), []);

    assert.equal(right.result, 'Success');
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-good'), { n: '1' });
    assert.equal(entriesOf(await binding(ns, 'c1'), 'right')[0]?.applied, true);
  });

  test('invalid YAML is reported naming the ConfigMap and key; the other resources still apply', async () => {
    const ns = 'bad-yaml';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'broken', {
      'good.yaml': yamlDocs(configMap(ns, 'from-broken', { n: '1' })),
      'oops.yaml': 'kind: ConfigMap\nmetadata: {name: [unclosed\n',
    });
    await putResourceConfigMap(ctx.mgmt, ns, 'fine', { 'x.yaml': yamlDocs(configMap(ns, 'from-fine', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [
        { kind: 'ConfigMap', name: 'broken' },
        { kind: 'ConfigMap', name: 'fine' },
      ],
    });

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });

    assert.equal(outcome.result, 'Error');
    const set = await getCRS(ns, 'set');
    assert.deepEqual(stateOf(set, 'ResourcesApplied'), [
      'False',
      'NotApplied',
      'Failed to apply ClusterResourceSet resources to Cluster',
    ]);
    assert.notEqual(set?.status?.observedGeneration, set?.metadata.generation, 'upstream: only after a clean pass');
    const condition = legacyConditionOf(set, 'ResourcesApplied');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'ApplyFailed');
    assert.match(condition?.message ?? '', /ConfigMap bad-yaml\/broken key "oops\.yaml"/);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'from-fine'), { n: '1' });
    assert.equal(
      await configMapData(ctx.w1.kube, ns, 'from-broken'),
      undefined,
      'an unreadable resource applies nothing',
    );
    assert.deepEqual(
      entriesOf(await binding(ns, 'c1'), 'set').map((e) => [e.name, e.applied, e.hash !== undefined]),
      [
        ['broken', false, false],
        ['fine', true, true],
      ],
    );
  });

  test('deleting a ClusterResourceSet cleans its bindings and deletes nothing from workload clusters', async () => {
    const ns = 'deletion';
    await namespaces(ns, ctx.w1.kube, ctx.w2.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x', keep: 'yes' } });
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c2' }, ctx.w2, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'gone', { 'x.yaml': yamlDocs(configMap(ns, 'gone-obj', { n: '1' })) });
    await putResourceConfigMap(ctx.mgmt, ns, 'kept', { 'x.yaml': yamlDocs(configMap(ns, 'kept-obj', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'doomed', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'gone' }],
    });
    await putClusterResourceSet(ctx.mgmt, ns, 'keeper', {
      clusterSelector: { matchLabels: { keep: 'yes' } },
      resources: [{ kind: 'ConfigMap', name: 'kept' }],
    });
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'doomed' })).result, 'Success');
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'keeper' })).result, 'Success');
    const crsRef = { apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet', namespace: ns };
    assert.equal(await deleteObject(ctx.mgmt.kube, { ...crsRef, name: 'doomed' }), true);
    assert.ok((await getCRS(ns, 'doomed'))?.metadata.deletionTimestamp, 'the finalizer holds the object');
    ctx.resetLogs();

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'doomed' });

    assert.equal(outcome.result, 'Success');
    assert.equal(await getCRS(ns, 'doomed'), undefined, 'the finalizer is gone, so is the object');
    const b1 = await binding(ns, 'c1');
    assert.deepEqual(
      b1?.spec?.bindings?.map((e) => e.clusterResourceSetName),
      ['keeper'],
    );
    assert.deepEqual(
      b1?.metadata.ownerReferences?.map((r) => r.name),
      ['keeper'],
    );
    assert.equal(await binding(ns, 'c2'), undefined, 'a binding left empty is deleted');
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'gone-obj'), { n: '1' });
    assert.deepEqual(await configMapData(ctx.w2.kube, ns, 'gone-obj'), { n: '1' });
    assert.equal(ctx.workloadLogs.get(`${ns}/c1`)?.records.length ?? 0, 0, 'no request reached a workload cluster');
    assert.equal(ctx.workloadLogs.get(`${ns}/c2`)?.records.length ?? 0, 0);
  });

  test("a ClusterResourceSet upstream reconciled before the switch-over: capi-serverless's finalizer replaces upstream's, and deleting one with both leaves nothing", async () => {
    const ns = 'switch-over';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'res', { 'x.yaml': yamlDocs(configMap(ns, 'switched-obj', { n: '1' })) });
    const crsRef = { apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet', namespace: ns };
    // As upstream leaves it: its finalizer added with a merge patch; later, a user's own finalizer.
    await createObject(
      ctx.mgmt.kube,
      {
        ...crsRef,
        metadata: { namespace: ns, name: 'moved', finalizers: ['addons.cluster.x-k8s.io', 'example.com/keep'] },
        spec: { clusterSelector: { matchLabels: { app: 'x' } }, resources: [{ kind: 'ConfigMap', name: 'res' }] },
      },
      { fieldManager: 'manager' },
    );

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'moved' });

    assert.equal(outcome.result, 'Success');
    assert.ok(
      outcome.changed.includes(
        `added finalizer management.cluster.x-k8s.io/clusterresourceset and removed finalizer addons.cluster.x-k8s.io on ClusterResourceSet ${ns}/moved`,
      ),
      outcome.changed.join('\n'),
    );
    assert.deepEqual((await getCRS(ns, 'moved'))?.metadata.finalizers, [
      'example.com/keep',
      'management.cluster.x-k8s.io/clusterresourceset',
    ]);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'switched-obj'), { n: '1' });
    ctx.resetLogs();
    assert.deepEqual((await reconcileAddons(ctx.deps, { namespace: ns, name: 'moved' })).changed, []);
    assert.deepEqual(ctx.mutating(), [], 'a second pass writes nothing');

    // Upstream's finalizer back (as if upstream had been in charge again), and deleted: capi-serverless lets go of
    // both; the user's finalizer is theirs to remove.
    const current = await getCRS(ns, 'moved');
    await patchObject(
      ctx.mgmt.kube,
      { ...crsRef, name: 'moved' },
      {
        metadata: {
          resourceVersion: current?.metadata.resourceVersion,
          finalizers: [...(current?.metadata.finalizers ?? []), 'addons.cluster.x-k8s.io'],
        },
      },
      { fieldManager: 'manager' },
    );
    assert.equal(await deleteObject(ctx.mgmt.kube, { ...crsRef, name: 'moved' }), true);
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'moved' })).result, 'Success');
    assert.deepEqual((await getCRS(ns, 'moved'))?.metadata.finalizers, ['example.com/keep']);
    assert.equal(await binding(ns, 'c1'), undefined, 'the binding left empty is deleted');
    const left = await getCRS(ns, 'moved');
    await patchObject(
      ctx.mgmt.kube,
      { ...crsRef, name: 'moved' },
      { metadata: { resourceVersion: left?.metadata.resourceVersion, finalizers: [] } },
      { fieldManager: user },
    );
    assert.equal(await getCRS(ns, 'moved'), undefined);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'switched-obj'), { n: '1' }, 'the workload object stays');
  });

  test("a deleted Cluster's binding goes away", async () => {
    const ns = 'cluster-gone';
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'src', { 'x.yaml': yamlDocs(configMap(ns, 'obj', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'src' }],
    });
    assert.equal((await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' })).result, 'Success');
    assert.ok(await binding(ns, 'c1'));
    await deleteObject(ctx.mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: ns,
      name: 'c1',
    });

    const outcome = await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' });

    assert.deepEqual(outcome, { result: 'Success', changed: [`deleted ClusterResourceSetBinding ${ns}/c1`] });
    assert.equal(await binding(ns, 'c1'), undefined);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'obj'), { n: '1' });
  });

  test('a deleting topology Cluster keeps its binding until its BeforeClusterDelete hooks allow it (ok-to-delete)', async () => {
    const ns = 'cluster-held';
    const key = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: ns, name: 'c1' };
    await namespaces(ns, ctx.w1.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    // NOTE: a topology Cluster that a finalizer (upstream's core controller's, here a stand-in) keeps while deleting.
    const held = { apiVersion: key.apiVersion, kind: key.kind, metadata: { namespace: ns, name: 'c1' } };
    await applyObject(
      ctx.mgmt.kube,
      {
        ...held,
        metadata: { ...held.metadata, finalizers: ['test.cluster.x-k8s.io/hold'] },
        spec: { topology: { classRef: { name: 'dev' }, version: 'v1.34.0' } },
      } as KubeObject,
      { fieldManager: 'topology-test' },
    );
    await putResourceConfigMap(ctx.mgmt, ns, 'src', { 'x.yaml': yamlDocs(configMap(ns, 'obj', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'src' }],
    });
    assert.equal((await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' })).result, 'Success');
    assert.ok(await binding(ns, 'c1'));
    await deleteObject(ctx.mgmt.kube, key);

    assert.deepEqual(await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' }), {
      result: 'Success',
      changed: [],
    });
    assert.ok(await binding(ns, 'c1'), 'the binding stays while BeforeClusterDelete holds the deletion');

    await applyObject(
      ctx.mgmt.kube,
      {
        ...held,
        metadata: { ...held.metadata, annotations: { 'runtime.cluster.x-k8s.io/ok-to-delete': '' } },
      } as KubeObject,
      { fieldManager: 'capi-topology' },
    );
    assert.deepEqual(await reconcileAddonsForCluster(ctx.deps, { namespace: ns, name: 'c1' }), {
      result: 'Success',
      changed: [`deleted ClusterResourceSetBinding ${ns}/c1`],
    });
    assert.equal(await binding(ns, 'c1'), undefined);
    await applyObject(ctx.mgmt.kube, { ...held, metadata: { ...held.metadata, finalizers: [] } } as KubeObject, {
      fieldManager: 'topology-test',
    });
  });

  // Runs last: it stops the second workload control plane.
  test('an unreachable workload cluster sets ResourcesApplied=False with a reason; the other cluster is served', async () => {
    const ns = 'unreachable';
    await namespaces(ns, ctx.w1.kube, ctx.w2.kube);
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c1' }, ctx.w1, { labels: { app: 'x' } });
    await registerCluster(ctx.mgmt, { namespace: ns, name: 'c2' }, ctx.w2, { labels: { app: 'x' } });
    await putResourceConfigMap(ctx.mgmt, ns, 'src', { 'x.yaml': yamlDocs(configMap(ns, 'obj', { n: '1' })) });
    await putClusterResourceSet(ctx.mgmt, ns, 'set', {
      clusterSelector: { matchLabels: { app: 'x' } },
      resources: [{ kind: 'ConfigMap', name: 'src' }],
    });
    await ctx.w2.stop();

    const outcome = await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' });

    assert.equal(outcome.result, 'Error');
    assert.match(outcome.error ?? '', /Cluster unreachable\/c2/);
    const set = await getCRS(ns, 'set');
    assert.deepEqual(stateOf(set, 'ResourcesApplied'), [
      'False',
      'InternalError',
      'Please check controller logs for errors',
    ]);
    const condition = legacyConditionOf(set, 'ResourcesApplied');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'RemoteClusterClientFailed');
    assert.equal(condition?.severity, 'Error');
    assert.match(condition?.message ?? '', /^failed to get a client for Cluster unreachable\/c2: /);
    assert.deepEqual(await configMapData(ctx.w1.kube, ns, 'obj'), { n: '1' });
    assert.equal(entriesOf(await binding(ns, 'c1'), 'set')[0]?.applied, true);
    assert.deepEqual(entriesOf(await binding(ns, 'c2'), 'set'), [], 'nothing recorded as applied on c2');

    // A retry while c2 is still down changes nothing in the management cluster (no status churn).
    ctx.resetLogs();
    tick(60);
    assert.equal((await reconcileAddons(ctx.deps, { namespace: ns, name: 'set' })).result, 'Error');
    assert.deepEqual(ctx.pass.log.mutating(), []);
  });

  test("the forwarder watches the add-on kinds in v1beta2 on upstream's CRDs", async () => {
    const targets = defaultTargets().filter((t) => t.apiVersion.startsWith('addons.cluster.x-k8s.io/'));
    assert.deepEqual(await Promise.all(targets.map((t) => getCollectionPath(ctx.pass.kube, t))), [
      '/apis/addons.cluster.x-k8s.io/v1beta2/clusterresourcesets',
      '/apis/addons.cluster.x-k8s.io/v1beta2/clusterresourcesetbindings',
    ]);
  });
});
