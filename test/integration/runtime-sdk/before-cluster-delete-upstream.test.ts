// BeforeClusterDelete holds a topology Cluster's deletion beside upstream's real core manager in the handoff
// configuration (ClusterTopology and RuntimeSDK gates off, so upstream's core Cluster controller does not wait for the
// ok-to-delete annotation itself): the harness's handoff policies (computeHarnessHandoffPolicy, the ones the providers
// pass installs) refuse the core manager's deletes of the Cluster's objects until capi-serverless's topology pass sets
// ok-to-delete, after upstream's test extension answers non-blocking; then upstream deletes the Cluster as usual.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { applyObject, deleteObject, findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { reconcileClusterClass, reconcileTopology, type TopologyDeps } from '#shared/topology/index.ts';
import { createLifecycleHookCaller } from '#shared/topology/run-lifecycle-hooks.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import { harnessFieldManager, type TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { startUpstreamManagementCluster, type UpstreamCapi } from '#test/support/harness/upstream-capi.ts';

const ns = 'deleting';
const capi = 'cluster.x-k8s.io/v1beta2';
const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const okToDelete = 'runtime.cluster.x-k8s.io/ok-to-delete';
const key: ObjectKey = { namespace: ns, name: 'c1' };

let mgmt: TestCluster;
let upstream: UpstreamCapi;
let ext: TestExtension;
let pass: { kube: KubeClient };
let deps: TopologyDeps;

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });
const template = (apiVersion: string, kind: string, spec: object): KubeObject => ({
  apiVersion,
  kind,
  metadata: { namespace: ns, name: 'in-memory' },
  spec: { template: { spec } },
});

function topologyObjects(): KubeObject[] {
  return [
    template(infra, 'DevClusterTemplate', { backend: { inMemory: {} } }),
    template(cpApi, 'KubeadmControlPlaneTemplate', { kubeadmConfigSpec: { format: 'cloud-config' } }),
    template(infra, 'DevMachineTemplate', { backend: { inMemory: {} } }),
    template(bootstrapApi, 'KubeadmConfigTemplate', { format: 'cloud-config' }),
    {
      apiVersion: capi,
      kind: 'ClusterClass',
      metadata: { namespace: ns, name: 'in-memory' },
      spec: {
        infrastructure: { templateRef: ref(infra, 'DevClusterTemplate', 'in-memory') },
        controlPlane: {
          templateRef: ref(cpApi, 'KubeadmControlPlaneTemplate', 'in-memory'),
          machineInfrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'in-memory') },
        },
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              bootstrap: { templateRef: ref(bootstrapApi, 'KubeadmConfigTemplate', 'in-memory') },
              infrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'in-memory') },
            },
          ],
        },
      },
    },
  ];
}

const clusterObject: KubeObject = {
  apiVersion: capi,
  kind: 'Cluster',
  metadata: { namespace: ns, name: key.name },
  spec: {
    clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
    topology: {
      classRef: { name: 'in-memory' },
      version: 'v1.34.0',
      controlPlane: { replicas: 1 },
      workers: { machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }] },
    },
  },
};

async function put(obj: KubeObject): Promise<KubeObject> {
  return applyObject(mgmt.kube, obj, { fieldManager: harnessFieldManager, force: true });
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what} not reached in ${timeoutMs} ms\n${upstream.logs().slice(-15_000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const getCluster = () => findObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key });

/** The v1beta2 condition `type` of `obj`, if any. */
function conditionOf(obj: KubeObject | undefined, type: string): Record<string, string> | undefined {
  const status = (obj as { status?: { conditions?: Record<string, string>[] } } | undefined)?.status;
  return status?.conditions?.find((c) => c['type'] === type);
}

/** The objects the Cluster owns (what upstream's reconcileDelete deletes), `kind/name` → deleting or not. */
async function ownedObjects(): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const [apiVersion, kind] of [
    [capi, 'MachineDeployment'],
    [cpApi, 'KubeadmControlPlane'],
    [infra, 'DevCluster'],
  ] as const) {
    for (const o of (await listObjects(mgmt.kube, { apiVersion, kind, namespace: ns })).items) {
      const owners = (o.metadata as { ownerReferences?: { kind: string; name: string }[] }).ownerReferences ?? [];
      if (!owners.some((r) => r.kind === 'Cluster' && r.name === key.name)) continue;
      out[`${kind}/${o.metadata?.name ?? ''}`] =
        (o.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined;
    }
  }
  return out;
}

