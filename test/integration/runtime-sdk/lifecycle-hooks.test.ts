// Lifecycle hooks in topology passes, against upstream's own test Runtime Extension on loopback and a real
// kube-apiserver: each hook is called at the point upstream's topology controller calls it, with upstream's request;
// a blocking answer (preloaded through the extension's hook-response ConfigMap) holds the step, shows on
// TopologyReconciled and sets the next pass to retryAfterSeconds; a non-blocking answer lets the step proceed; the
// pending-hooks annotation is set and cleared where upstream does; BeforeClusterDelete gates the ok-to-delete
// annotation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { applyObject, applyStatus, deleteObject, findObject, getObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { reconcileClusterClass, reconcileTopology, type TopologyDeps } from '#shared/topology/index.ts';
import { createLifecycleHookCaller } from '#shared/topology/run-lifecycle-hooks.ts';
import type { TopologyOutcome } from '#shared/topology/outcome.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import {
  genericCrd,
  harnessFieldManager,
  startManagementCluster,
  type TestCluster,
} from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const capi = 'cluster.x-k8s.io/v1beta2';
const pendingHooks = 'runtime.cluster.x-k8s.io/pending-hooks';
const okToDelete = 'runtime.cluster.x-k8s.io/ok-to-delete';
const from = 'v1.34.0';
const to = 'v1.35.0';

let mgmt: TestCluster;
let ext: TestExtension;
let pass: { kube: KubeClient };
let deps: TopologyDeps;
/** Every hook call of the passes, as sent to the extension. */
const calls: { hook: string; request: Readonly<Record<string, unknown>> }[] = [];

const template = (apiVersion: string, kind: string, name: string, spec: object) => ({
  apiVersion,
  kind,
  metadata: { name },
  spec: { template: { spec } },
});
const templates = [
  template(infra, 'DevClusterTemplate', 'dev-cluster', { backend: { docker: {} } }),
  template(cpApi, 'KubeadmControlPlaneTemplate', 'dev-control-plane', { kubeadmConfigSpec: {} }),
  template(infra, 'DevMachineTemplate', 'dev-machine', { backend: { docker: {} } }),
  template(bootstrapApi, 'KubeadmConfigTemplate', 'dev-bootstrap', { joinConfiguration: {} }),
];
const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

function clusterClass(namespace: string): KubeObject {
  return {
    apiVersion: capi,
    kind: 'ClusterClass',
    metadata: { namespace, name: 'dev' },
    spec: {
      infrastructure: { templateRef: ref(infra, 'DevClusterTemplate', 'dev-cluster') },
      controlPlane: {
        templateRef: ref(cpApi, 'KubeadmControlPlaneTemplate', 'dev-control-plane'),
        machineInfrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'dev-machine') },
      },
      workers: {
        machineDeployments: [
          {
            class: 'default-worker',
            bootstrap: { templateRef: ref(bootstrapApi, 'KubeadmConfigTemplate', 'dev-bootstrap') },
            infrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'dev-machine') },
          },
        ],
      },
    },
  };
}

function cluster(namespace: string, version: string): KubeObject {
  return {
    apiVersion: capi,
    kind: 'Cluster',
    metadata: { namespace, name: 'c1' },
    spec: {
      topology: {
        classRef: { name: 'dev' },
        version,
        controlPlane: { replicas: 1 },
        workers: { machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }] },
      },
    },
  };
}

async function put(obj: object): Promise<KubeObject> {
  return applyObject(mgmt.kube, obj as KubeObject, { fieldManager: harnessFieldManager, force: true });
}

async function mustGet(apiVersion: string, kind: string, namespace: string, name: string): Promise<Unstructured> {
  return (await getObject(mgmt.kube, { apiVersion, kind, namespace, name })) as Unstructured;
}

const dig = (obj: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], obj);

/** The preloaded answers of the test extension for Cluster c1 (its `<cluster>-<extension>-…` ConfigMap). */
async function preload(namespace: string, answers: Record<string, { retryAfterSeconds: number; message?: string }>) {
  const data = Object.fromEntries(
    Object.entries(answers).map(([hook, a]) => [
      `${hook}-preloadedResponse`,
      JSON.stringify({ Status: 'Success', Message: a.message ?? '', RetryAfterSeconds: a.retryAfterSeconds }),
    ]),
  );
  await put({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name: 'c1-test-ext-test-extension-hookresponses' },
    data,
  });
}

