// External patches in topology passes, against upstream's own test Runtime Extension (GeneratePatches and
// ValidateTopology for its Dev* ClusterClass) on loopback and a real kube-apiserver: the extension's patches land on
// the created objects, in ClusterClass order with inline patches; an unregistered or unreachable extension fails the
// pass with the patch and handler named on TopologyReconciled, and nothing is created; failurePolicy Ignore forgives
// an unreachable validator.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import {
  applyObject,
  applyStatus,
  findObject,
  getObject,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { getExtensionConfig, reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { reconcileClusterClass, reconcileTopology, type TopologyDeps } from '#shared/topology/index.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import {
  genericCrd,
  harnessFieldManager,
  startManagementCluster,
  type RequestLog,
  type TestCluster,
} from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const capi = 'cluster.x-k8s.io/v1beta2';
const version = 'v1.34.0';

let mgmt: TestCluster;
let ext: TestExtension;
let pass: { kube: KubeClient; log: RequestLog };
let closed: Server;
let closedPort = 0;
let deps: TopologyDeps;

const template = (apiVersion: string, kind: string, name: string, spec: object) => ({
  apiVersion,
  kind,
  metadata: { name },
  spec: { template: { spec } },
});
const templates = [
  template(infra, 'DevClusterTemplate', 'dev-cluster', { backend: { docker: { loadBalancer: {} } } }),
  template(cpApi, 'KubeadmControlPlaneTemplate', 'dev-control-plane', {
    kubeadmConfigSpec: { clusterConfiguration: { apiServer: {} } },
  }),
  template(infra, 'DevMachineTemplate', 'dev-machine', { backend: { docker: {} } }),
  template(bootstrapApi, 'KubeadmConfigTemplate', 'dev-bootstrap', { joinConfiguration: { nodeRegistration: {} } }),
];
const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

/** A ClusterClass of Dev* templates: inline patch, external patch, inline patch, in that order. */
function clusterClass(namespace: string, external: Record<string, unknown>): KubeObject {
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
      patches: [
        {
          name: 'lb-image-tag',
          definitions: [
            {
              selector: {
                apiVersion: infra,
                kind: 'DevClusterTemplate',
                matchResources: { infrastructureCluster: true },
              },
              jsonPatches: [
                { op: 'add', path: '/spec/template/spec/backend/docker/loadBalancer/imageTag', value: 'from-inline' },
              ],
            },
          ],
        },
        { name: 'test-patch', external },
        {
          name: 'worker-image',
          definitions: [
            {
              selector: {
                apiVersion: infra,
                kind: 'DevMachineTemplate',
                matchResources: { machineDeploymentClass: { names: ['default-worker'] } },
              },
              jsonPatches: [
                { op: 'replace', path: '/spec/template/spec/backend/docker/customImage', value: 'worker:from-inline' },
              ],
            },
          ],
        },
      ],
    },
  };
}

function cluster(namespace: string, name: string): KubeObject {
  return {
    apiVersion: capi,
    kind: 'Cluster',
    metadata: { namespace, name },
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

/** A namespace with the Dev* templates, the ClusterClass (reconciled) and the Cluster. */
async function setUp(namespace: string, external: Record<string, unknown>): Promise<ObjectKey> {
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
  await put(clusterClass(namespace, external));
  const cc = await reconcileClusterClass(deps, { namespace, name: 'dev' });
  assert.equal(cc.result, 'Success', cc.error);
  await put(cluster(namespace, 'c1'));
  return { namespace, name: 'c1' };
}

async function mustGet(apiVersion: string, kind: string, namespace: string, name: string): Promise<Unstructured> {
  return (await getObject(mgmt.kube, { apiVersion, kind, namespace, name })) as Unstructured;
}

async function topologyCondition(key: ObjectKey): Promise<Record<string, string> | undefined> {
  const c = await mustGet(capi, 'Cluster', key.namespace, key.name);
  const conditions = (c['status'] as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return conditions.find((cond) => cond['type'] === 'TopologyReconciled');
}

const dig = (obj: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], obj);

/** An ExtensionConfig named `name` with the test extension's discovered handlers, served at `url`. */
async function putUnreachableExtension(name: string, url: string, failurePolicy: 'Fail' | 'Ignore'): Promise<void> {
  const discovered = await getExtensionConfig(mgmt.kube, 'test-ext');
  await put({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name },
    spec: { clientConfig: { url, caBundle: ext.caBundle } },
  });
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name },
      status: {
        // NOTE: only the topology handlers: a lifecycle handler here would be called for every Cluster.
        handlers: (discovered.status?.handlers ?? [])
          .filter((h) => ['GeneratePatches', 'ValidateTopology'].includes(h.requestHook.hook))
          .map((h) => ({
            ...h,
            name: h.name.replace(/\.test-ext$/, `.${name}`),
            failurePolicy,
            timeoutSeconds: 2,
          })),
        conditions: discovered.status?.conditions,
      },
    } as KubeObject,
    { fieldManager: harnessFieldManager, force: true },
  );
}

