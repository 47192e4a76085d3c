// Chained upgrades in topology passes against a real kube-apiserver and upstream's own test Runtime Extension on
// loopback: a ClusterClass with spec.kubernetesVersions upgrades two and four minors at once through every
// intermediate version, the workers in the fewest steps the version skew allows, with the upgrade hooks called per
// step as upstream calls them and the plan written to the Cluster's status; a ClusterClass with a GenerateUpgradePlan
// extension gets its plan from upstream's test extension (cached like upstream's), and a handler that is not
// registered fails the pass naming it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { applyObject, applyStatus, findObject, getObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { callNamedExtension, reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
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
const upgradeStep = 'topology.internal.cluster.x-k8s.io/upgrade-step';

let mgmt: TestCluster;
let ext: TestExtension;
let pass: { kube: KubeClient };
let deps: TopologyDeps;
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

function clusterClass(namespace: string, extra: Record<string, unknown>): KubeObject {
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
      ...extra,
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

const dig = (obj: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], obj);

async function clusterOf(key: ObjectKey): Promise<Unstructured> {
  return (await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key })) as Unstructured;
}

/** One pass; resolves its outcome and the hooks it called (with their version attributes). */
async function run(key: ObjectKey): Promise<{ outcome: TopologyOutcome; hooks: string[] }> {
  const start = calls.length;
  const outcome = await reconcileTopology(deps, key);
  assert.notEqual(outcome.result, 'Error', `${outcome.error ?? ''}\n${ext.logs().slice(-2000)}`);
  return { outcome, hooks: calls.slice(start).map((c) => describeCall(c)) };
}

/** `Hook from→to` or `Hook version`, as the request carries them. */
function describeCall(c: { hook: string; request: Readonly<Record<string, unknown>> }): string {
  const r = c.request as Record<string, string | undefined>;
  if (r['fromKubernetesVersion']) return `${c.hook} ${r['fromKubernetesVersion']}→${r['toKubernetesVersion'] ?? ''}`;
  return r['kubernetesVersion'] ? `${c.hook} ${r['kubernetesVersion']}` : c.hook;
}

async function versions(key: ObjectKey): Promise<{ cp: string; md: string }> {
  const c = await clusterOf(key);
  const cp = await getObject(mgmt.kube, {
    apiVersion: cpApi,
    kind: 'KubeadmControlPlane',
    namespace: key.namespace,
    name: dig(c, 'spec', 'controlPlaneRef', 'name') as string,
  });
  const mds = await listObjects(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', namespace: key.namespace });
  return {
    cp: dig(cp, 'spec', 'version') as string,
    md: dig(mds.items[0], 'spec', 'template', 'spec', 'version') as string,
  };
}

async function upgradePlanOf(key: ObjectKey): Promise<{ controlPlane: unknown; workers: unknown }> {
  const c = await clusterOf(key);
  const versionsOf = (plan: unknown) => (plan as { version: string }[] | undefined)?.map((s) => s.version);
  return {
    controlPlane: versionsOf(dig(c, 'status', 'controlPlane', 'upgradePlan')),
    workers: versionsOf(dig(c, 'status', 'workers', 'upgradePlan')),
  };
}

/** The control plane reports the version of its spec on all its replicas, as its provider would once rolled out. */
async function rollOutControlPlane(key: ObjectKey): Promise<void> {
  const c = await clusterOf(key);
  const name = dig(c, 'spec', 'controlPlaneRef', 'name') as string;
  const cp = await getObject(mgmt.kube, { apiVersion: cpApi, kind: 'KubeadmControlPlane', ...key, name });
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: cpApi,
      kind: 'KubeadmControlPlane',
      metadata: { namespace: key.namespace, name },
      status: {
        version: dig(cp, 'spec', 'version'),
        replicas: 1,
        upToDateReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    } as KubeObject,
    { fieldManager: 'kubeadm-control-plane', force: true },
  );
}