/** What the test extension recorded of the calls it answered (`<hook>[-<versions>]-actualResponseStatus`). */
async function recorded(namespace: string): Promise<Record<string, string>> {
  const cm = await findObject(mgmt.kube, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace,
    name: 'c1-test-ext-test-extension-hookresponses',
  });
  const data = (cm?.['data'] ?? {}) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(data)
      .filter(([k]) => k.endsWith('-actualResponseStatus'))
      .map(([k, v]) => [k.replace(/-actualResponseStatus$/, ''), v]),
  );
}

/** One pass; resolves its outcome and the hooks it called. */
async function run(key: ObjectKey): Promise<{ outcome: TopologyOutcome; hooks: string[] }> {
  const start = calls.length;
  const outcome = await reconcileTopology(deps, key);
  assert.notEqual(outcome.result, 'Error', `${outcome.error ?? ''}\n${ext.logs().slice(-2000)}`);
  return { outcome, hooks: calls.slice(start).map((c) => c.hook) };
}

async function clusterOf(key: ObjectKey): Promise<Unstructured> {
  return mustGet(capi, 'Cluster', key.namespace, key.name);
}

async function pendingOf(key: ObjectKey): Promise<string | undefined> {
  return (await clusterOf(key)).metadata.annotations?.[pendingHooks];
}

async function conditionOf(key: ObjectKey): Promise<Record<string, string> | undefined> {
  const conditions = (dig(await clusterOf(key), 'status', 'conditions') ?? []) as Record<string, string>[];
  return conditions.find((c) => c['type'] === 'TopologyReconciled');
}

async function versions(key: ObjectKey): Promise<{ cp: unknown; md: unknown }> {
  const c = await clusterOf(key);
  const cp = await mustGet(
    cpApi,
    'KubeadmControlPlane',
    key.namespace,
    dig(c, 'spec', 'controlPlaneRef', 'name') as string,
  );
  const mds = (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', namespace: key.namespace }))
    .items as Unstructured[];
  return { cp: dig(cp, 'spec', 'version'), md: dig(mds[0], 'spec', 'template', 'spec', 'version') };
}

async function mdName(key: ObjectKey): Promise<string> {
  const mds = await listObjects(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', namespace: key.namespace });
  return mds.items[0]?.metadata?.name ?? '';
}

/** The control plane reports `version` on all its replicas, as its provider would. */
async function setControlPlaneVersion(key: ObjectKey, version: string): Promise<void> {
  const c = await clusterOf(key);
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: cpApi,
      kind: 'KubeadmControlPlane',
      metadata: { namespace: key.namespace, name: dig(c, 'spec', 'controlPlaneRef', 'name') as string },
      status: { version, replicas: 1, upToDateReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
    } as KubeObject,
    { fieldManager: 'kubeadm-control-plane', force: true },
  );
}

/** The Cluster's ControlPlaneInitialized condition turns True, as upstream's core Cluster controller sets it. */
async function setControlPlaneInitialized(key: ObjectKey): Promise<void> {
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: { namespace: key.namespace, name: key.name },
      status: {
        conditions: [
          {
            type: 'ControlPlaneInitialized',
            status: 'True',
            reason: 'Initialized',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    } as KubeObject,
    { fieldManager: 'cluster-controller', force: true },
  );
}

/** A namespace with the Dev* templates, the reconciled ClusterClass and Cluster c1 created by a first pass. */
async function setUp(namespace: string, version = from): Promise<ObjectKey> {
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
  await put(clusterClass(namespace));
  const cc = await reconcileClusterClass(deps, { namespace, name: 'dev' });
  assert.equal(cc.result, 'Success', cc.error);
  await put(cluster(namespace, version));
  const key = { namespace, name: 'c1' };
  const first = await run(key);
  assert.deepEqual(first.hooks, ['BeforeClusterCreate']);
  return key;
}

before(async () => {
  const crds = computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  );
  mgmt = await startManagementCluster({
    name: 'lifecycle-hooks',
    extraCrds: [
      ...crds,
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevClusterTemplate'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevCluster'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevMachineTemplate'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
      genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
    ],
  });
  pass = await mgmt.newClient();
  const real = createLifecycleHookCaller({ kube: pass.kube });
  deps = {
    kube: pass.kube,
    randomSuffix: sequentialSuffix(),
    now: () => new Date('2026-01-01T00:00:00Z'),
    callHook: async (hook, namespace, request) => {
      calls.push({ hook, request });
      return real(hook, namespace, request);
    },
  };
  ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
  await put({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name: 'test-ext' },
    spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle }, settings: { extensionConfigName: 'test-ext' } },
  });
  const discovered = await reconcileExtensionConfig(
    { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
    'test-ext',
  );
  assert.equal(discovered.discovered, true, discovered.error);
});