before(async () => {
  const crds = computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  );
  mgmt = await startManagementCluster({
    name: 'external-patches',
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
  deps = { kube: pass.kube, randomSuffix: sequentialSuffix(), now: () => new Date('2026-01-01T00:00:00Z') };
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
  // A port nothing listens on: connections are refused.
  closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = closed.address();
  closedPort = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

after(async () => {
  pass?.kube.close();
  await ext?.stop();
  await mgmt?.stop();
});

describe("external patches against upstream's test extension", () => {
  test('the extension patches land on the created objects, between the inline patches in ClusterClass order', async () => {
    const key = await setUp('patched', {
      generatePatchesExtension: 'generate-patches.test-ext',
      validateTopologyExtension: 'validate-topology.test-ext',
    });
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Success', `${outcome.error ?? ''}\n${ext.logs().slice(-3000)}`);
    const c = await mustGet(capi, 'Cluster', key.namespace, key.name);
    const infraRef = dig(c, 'spec', 'infrastructureRef', 'name') as string;
    const cpRef = dig(c, 'spec', 'controlPlaneRef', 'name') as string;

    const devCluster = await mustGet(infra, 'DevCluster', key.namespace, infraRef);
    assert.equal(
      dig(devCluster, 'spec', 'backend', 'docker', 'loadBalancer', 'imageTag'),
      'from-inline',
      'the first inline patch is in the request the extension saw and survives its answer',
    );

    const kcp = await mustGet(cpApi, 'KubeadmControlPlane', key.namespace, cpRef);
    const apiServerArgs = dig(kcp, 'spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'apiServer', 'extraArgs');
    assert.deepEqual(apiServerArgs, [{ name: 'v', value: '2' }], 'the extension sets the API server verbosity');
    const kubeletArgs = dig(
      kcp,
      'spec',
      'kubeadmConfigSpec',
      'initConfiguration',
      'nodeRegistration',
      'kubeletExtraArgs',
    );
    assert.ok(
      JSON.stringify(kubeletArgs).includes(`kubernetesVersion=${version}`),
      `node-labels from builtin.controlPlane.version: ${JSON.stringify(kubeletArgs)}`,
    );
    assert.equal(dig(kcp, 'spec', 'version'), version, 'the topology keeps the version it controls');

    const cpMachineName = dig(kcp, 'spec', 'machineTemplate', 'spec', 'infrastructureRef', 'name') as string;
    const cpMachine = await mustGet(infra, 'DevMachineTemplate', key.namespace, cpMachineName);
    const cpImage = dig(cpMachine, 'spec', 'template', 'spec', 'backend', 'docker', 'customImage');
    assert.match(String(cpImage), /^kindest\/node:v1\.34\./, 'the extension picks the kind image of the CP version');

    const mds = (
      await listObjects(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', namespace: key.namespace })
    ).items as Unstructured[];
    assert.equal(mds.length, 1);
    const mdMachineName = dig(mds[0], 'spec', 'template', 'spec', 'infrastructureRef', 'name') as string;
    const mdMachine = await mustGet(infra, 'DevMachineTemplate', key.namespace, mdMachineName);
    assert.equal(
      dig(mdMachine, 'spec', 'template', 'spec', 'backend', 'docker', 'customImage'),
      'worker:from-inline',
      'the inline patch after the external one overrides what the extension wrote',
    );

    const again = await reconcileTopology(deps, key);
    assert.equal(again.result, 'Success', again.error);
    assert.deepEqual(
      again.changed.filter((c) => !c.includes('TopologyReconciled')),
      [],
      'a second pass with the same answers changes nothing',
    );
  });

  test('an unregistered GeneratePatches handler fails the pass, names patch and handler, and creates nothing', async () => {
    const key = await setUp('unregistered', { generatePatchesExtension: 'generate-patches.missing' });
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    const condition = await topologyCondition(key);
    assert.equal(condition?.['status'], 'False');
    assert.equal(condition?.['reason'], 'ReconcileFailed');
    assert.match(
      condition?.['message'] ?? '',
      /failed to generate patches for patch "test-patch": .*"generate-patches\.missing".*has not been registered/,
    );
    const c = await mustGet(capi, 'Cluster', key.namespace, key.name);
    assert.equal(dig(c, 'spec', 'infrastructureRef'), undefined, 'nothing was created');
    const kcps = await listObjects(mgmt.kube, {
      apiVersion: cpApi,
      kind: 'KubeadmControlPlane',
      namespace: key.namespace,
    });
    assert.equal(kcps.items.length, 0);
  });

  test('an unreachable ValidateTopology extension fails the pass with failurePolicy Fail', async () => {
    await putUnreachableExtension('down-fail', `https://127.0.0.1:${closedPort}`, 'Fail');
    const key = await setUp('validate-fail', {
      generatePatchesExtension: 'generate-patches.test-ext',
      validateTopologyExtension: 'validate-topology.down-fail',
    });
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    const condition = await topologyCondition(key);
    assert.equal(condition?.['reason'], 'ReconcileFailed');
    assert.match(
      condition?.['message'] ?? '',
      /validation of patch "test-patch" failed: failed to call extension handler "validate-topology\.down-fail" \(ValidateTopology\)/,
    );
    const kcps = await listObjects(mgmt.kube, {
      apiVersion: cpApi,
      kind: 'KubeadmControlPlane',
      namespace: key.namespace,
    });
    assert.equal(kcps.items.length, 0, 'nothing was applied');
  });

  test('an unreachable ValidateTopology extension with failurePolicy Ignore lets the pass through', async () => {
    await putUnreachableExtension('down-ignore', `https://127.0.0.1:${closedPort}`, 'Ignore');
    const key = await setUp('validate-ignore', {
      generatePatchesExtension: 'generate-patches.test-ext',
      validateTopologyExtension: 'validate-topology.down-ignore',
    });
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Success', outcome.error);
    const condition = await topologyCondition(key);
    assert.equal(condition?.['status'], 'True');
    const c = await mustGet(capi, 'Cluster', key.namespace, key.name);
    assert.ok(
      await findObject(mgmt.kube, {
        apiVersion: cpApi,
        kind: 'KubeadmControlPlane',
        namespace: key.namespace,
        name: dig(c, 'spec', 'controlPlaneRef', 'name') as string,
      }),
    );
  });

  test('an unreachable GeneratePatches extension fails the pass with failurePolicy Fail', async () => {
    await putUnreachableExtension('down-fail', `https://127.0.0.1:${closedPort}`, 'Fail');
    const key = await setUp('generate-fail', { generatePatchesExtension: 'generate-patches.down-fail' });
    const outcome = await reconcileTopology(deps, key);
    assert.equal(outcome.result, 'Error');
    const condition = await topologyCondition(key);
    assert.match(
      condition?.['message'] ?? '',
      /failed to generate patches for patch "test-patch": failed to call extension handler "generate-patches\.down-fail" \(GeneratePatches\): http call failed/,
    );
  });

  test('BeforeClusterCreate blocks creation with retryAfterSeconds as the next pass, then releases it', async () => {
    const namespace = 'hooked';
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const responses = (retryAfterSeconds: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name: 'c1-test-ext-test-extension-hookresponses' },
      data: {
        'BeforeClusterCreate-preloadedResponse': JSON.stringify({
          Status: 'Success',
          Message: 'waiting for the network',
          RetryAfterSeconds: retryAfterSeconds,
        }),
      },
    });
    await put(responses(7));
    const key = await setUp(namespace, { generatePatchesExtension: 'generate-patches.test-ext' });

    const blocked = await reconcileTopology(deps, key);
    assert.deepEqual([blocked.result, blocked.requeueAfterMs], ['Requeue', 7000], blocked.error);
    const condition = await topologyCondition(key);
    assert.deepEqual(
      [condition?.['status'], condition?.['reason'], condition?.['message']],
      [
        'False',
        'ClusterCreating',
        'Following hooks are blocking Cluster topology creation: BeforeClusterCreate: waiting for the network',
      ],
    );
    const c = await mustGet(capi, 'Cluster', key.namespace, key.name);
    assert.equal(dig(c, 'spec', 'infrastructureRef'), undefined, 'nothing is created while the hook blocks');
    const kcps = await listObjects(mgmt.kube, { apiVersion: cpApi, kind: 'KubeadmControlPlane', namespace });
    assert.equal(kcps.items.length, 0);

    await put(responses(0));
    const released = await reconcileTopology(deps, key);
    assert.equal(released.result, 'Success', released.error);
    const created = await mustGet(capi, 'Cluster', key.namespace, key.name);
    assert.ok(dig(created, 'spec', 'controlPlaneRef', 'name'), 'the topology is created once the hook releases');
    assert.equal((await topologyCondition(key))?.['reason'], 'ReconcileSucceeded');
  });

  test('DiscoverVariables: the variables the extension defines land in status.variables from the patch, and Clusters use them', async () => {
    const namespace = 'discovered';
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
    await put(
      clusterClass(namespace, {
        generatePatchesExtension: 'generate-patches.test-ext',
        discoverVariablesExtension: 'discover-variables.test-ext',
      }),
    );
    const cc = await reconcileClusterClass(deps, { namespace, name: 'dev' });
    assert.equal(cc.result, 'Success', cc.error);
    const status = dig(await mustGet(capi, 'ClusterClass', namespace, 'dev'), 'status') as {
      variables?: { name: string; definitionsConflict?: boolean; definitions: { from: string; required: boolean }[] }[];
      conditions?: Record<string, string>[];
      observedGeneration?: number;
    };
    const surge = status.variables?.find((v) => v.name === 'kubeadmControlPlaneMaxSurge');
    assert.deepEqual(
      surge && { conflict: surge.definitionsConflict, from: surge.definitions.map((d) => [d.from, d.required]) },
      { conflict: false, from: [['test-patch', false]] },
    );
    assert.ok(
      status.variables?.some((v) => v.name === 'files'),
      'every variable the extension defines is listed',
    );
    assert.equal(status.conditions?.find((c) => c['type'] === 'VariablesReady')?.['status'], 'True');

    const c = cluster(namespace, 'c1') as KubeObject & { spec: { topology: Record<string, unknown> } };
    c.spec.topology['variables'] = [
      { name: 'kubeadmControlPlaneMaxSurge', value: '1' },
      { name: 'imageRepository', value: 'registry.example.com' },
    ];
    await put(c);
    const outcome = await reconcileTopology(deps, { namespace, name: 'c1' });
    assert.equal(outcome.result, 'Success', outcome.error);
    const created = await mustGet(capi, 'Cluster', namespace, 'c1');
    const kcp = await mustGet(
      cpApi,
      'KubeadmControlPlane',
      namespace,
      dig(created, 'spec', 'controlPlaneRef', 'name') as string,
    );
    assert.equal(
      dig(kcp, 'spec', 'rollout', 'strategy', 'rollingUpdate', 'maxSurge'),
      1,
      'the discovered variable reaches the extension as a variable of its patch',
    );
  });

  test('DiscoverVariables: a second pass over the unchanged class writes nothing, its status included', async () => {
    // NOTE: upstream's patch helper writes the ClusterClass's status only when it differs. A needless rewrite is a
    // MODIFIED ClusterClass event, so one more class pass (seen in ClusterUpgradeWithRuntimeSDKSpec, beside the
    // Cluster's first pass that must reach BeforeClusterCreate within a second).
    const namespace = 'discovered-twice';
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
    await put(
      clusterClass(namespace, {
        generatePatchesExtension: 'generate-patches.test-ext',
        discoverVariablesExtension: 'discover-variables.test-ext',
      }),
    );
    const key = { namespace, name: 'dev' };
    const first = await reconcileClusterClass(deps, key);
    assert.equal(first.result, 'Success', first.error);
    const written = await mustGet(capi, 'ClusterClass', namespace, 'dev');
    pass.log.reset();
    for (let i = 0; i < 2; i++) {
      const again = await reconcileClusterClass(deps, key);
      assert.deepEqual(again, { result: 'Success', changed: [] });
    }
    assert.deepEqual(
      pass.log.mutating().map((r) => `${r.method} ${r.path}`),
      [],
      'no write to the class or its templates',
    );
    const now = await mustGet(capi, 'ClusterClass', namespace, 'dev');
    assert.equal(now.metadata.resourceVersion, written.metadata.resourceVersion);
  });

  test('DiscoverVariables: a variable the class also defines inline with another schema is a conflict', async () => {
    const namespace = 'conflicting';
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
    const cc = clusterClass(namespace, {
      generatePatchesExtension: 'generate-patches.test-ext',
      discoverVariablesExtension: 'discover-variables.test-ext',
    }) as KubeObject & { spec: Record<string, unknown> };
    cc.spec['variables'] = [
      { name: 'kubeadmControlPlaneMaxSurge', required: false, schema: { openAPIV3Schema: { type: 'integer' } } },
    ];
    await put(cc);
    const outcome = await reconcileClusterClass(deps, { namespace, name: 'dev' });
    assert.equal(outcome.result, 'Error');
    const status = dig(await mustGet(capi, 'ClusterClass', namespace, 'dev'), 'status') as {
      variables?: { name: string; definitionsConflict?: boolean; definitions: { from: string }[] }[];
      conditions?: Record<string, string>[];
    };
    const surge = status.variables?.find((v) => v.name === 'kubeadmControlPlaneMaxSurge');
    assert.deepEqual(surge && { conflict: surge.definitionsConflict, from: surge.definitions.map((d) => d.from) }, {
      conflict: true,
      from: ['inline', 'test-patch'],
    });
    const ready = status.conditions?.find((c) => c['type'] === 'VariablesReady');
    assert.deepEqual(
      [ready?.['status'], ready?.['reason'], ready?.['message']],
      [
        'False',
        'VariableDiscoveryFailed',
        'VariableDiscovery failed: the following variables have conflicting schemas: kubeadmControlPlaneMaxSurge',
      ],
    );
  });

  test('DiscoverVariables: an unregistered extension fails the class pass and names the patch', async () => {
    const namespace = 'undiscovered';
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const t of templates) await put({ ...t, metadata: { ...t.metadata, namespace } });
    await put(
      clusterClass(namespace, {
        generatePatchesExtension: 'generate-patches.test-ext',
        discoverVariablesExtension: 'discover-variables.missing',
      }),
    );
    const outcome = await reconcileClusterClass(deps, { namespace, name: 'dev' });
    assert.equal(outcome.result, 'Error');
    const status = dig(await mustGet(capi, 'ClusterClass', namespace, 'dev'), 'status') as {
      conditions?: Record<string, string>[];
    };
    assert.match(
      status.conditions?.find((c) => c['type'] === 'VariablesReady')?.['message'] ?? '',
      /^VariableDiscovery failed: failed to call DiscoverVariables for patch test-patch: .*"discover-variables\.missing".*has not been registered/,
    );
  });
});