/** A namespace with the Dev* templates, the reconciled ClusterClass and Cluster c1 created and rolled out at `from`. */
async function setUp(namespace: string, from: string, classExtra: Record<string, unknown>): Promise<ObjectKey> {
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
  await put(clusterClass(namespace, classExtra));
  const cc = await reconcileClusterClass(deps, { namespace, name: 'dev' });
  assert.equal(cc.result, 'Success', cc.error);
  await put(cluster(namespace, from));
  const key = { namespace, name: 'c1' };
  await run(key);
  await rollOutControlPlane(key);
  await run(key);
  assert.deepEqual(await versions(key), { cp: from, md: from });
  return key;
}

/** The recorded answers of the test extension for c1 (`<hook>-<versions>` keys). */
async function recorded(namespace: string): Promise<string[]> {
  const cm = await findObject(mgmt.kube, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace,
    name: 'c1-test-ext-test-extension-hookresponses',
  });
  return Object.keys((cm?.['data'] ?? {}) as Record<string, string>)
    .filter((k) => k.endsWith('-actualResponseStatus'))
    .map((k) => k.replace(/-actualResponseStatus$/, ''))
    .sort();
}

before(async () => {
  const crds = computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  );
  mgmt = await startManagementCluster({
    name: 'chained-upgrade',
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

describe('chained upgrades from spec.kubernetesVersions', () => {
  test('two minors: the control plane goes through the intermediate version, the workers straight to the last, hooks per step', async () => {
    const key = await setUp('two-minors', 'v1.33.0', { kubernetesVersions: ['v1.33.0', 'v1.34.0', 'v1.35.0'] });
    const md = (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', ...key })).items[0]
      ?.metadata?.name;
    await put(cluster(key.namespace, 'v1.35.0'));

    let step = await run(key);
    assert.deepEqual(step.hooks, ['BeforeClusterUpgrade v1.33.0→v1.35.0', 'BeforeControlPlaneUpgrade v1.33.0→v1.34.0']);
    assert.deepEqual(
      { ...calls.at(-1)?.request, cluster: undefined },
      {
        cluster: undefined,
        fromKubernetesVersion: 'v1.33.0',
        toKubernetesVersion: 'v1.34.0',
        controlPlaneUpgrades: [{ version: 'v1.34.0' }, { version: 'v1.35.0' }],
        workersUpgrades: [{ version: 'v1.35.0' }],
      },
    );
    assert.deepEqual(await versions(key), { cp: 'v1.34.0', md: 'v1.33.0' });
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: ['v1.34.0', 'v1.35.0'], workers: ['v1.35.0'] });
    let c = await clusterOf(key);
    assert.equal(c.metadata.annotations?.[upgradeStep], 'v1.34.0');
    assert.equal(
      c.metadata.annotations?.[pendingHooks],
      'AfterClusterUpgrade,AfterControlPlaneInitialized,AfterControlPlaneUpgrade',
    );
    const condition = ((dig(c, 'status', 'conditions') ?? []) as Record<string, string>[]).find(
      (x) => x['type'] === 'TopologyReconciled',
    );
    assert.equal(
      condition?.['message'],
      'Cluster is upgrading to v1.35.0\n' +
        '  * KubeadmControlPlane upgrading to version v1.34.0 (v1.35.0 pending)\n' +
        `  * MachineDeployment ${md ?? ''} pending upgrade to version v1.35.0`,
    );

    step = await run(key);
    assert.deepEqual(step.hooks, [], 'no hook while the control plane rolls out its first step');
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: ['v1.35.0'], workers: ['v1.35.0'] });

    await rollOutControlPlane(key);
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterControlPlaneUpgrade v1.34.0', 'BeforeControlPlaneUpgrade v1.34.0→v1.35.0']);
    assert.deepEqual(await versions(key), { cp: 'v1.35.0', md: 'v1.33.0' });
    c = await clusterOf(key);
    assert.equal(c.metadata.annotations?.[upgradeStep], 'v1.35.0');
    assert.equal(
      c.metadata.annotations?.[pendingHooks],
      'AfterClusterUpgrade,AfterControlPlaneInitialized,AfterControlPlaneUpgrade,AfterWorkersUpgrade,BeforeWorkersUpgrade',
    );

    await rollOutControlPlane(key);
    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterControlPlaneUpgrade v1.35.0', 'BeforeWorkersUpgrade v1.33.0→v1.35.0']);
    assert.deepEqual(await versions(key), { cp: 'v1.35.0', md: 'v1.35.0' });

    step = await run(key);
    assert.deepEqual(step.hooks, ['AfterWorkersUpgrade v1.35.0', 'AfterClusterUpgrade v1.35.0']);
    assert.equal(step.outcome.result, 'Success');
    c = await clusterOf(key);
    assert.equal(c.metadata.annotations?.[upgradeStep], undefined);
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: undefined, workers: undefined }, 'removed when done');
    assert.deepEqual(
      (await recorded(key.namespace)).filter((k) => !k.startsWith('BeforeClusterCreate')),
      [
        'AfterClusterUpgrade-v1.35.0',
        'AfterControlPlaneUpgrade-v1.34.0',
        'AfterControlPlaneUpgrade-v1.35.0',
        'AfterWorkersUpgrade-v1.35.0',
        'BeforeClusterUpgrade-v1.33.0-v1.35.0',
        'BeforeControlPlaneUpgrade-v1.33.0-v1.34.0',
        'BeforeControlPlaneUpgrade-v1.34.0-v1.35.0',
        'BeforeWorkersUpgrade-v1.33.0-v1.35.0',
      ],
      'the test extension answered every step',
    );
  });

  test('four minors: the workers take an intermediate step so they never fall more than three minors behind', async () => {
    const list = ['v1.31.0', 'v1.32.0', 'v1.33.0', 'v1.34.0', 'v1.35.0'];
    const key = await setUp('four-minors', 'v1.31.0', { kubernetesVersions: list });
    await put(cluster(key.namespace, 'v1.35.0'));
    const seen: { cp: string; md: string; hooks: string[] }[] = [];
    for (let i = 0; i < 10; i++) {
      const step = await run(key);
      seen.push({ ...(await versions(key)), hooks: step.hooks });
      if (step.hooks.some((h) => h.startsWith('AfterClusterUpgrade'))) break;
      await rollOutControlPlane(key);
    }
    assert.deepEqual(seen, [
      {
        cp: 'v1.32.0',
        md: 'v1.31.0',
        hooks: ['BeforeClusterUpgrade v1.31.0→v1.35.0', 'BeforeControlPlaneUpgrade v1.31.0→v1.32.0'],
      },
      {
        cp: 'v1.33.0',
        md: 'v1.31.0',
        hooks: ['AfterControlPlaneUpgrade v1.32.0', 'BeforeControlPlaneUpgrade v1.32.0→v1.33.0'],
      },
      {
        cp: 'v1.34.0',
        md: 'v1.31.0',
        hooks: ['AfterControlPlaneUpgrade v1.33.0', 'BeforeControlPlaneUpgrade v1.33.0→v1.34.0'],
      },
      {
        cp: 'v1.34.0',
        md: 'v1.34.0',
        hooks: ['AfterControlPlaneUpgrade v1.34.0', 'BeforeWorkersUpgrade v1.31.0→v1.34.0'],
      },
      {
        cp: 'v1.35.0',
        md: 'v1.34.0',
        hooks: ['AfterWorkersUpgrade v1.34.0', 'BeforeControlPlaneUpgrade v1.34.0→v1.35.0'],
      },
      {
        cp: 'v1.35.0',
        md: 'v1.35.0',
        hooks: ['AfterControlPlaneUpgrade v1.35.0', 'BeforeWorkersUpgrade v1.34.0→v1.35.0'],
      },
      { cp: 'v1.35.0', md: 'v1.35.0', hooks: ['AfterWorkersUpgrade v1.35.0', 'AfterClusterUpgrade v1.35.0'] },
    ]);
  });

  test("a pass that fails after computing the plan still writes it to the Cluster's status, as upstream", async () => {
    const key = await setUp('failed-hook', 'v1.33.0', { kubernetesVersions: ['v1.33.0', 'v1.34.0', 'v1.35.0'] });
    await put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: key.namespace, name: 'c1-test-ext-test-extension-hookresponses' },
      data: {
        'BeforeClusterUpgrade-v1.33.0-v1.35.0-preloadedResponse':
          '{"Status": "Failure", "Message": "not before Friday"}',
      },
    });
    await put(cluster(key.namespace, 'v1.35.0'));
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    assert.match(outcome.error ?? '', /BeforeClusterUpgrade[\s\S]*not before Friday/);
    assert.deepEqual(await versions(key), { cp: 'v1.33.0', md: 'v1.33.0' }, 'nothing upgraded');
    // upstream's reconcileUpgradePlan runs in the deferred status patch of every pass whose plan was computed
    // (ComputeUpgradePlanSucceeded), before the hook that failed.
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: ['v1.34.0', 'v1.35.0'], workers: ['v1.35.0'] });
  });

  test('without kubernetesVersions a two-minor jump fails the pass with upstream message', async () => {
    const key = await setUp('one-minor', 'v1.33.0', {});
    await put(cluster(key.namespace, 'v1.35.0'));
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    assert.match(outcome.error ?? '', /cannot compute an upgrade plan from v1\.33\.0 to v1\.35\.0/);
    assert.deepEqual(await versions(key), { cp: 'v1.33.0', md: 'v1.33.0' });
  });
});