/** Preloads the test extension's BeforeClusterDelete answer for Cluster c1. */
async function preloadBeforeClusterDelete(retryAfterSeconds: number): Promise<void> {
  const answer = {
    Status: 'Success',
    Message: retryAfterSeconds > 0 ? 'archiving' : '',
    RetryAfterSeconds: retryAfterSeconds,
  };
  await put({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: ns, name: 'c1-test-ext-test-extension-hookresponses' },
    data: { 'BeforeClusterDelete-preloadedResponse': JSON.stringify(answer) },
  });
}

async function run(): Promise<void> {
  const outcome = await reconcileTopology(deps, key);
  assert.notEqual(outcome.result, 'Error', `${outcome.error ?? ''}\n${ext.logs().slice(-2000)}`);
}

before(async () => {
  const started = await startUpstreamManagementCluster({
    name: 'before-cluster-delete',
    upstream: { managers: ['core'] },
  });
  mgmt = started;
  upstream = started.upstream;
  pass = await mgmt.newClient();
  deps = {
    kube: pass.kube,
    randomSuffix: sequentialSuffix(),
    now: () => new Date(),
    callHook: createLifecycleHookCaller({ kube: pass.kube }),
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

describe("BeforeClusterDelete beside upstream's core manager (handoff gates)", () => {
  test('the policy leaves deletes of cluster-scoped objects alone', async () => {
    // NOTE: a binding with a namespaced paramRef that matched cluster-scoped objects refused every such delete.
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'before-cluster-delete' };
    await put({ apiVersion: role.apiVersion, kind: role.kind, metadata: { name: role.name }, rules: [] } as KubeObject);
    await deleteObject(mgmt.kube, role);
  });

  test('holds the deletion of the Cluster and its objects until the hook allows it, then upstream deletes them', async () => {
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const o of topologyObjects()) await put(o);
    const cc = await reconcileClusterClass(deps, { namespace: ns, name: 'in-memory' });
    assert.equal(cc.result, 'Success', cc.error);
    await put(clusterObject);
    await run(); // BeforeClusterCreate
    await run(); // the topology
    const owned = await eventually('the Cluster owns its MachineDeployment, control plane and DevCluster', async () => {
      const o = await ownedObjects();
      return Object.keys(o).length === 3 ? o : undefined;
    });
    assert.deepEqual(Object.values(owned), [false, false, false]);
    await eventually("upstream's finalizer on the Cluster", async () =>
      (await getCluster())?.metadata?.finalizers?.includes('cluster.cluster.x-k8s.io') ? true : undefined,
    );

    await preloadBeforeClusterDelete(10);
    await deleteObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key });
    await run();
    // NOTE: upstream's core Cluster controller acts on the deletion within milliseconds; watch it for 15 s.
    const watchUntil = Date.now() + 15_000;
    while (Date.now() < watchUntil) {
      const cluster = await getCluster();
      assert.ok(cluster, `the Cluster is gone while BeforeClusterDelete blocks\n${upstream.logs().slice(-8000)}`);
      assert.equal(cluster.metadata?.annotations?.[okToDelete], undefined);
      assert.deepEqual(
        await ownedObjects(),
        owned,
        'no object of the Cluster is deleted while BeforeClusterDelete blocks',
      );
      await new Promise((r) => setTimeout(r, 1000));
    }
    await run();
    assert.equal((await getCluster())?.metadata?.annotations?.[okToDelete], undefined);
    assert.match(upstream.logs(), /is waiting for its BeforeClusterDelete hooks/);
    // What the held Cluster shows. TopologyReconciled is capi-serverless's and reads as upstream's topology controller
    // writes it. Deleting is the core manager's: with its gates off (the handoff) its refused deletes make it
    // InternalError, where upstream with the gates on says WaitingForBeforeDeleteHook / "Waiting for
    // BeforeClusterDelete hook" (docs/differences.md says why capi-serverless does not write it).
    const deleting = await eventually("the core manager's Deleting condition", async () => {
      const c = conditionOf(await getCluster(), 'Deleting');
      return c?.['status'] === 'True' ? c : undefined;
    });
    assert.deepEqual(
      [deleting['reason'], deleting['message']],
      ['InternalError', 'Please check controller logs for errors'],
    );
    const topology = conditionOf(await getCluster(), 'TopologyReconciled');
    assert.deepEqual(
      [topology?.['status'], topology?.['reason'], topology?.['message']],
      ['False', 'Deleting', 'Cluster is deleting. Following hooks are blocking delete: BeforeClusterDelete: archiving'],
    );

    await preloadBeforeClusterDelete(0);
    await run();
    assert.equal((await getCluster())?.metadata?.annotations?.[okToDelete], '');
    await eventually('upstream deletes the Cluster and its objects', async () =>
      (await getCluster()) === undefined && Object.keys(await ownedObjects()).length === 0 ? true : undefined,
    );
  });
});