after(async () => {
  pass?.kube.close();
  await ext?.stop();
  await mgmt?.stop();
});

describe("lifecycle hooks against upstream's test extension", () => {
  test('AfterControlPlaneInitialized is marked pending at creation and called once the control plane is initialized', async () => {
    const key = await setUp('initialized');
    assert.equal(await pendingOf(key), 'AfterControlPlaneInitialized', 'marked when the topology is created');
    const idle = await run(key);
    assert.deepEqual(idle.hooks, [], 'not called before ControlPlaneInitialized is True');
    assert.equal((await recorded(key.namespace))['AfterControlPlaneInitialized'], undefined);

    await setControlPlaneInitialized(key);
    const called = await run(key);
    assert.deepEqual(called.hooks, ['AfterControlPlaneInitialized']);
    assert.equal((await recorded(key.namespace))['AfterControlPlaneInitialized'], 'Success');
    const request = calls.at(-1)?.request as { cluster?: Unstructured };
    assert.equal(request.cluster?.metadata.name, 'c1');
    assert.equal(request.cluster?.['status'], undefined, 'the request carries the Cluster without its status');
    assert.equal(await pendingOf(key), undefined, 'the annotation is removed once the hook answered');
    assert.deepEqual((await run(key)).hooks, [], 'called once');
  });

  test('a pass whose external patch fails has not called AfterControlPlaneInitialized; the next good pass does', async () => {
    const key = await setUp('after-patches');
    await setControlPlaneInitialized(key);
    // NOTE: a GeneratePatches handler no ExtensionConfig registers: the pass fails in the patch engine, through the
    // real Runtime SDK client, after every other hook of the desired state is answered.
    const broken = clusterClass(key.namespace);
    (broken['spec'] as Record<string, unknown>)['patches'] = [
      { name: 'broken', external: { generatePatchesExtension: 'generate-patches.no-such-extension' } },
    ];
    await put(broken);
    assert.equal((await reconcileClusterClass(deps, { namespace: key.namespace, name: 'dev' })).result, 'Success');
    const start = calls.length;
    const failed = await reconcileTopology(deps, key);
    assert.equal(failed.result, 'Error');
    assert.match(failed.error ?? '', /no-such-extension/);
    assert.deepEqual(
      calls.slice(start).map((c) => c.hook),
      [],
      'upstream calls the After* hooks in reconcileState, after the patches',
    );
    assert.equal((await recorded(key.namespace))['AfterControlPlaneInitialized'], undefined);
    assert.equal(await pendingOf(key), 'AfterControlPlaneInitialized', 'still pending');

    await put(clusterClass(key.namespace));
    assert.equal((await reconcileClusterClass(deps, { namespace: key.namespace, name: 'dev' })).result, 'Success');
    assert.deepEqual((await run(key)).hooks, ['AfterControlPlaneInitialized']);
    assert.equal(await pendingOf(key), undefined);
  });

  test('an upgrade calls every upgrade hook at its step; each blocking answer holds that step until it releases', async () => {
    const key = await setUp('upgrade');
    await setControlPlaneVersion(key, from);
    await run(key);
    const md = await mdName(key);
    const wait = (message: string, retryAfterSeconds: number) => ({ message, retryAfterSeconds });
    const go = { retryAfterSeconds: 0 };
    await put(cluster(key.namespace, to));

    // BeforeClusterUpgrade blocks: nothing picks up the new version.
    await preload(key.namespace, { [`BeforeClusterUpgrade-${from}-${to}`]: wait('taking a backup', 13) });
    let step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeClusterUpgrade']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 13_000]);
    assert.deepEqual(
      { ...calls.at(-1)?.request, cluster: undefined },
      {
        cluster: undefined,
        fromKubernetesVersion: from,
        toKubernetesVersion: to,
        controlPlaneUpgrades: [{ version: to }],
        workersUpgrades: [{ version: to }],
      },
    );
    assert.deepEqual(await versions(key), { cp: from, md: from });
    assert.equal(await pendingOf(key), 'AfterControlPlaneInitialized');
    let condition = await conditionOf(key);
    assert.deepEqual([condition?.['status'], condition?.['reason']], ['False', 'ClusterUpgrading']);
    assert.equal(
      condition?.['message'],
      `Cluster is upgrading to ${to}\n` +
        '  * Following hooks are blocking upgrade: BeforeClusterUpgrade: taking a backup\n' +
        `  * KubeadmControlPlane pending upgrade to version ${to}\n` +
        `  * MachineDeployment ${md} pending upgrade to version ${to}`,
    );

    // BeforeClusterUpgrade releases, BeforeControlPlaneUpgrade blocks.
    await preload(key.namespace, {
      [`BeforeClusterUpgrade-${from}-${to}`]: go,
      [`BeforeControlPlaneUpgrade-${from}-${to}`]: wait('draining', 11),
    });
    step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeClusterUpgrade', 'BeforeControlPlaneUpgrade']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 11_000]);
    assert.deepEqual(await versions(key), { cp: from, md: from });
    assert.equal(await pendingOf(key), 'AfterClusterUpgrade,AfterControlPlaneInitialized', 'the upgrade has started');
    assert.match(
      (await conditionOf(key))?.['message'] ?? '',
      /\n {2}\* Following hooks are blocking upgrade: BeforeControlPlaneUpgrade: draining\n/,
    );

    // BeforeControlPlaneUpgrade releases: the control plane picks up the version; BeforeClusterUpgrade is not asked again.
    await preload(key.namespace, { [`BeforeControlPlaneUpgrade-${from}-${to}`]: go });
    step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeControlPlaneUpgrade']);
    assert.deepEqual(await versions(key), { cp: to, md: from });
    assert.equal(
      await pendingOf(key),
      'AfterClusterUpgrade,AfterControlPlaneInitialized,AfterControlPlaneUpgrade,AfterWorkersUpgrade,BeforeWorkersUpgrade',
    );
    assert.deepEqual((await run(key)).hooks, [], 'no hook while the control plane upgrades');

    // The control plane reports the version: AfterControlPlaneUpgrade blocks the workers.
    await setControlPlaneVersion(key, to);
    await preload(key.namespace, { [`AfterControlPlaneUpgrade-${to}`]: wait('checking the control plane', 9) });
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterControlPlaneUpgrade']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 9_000]);
    assert.deepEqual(
      { ...calls.at(-1)?.request, cluster: undefined },
      {
        cluster: undefined,
        kubernetesVersion: to,
        workersUpgrades: [{ version: to }],
      },
    );
    assert.deepEqual(await versions(key), { cp: to, md: from });
    condition = await conditionOf(key);
    assert.equal(
      condition?.['message'],
      `Cluster is upgrading to ${to}\n` +
        '  * Following hooks are blocking upgrade: AfterControlPlaneUpgrade: checking the control plane\n' +
        `  * MachineDeployment ${md} pending upgrade to version ${to}`,
    );

    // AfterControlPlaneUpgrade releases, BeforeWorkersUpgrade blocks.
    await preload(key.namespace, {
      [`AfterControlPlaneUpgrade-${to}`]: go,
      [`BeforeWorkersUpgrade-${from}-${to}`]: wait('cordoning', 8),
    });
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterControlPlaneUpgrade', 'BeforeWorkersUpgrade']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 8_000]);
    assert.deepEqual(await versions(key), { cp: to, md: from });
    assert.equal(
      await pendingOf(key),
      'AfterClusterUpgrade,AfterControlPlaneInitialized,AfterWorkersUpgrade,BeforeWorkersUpgrade',
    );

    // BeforeWorkersUpgrade releases: the workers pick up the version.
    await preload(key.namespace, { [`BeforeWorkersUpgrade-${from}-${to}`]: go });
    step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeWorkersUpgrade']);
    assert.deepEqual(await versions(key), { cp: to, md: to });
    assert.equal(await pendingOf(key), 'AfterClusterUpgrade,AfterControlPlaneInitialized,AfterWorkersUpgrade');

    // The workers are done: AfterWorkersUpgrade blocks AfterClusterUpgrade.
    await preload(key.namespace, { [`AfterWorkersUpgrade-${to}`]: wait('smoke tests', 7) });
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterWorkersUpgrade']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 7_000]);
    assert.equal(
      (await conditionOf(key))?.['message'],
      `Cluster is upgrading to ${to}\n  * Following hooks are blocking upgrade: AfterWorkersUpgrade: smoke tests`,
    );

    // AfterWorkersUpgrade releases; AfterClusterUpgrade is called in the same pass and blocks.
    await preload(key.namespace, {
      [`AfterWorkersUpgrade-${to}`]: go,
      [`AfterClusterUpgrade-${to}`]: wait('reporting', 6),
    });
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterWorkersUpgrade', 'AfterClusterUpgrade']);
    assert.deepEqual({ ...calls.at(-1)?.request, cluster: undefined }, { cluster: undefined, kubernetesVersion: to });
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 6_000]);
    assert.equal(await pendingOf(key), 'AfterClusterUpgrade,AfterControlPlaneInitialized');
    condition = await conditionOf(key);
    assert.deepEqual(
      [condition?.['reason'], condition?.['message']],
      [
        'ClusterUpgrading',
        `Cluster is upgrading to ${to}\n  * Following hooks are blocking upgrade: AfterClusterUpgrade: reporting`,
      ],
    );

    // AfterClusterUpgrade releases: the upgrade is complete.
    await preload(key.namespace, { [`AfterClusterUpgrade-${to}`]: go });
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterClusterUpgrade']);
    assert.equal(step.outcome.result, 'Success');
    assert.equal(await pendingOf(key), 'AfterControlPlaneInitialized');
    assert.equal((await conditionOf(key))?.['status'], 'True');
    assert.deepEqual((await run(key)).hooks, [], 'nothing left to call');

    // The extension saw every hook, with the versions upstream sends.
    const seen = await recorded(key.namespace);
    for (const hook of [
      `BeforeClusterUpgrade-${from}-${to}`,
      `BeforeControlPlaneUpgrade-${from}-${to}`,
      `AfterControlPlaneUpgrade-${to}`,
      `BeforeWorkersUpgrade-${from}-${to}`,
      `AfterWorkersUpgrade-${to}`,
      `AfterClusterUpgrade-${to}`,
    ])
      assert.equal(seen[hook], 'Status: Success, RetryAfterSeconds: 0', `${hook} answered last without blocking`);
  });

  test('a before-upgrade annotation blocks the upgrade like a hook, without calling the extension', async () => {
    const key = await setUp('annotated');
    await setControlPlaneVersion(key, from);
    await run(key);
    const upgraded = cluster(key.namespace, to);
    upgraded.metadata = {
      ...upgraded.metadata,
      annotations: { 'before-upgrade.hook.cluster.cluster.x-k8s.io/maintenance': '' },
    };
    await put(upgraded);
    const step = await run(key);
    assert.deepEqual(step.hooks, []);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 1_200_000]);
    assert.deepEqual(await versions(key), { cp: from, md: from });
    assert.match(
      (await conditionOf(key))?.['message'] ?? '',
      /Following hooks are blocking upgrade: BeforeClusterUpgrade: annotation before-upgrade\.hook\.cluster\.cluster\.x-k8s\.io\/maintenance is set/,
    );
  });

  test('BeforeClusterDelete holds the deletion until it answers non-blocking, then sets ok-to-delete', async () => {
    const key = await setUp('deleting');
    // NOTE: upstream's core Cluster controller holds its own finalizer while it deletes the Cluster's objects.
    await applyObject(
      mgmt.kube,
      { apiVersion: capi, kind: 'Cluster', metadata: { ...key, finalizers: ['cluster.cluster.x-k8s.io'] } },
      { fieldManager: 'cluster-controller' },
    );
    await preload(key.namespace, { BeforeClusterDelete: { retryAfterSeconds: 17, message: 'archiving' } });
    await deleteObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key });

    let step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeClusterDelete']);
    assert.deepEqual([step.outcome.result, step.outcome.requeueAfterMs], ['Requeue', 17_000]);
    assert.equal((await clusterOf(key)).metadata.annotations?.[okToDelete], undefined);
    let condition = await conditionOf(key);
    assert.deepEqual(
      [condition?.['reason'], condition?.['message']],
      ['Deleting', 'Cluster is deleting. Following hooks are blocking delete: BeforeClusterDelete: archiving'],
    );

    await preload(key.namespace, { BeforeClusterDelete: { retryAfterSeconds: 0 } });
    step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeClusterDelete']);
    assert.equal(step.outcome.result, 'Success');
    assert.equal((await clusterOf(key)).metadata.annotations?.[okToDelete], '');
    condition = await conditionOf(key);
    assert.deepEqual([condition?.['reason'], condition?.['message']], ['Deleting', 'Cluster is deleting']);
    assert.deepEqual((await run(key)).hooks, [], 'not asked again once ok to delete');
    assert.equal((await recorded(key.namespace))['BeforeClusterDelete'], 'Status: Success, RetryAfterSeconds: 0');
  });
});