describe("GenerateUpgradePlan from upstream's test extension", () => {
  test('the plan the extension answers drives the control plane and is cached for the same versions', async () => {
    const extension = { upgrade: { external: { generateUpgradePlanExtension: 'generate-upgrade-plan.test-ext' } } };
    const key = await setUp('generated', 'v1.33.0', extension);
    await put(cluster(key.namespace, 'v1.35.0'));
    const raw = await clusterOf(key);
    // What upstream's handler answers for this request (it plans from kind's known Kubernetes versions).
    const answer = await callNamedExtension(
      { kube: pass.kube },
      'GenerateUpgradePlan',
      'generate-upgrade-plan.test-ext',
      key.namespace,
      {
        cluster: { ...raw, status: undefined },
        fromControlPlaneKubernetesVersion: 'v1.33.0',
        fromWorkersKubernetesVersion: 'v1.33.0',
        toKubernetesVersion: 'v1.35.0',
      },
    );
    const expected = (answer.controlPlaneUpgrades ?? []).map((s) => s.version);
    assert.ok(expected.length >= 2, `a two-minor plan: ${JSON.stringify(answer)}`);
    assert.equal(expected.at(-1), 'v1.35.0');
    const asked = () => ext.logs().split('GenerateUpgradePlan is called').length - 1;
    const before = asked();

    const step = await run(key);
    assert.deepEqual(step.hooks, [
      'BeforeClusterUpgrade v1.33.0→v1.35.0',
      `BeforeControlPlaneUpgrade v1.33.0→${expected[0] ?? ''}`,
    ]);
    assert.deepEqual(await versions(key), { cp: expected[0], md: 'v1.33.0' });
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: expected, workers: ['v1.35.0'] });
    assert.equal(asked() - before, 1, 'the pass asked the extension once');

    await run(key);
    // NOTE: the control plane's spec moved to the first step: a new request (upstream's cache key has the versions).
    assert.equal(asked() - before, 2);
    await run(key);
    assert.equal(asked() - before, 2, 'the same versions are answered from the cache');
    assert.deepEqual(await upgradePlanOf(key), { controlPlane: expected.slice(1), workers: ['v1.35.0'] });
  });

  test('a GenerateUpgradePlan handler that is not registered fails the pass naming it, nothing is upgraded', async () => {
    const missing = { upgrade: { external: { generateUpgradePlanExtension: 'no-such-handler.test-ext' } } };
    const key = await setUp('missing-handler', 'v1.33.0', missing);
    await put(cluster(key.namespace, 'v1.34.0'));
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    assert.match(outcome.error ?? '', /failed to get upgrade plan from extension: .*no-such-handler\.test-ext/);
    assert.deepEqual(await versions(key), { cp: 'v1.33.0', md: 'v1.33.0' });
    const condition = ((dig(await clusterOf(key), 'status', 'conditions') ?? []) as Record<string, string>[]).find(
      (x) => x['type'] === 'TopologyReconciled',
    );
    assert.equal(condition?.['status'], 'False');
    assert.match(condition?.['message'] ?? '', /no-such-handler\.test-ext/);
  });
});
