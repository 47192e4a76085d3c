// `capi-serverless plan` with external patches, against upstream's own test Runtime Extension on loopback and a
// real kube-apiserver: for the same ClusterClass, templates and Cluster, what plan prints is what the topology pass
// applies (the extension's GeneratePatches, ValidateTopology and DiscoverVariables called by both), with the
// ExtensionConfig given as an input file (plan discovers it) or read from the cluster (--kubeconfig); an unreachable
// extension fails the plan naming the extension and handler and prints no objects; failurePolicy Ignore is a warning.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { readManifests } from '#shared/cli/plan-inputs.ts';
import { runPlan } from '#shared/cli/plan.ts';
import {
  applyObject,
  applyStatus,
  getObject,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { getExtensionConfig, reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { reconcileClusterClass, reconcileTopology } from '#shared/topology/index.ts';
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
const runtimeApi = 'runtime.cluster.x-k8s.io/v1beta2';
const version = 'v1.34.0';

let mgmt: TestCluster;
let pass: { kube: KubeClient };
let ext: TestExtension;
let closedPort = 0;
const dir = mkdtempSync(join(tmpdir(), 'plan-external-patches-'));

const template = (apiVersion: string, kind: string, name: string, spec: object): KubeObject => ({
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

/** A ClusterClass of Dev* templates whose one patch is external. */
function clusterClass(external: Record<string, unknown>): KubeObject {
  return {
    apiVersion: capi,
    kind: 'ClusterClass',
    metadata: { name: 'dev' },
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
      patches: [{ name: 'test-patch', external }],
    },
  };
}

function cluster(variables: { name: string; value: unknown }[]): KubeObject {
  return {
    apiVersion: capi,
    kind: 'Cluster',
    metadata: { name: 'c1' },
    spec: {
      topology: {
        classRef: { name: 'dev' },
        version,
        controlPlane: { replicas: 1 },
        workers: { machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }] },
        ...(variables.length > 0 ? { variables } : {}),
      },
    },
  };
}

/** The test extension's patches, validation and variables, as upstream's runtime SDK e2e ClusterClass uses them. */
const fullExternal = {
  generatePatchesExtension: 'generate-patches.test-ext',
  validateTopologyExtension: 'validate-topology.test-ext',
  discoverVariablesExtension: 'discover-variables.test-ext',
};
const fullVariables = [
  { name: 'imageRepository', value: 'kindest' },
  { name: 'kubeadmControlPlaneMaxSurge', value: '1' },
];

const withNamespace = (obj: KubeObject, namespace: string): KubeObject => ({
  ...obj,
  metadata: { ...obj.metadata, namespace },
});

/** Writes the inputs of one case as files (namespace given in each object) and returns their directory. */
function writeInputs(name: string, objects: readonly KubeObject[]): string {
  const caseDir = join(dir, name);
  mkdirSync(caseDir, { recursive: true });
  writeFileSync(join(caseDir, 'objects.yaml'), objects.map((o) => stringify(o)).join('---\n'));
  return caseDir;
}

async function plan(args: string[]): Promise<{ code: number; stdout: string; stderr: string; objects: KubeObject[] }> {
  let stdout = '';
  let stderr = '';
  const code = await runPlan(args, {
    stdout: { write: (s) => (stdout += s) },
    stderr: { write: (s) => (stderr += s) },
  });
  const objects = parseAllDocuments(stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
  return { code, stdout, stderr, objects };
}

async function put(obj: KubeObject): Promise<KubeObject> {
  return applyObject(mgmt.kube, obj, { fieldManager: harnessFieldManager, force: true });
}

/** Applies the inputs to the cluster and runs the ClusterClass pass and one topology pass over them. */
async function runPass(
  namespace: string,
  objects: readonly KubeObject[],
  names = { clusterClass: 'dev', cluster: 'c1' },
): Promise<void> {
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const o of objects) await put(o);
  const deps = { kube: pass.kube, randomSuffix: sequentialSuffix(), now: () => new Date('2026-01-01T00:00:00Z') };
  const cc = await reconcileClusterClass(deps, { namespace, name: names.clusterClass });
  assert.equal(cc.result, 'Success', cc.error);
  const outcome = await reconcileTopology(deps, { namespace, name: names.cluster });
  assert.equal(outcome.result, 'Success', `${outcome.error ?? ''}\n${ext.logs().slice(-3000)}`);
}

/**
 * A stable name for a generated object: its kind and its place in the topology (the MachineDeployment topology it
 * belongs to, or the control plane / cluster), since the pass and plan draw different random suffixes.
 */
function roleOf(obj: KubeObject): string {
  const md = obj.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'];
  return `${obj.kind}(${md ?? 'cluster'})`;
}

/** The object with every generated name replaced by its role, so plan's and the pass's objects compare. */
function normalize(obj: unknown, names: ReadonlyMap<string, string>): unknown {
  if (typeof obj === 'string') return names.get(obj) ?? obj;
  if (Array.isArray(obj)) return obj.map((v) => normalize(v, names));
  if (obj && typeof obj === 'object')
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, normalize(v, names)]));
  return obj;
}

/** Paths where `want` sets a value that `got` lacks or has different (`want` ⊆ `got`). */
function computeMissing(want: unknown, got: unknown, path = ''): string[] {
  if (want && typeof want === 'object' && !Array.isArray(want)) {
    if (!got || typeof got !== 'object' || Array.isArray(got)) return [`${path}: ${JSON.stringify(got)}`];
    return Object.entries(want).flatMap(([k, v]) =>
      computeMissing(v, (got as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return JSON.stringify(want) === JSON.stringify(got)
    ? []
    : [`${path}: plan ${JSON.stringify(want)}, applied ${JSON.stringify(got)}`];
}

/** The objects the pass created for the Cluster `clusterName` in `namespace`, by role. */
async function getApplied(
  namespace: string,
  clusterName: string,
  planned: readonly KubeObject[],
): Promise<Map<string, KubeObject>> {
  const c1 = await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace, name: clusterName });
  const found = new Map<string, KubeObject>();
  const visit = async (apiVersion: string, kind: string, name: string) => {
    const obj = await getObject(mgmt.kube, { apiVersion, kind, namespace, name });
    found.set(roleOf(obj), obj);
    return obj;
  };
  const spec = c1['spec'] as Record<string, { apiGroup: string; kind: string; name: string }>;
  await visit(infra, spec['infrastructureRef']!.kind, spec['infrastructureRef']!.name);
  const kcp = await visit(cpApi, spec['controlPlaneRef']!.kind, spec['controlPlaneRef']!.name);
  const cpMachine = (kcp['spec'] as { machineTemplate: { spec: { infrastructureRef: { name: string } } } })
    .machineTemplate.spec.infrastructureRef;
  await visit(infra, 'DevMachineTemplate', cpMachine.name);
  for (const p of planned.filter((o) => o.kind === 'MachineDeployment')) {
    const mdName = p.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'];
    const list = await listObjects(mgmt.kube, {
      apiVersion: capi,
      kind: 'MachineDeployment',
      namespace,
      labelSelector: `topology.cluster.x-k8s.io/deployment-name=${mdName ?? ''}`,
    });
    const md = list.items[0];
    assert.ok(md, `MachineDeployment ${mdName ?? ''} applied`);
    found.set(roleOf(md), md);
    const tpl = md['spec'] as {
      template: { spec: { bootstrap: { configRef: { name: string } }; infrastructureRef: { name: string } } };
    };
    await visit(bootstrapApi, 'KubeadmConfigTemplate', tpl.template.spec.bootstrap.configRef.name);
    await visit(infra, 'DevMachineTemplate', tpl.template.spec.infrastructureRef.name);
  }
  return found;
}

/** Asserts that every object plan prints (but the Cluster) is what the pass applied: same spec, labels, annotations. */
async function assertPlanEqualsPass(
  namespace: string,
  planned: readonly KubeObject[],
  clusterName = 'c1',
): Promise<void> {
  const applied = await getApplied(namespace, clusterName, planned);
  const plannedObjects = planned.filter((o) => o.kind !== 'Cluster');
  assert.deepEqual(
    plannedObjects.map(roleOf).sort(),
    [...applied.keys()].sort(),
    'plan prints the objects the pass created',
  );
  const names = new Map<string, string>();
  for (const o of [...plannedObjects, ...applied.values()]) names.set(o.metadata.name ?? '', roleOf(o));
  for (const p of plannedObjects) {
    const got = applied.get(roleOf(p))!;
    const pick = (o: KubeObject) =>
      normalize({ labels: o.metadata.labels ?? {}, annotations: o.metadata.annotations ?? {}, spec: o['spec'] }, names);
    const want = pick(p) as { spec: unknown; labels: unknown; annotations: unknown };
    const have = pick(got) as typeof want;
    // NOTE: the applied object carries what the API server and other writers added (defaults, the
    // template-clone annotations); every field plan prints must be there with the same value.
    assert.deepEqual(computeMissing(want, have), [], `${roleOf(p)}: plan differs from the pass's object`);
    if (p.kind !== 'MachineDeployment')
      assert.deepEqual(want.spec, have.spec, `${roleOf(p)}: the same spec as the pass applied`);
  }
}

before(async () => {
  const crds = computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  );
  mgmt = await startManagementCluster({
    name: 'plan-external',
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
  ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
  await put({
    apiVersion: runtimeApi,
    kind: 'ExtensionConfig',
    metadata: { name: 'test-ext' },
    spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle }, settings: { extensionConfigName: 'test-ext' } },
  });
  const discovered = await reconcileExtensionConfig(
    { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
    'test-ext',
  );
  assert.equal(discovered.discovered, true, discovered.error);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = closed.address();
  closedPort = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

after(async () => {
  pass?.kube.close();
  await ext?.stop();
  await mgmt?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The ExtensionConfig as a user writes it into an input file. */
const extensionConfigFile = (url: string, name = 'test-ext'): KubeObject => ({
  apiVersion: runtimeApi,
  kind: 'ExtensionConfig',
  metadata: { name },
  spec: { clientConfig: { url, caBundle: ext.caBundle }, settings: { extensionConfigName: name } },
});

describe("plan with external patches against upstream's test extension", () => {
  test('an ExtensionConfig in the input files: plan prints what the topology pass applies', async () => {
    const namespace = 'from-file';
    const objects = [...templates, clusterClass(fullExternal), cluster(fullVariables)].map((o) =>
      withNamespace(o, namespace),
    );
    await runPass(namespace, objects);
    const out = await plan(['-f', writeInputs(namespace, [...objects, extensionConfigFile(ext.url)])]);
    assert.equal(out.code, 0, out.stderr);
    assert.doesNotMatch(out.stderr, /warning/, 'no warning: every extension answered');
    const kcp = out.objects.find((o) => o.kind === 'KubeadmControlPlane');
    const kcpSpec = kcp?.['spec'] as {
      kubeadmConfigSpec: { clusterConfiguration: { apiServer: { extraArgs: unknown } } };
      rollout?: { strategy?: { rollingUpdate?: { maxSurge?: unknown } } };
    };
    assert.deepEqual(
      kcpSpec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs,
      [{ name: 'v', value: '2' }],
      'the extension patched the control plane',
    );
    assert.equal(
      kcpSpec.rollout?.strategy?.rollingUpdate?.maxSurge,
      1,
      'a variable DiscoverVariables defined reached the extension',
    );
    await assertPlanEqualsPass(namespace, out.objects);
  });

  test('--kubeconfig: the ExtensionConfigs of the cluster, as discovered there, give the same plan', async () => {
    const namespace = 'from-cluster';
    const objects = [...templates, clusterClass(fullExternal), cluster(fullVariables)].map((o) =>
      withNamespace(o, namespace),
    );
    await runPass(namespace, objects);
    const out = await plan(['-f', writeInputs(namespace, objects), '--kubeconfig', mgmt.controlPlane.kubeconfigPath]);
    assert.equal(out.code, 0, out.stderr);
    await assertPlanEqualsPass(namespace, out.objects);
  });

  test('without any ExtensionConfig, plan says the class needs one and prints nothing', async () => {
    const objects = [...templates, clusterClass(fullExternal), cluster(fullVariables)];
    const out = await plan(['-f', writeInputs('none', objects)]);
    assert.equal(out.code, 1);
    assert.equal(out.stdout, '');
    assert.match(
      out.stderr,
      /failed to call extension handler "discover-variables\.test-ext" \(DiscoverVariables\): failed to read ExtensionConfig test-ext: ExtensionConfig test-ext is not in the input files, and no cluster was read \(give it with -f, or --kubeconfig\)/,
    );
  });

  test('an unreachable extension in the input files fails the plan naming extension and handler, prints nothing', async () => {
    const objects = [...templates, clusterClass(fullExternal), cluster(fullVariables)];
    const out = await plan([
      '-f',
      writeInputs('unreachable', [...objects, extensionConfigFile(`https://127.0.0.1:${closedPort}`)]),
    ]);
    assert.equal(out.code, 1);
    assert.equal(out.stdout, '', 'no desired state is printed');
    assert.match(
      out.stderr,
      /error: .*ClusterClass default\/dev: VariableDiscovery failed: failed to call DiscoverVariables for patch test-patch: failed to call extension handler "discover-variables\.test-ext" \(DiscoverVariables\): failed to read ExtensionConfig test-ext: .*ExtensionConfig test-ext could not be discovered: failed to discover extension "test-ext": http call failed: .*ECONNREFUSED/,
    );
  });

  /** An ExtensionConfig in the cluster with the test extension's GeneratePatches handler, served where nothing listens. */
  async function putDownExtension(name: string, failurePolicy: 'Fail' | 'Ignore'): Promise<void> {
    const discovered = await getExtensionConfig(mgmt.kube, 'test-ext');
    await put({
      apiVersion: runtimeApi,
      kind: 'ExtensionConfig',
      metadata: { name },
      spec: { clientConfig: { url: `https://127.0.0.1:${closedPort}`, caBundle: ext.caBundle } },
    });
    await applyStatus(
      mgmt.kube,
      {
        apiVersion: runtimeApi,
        kind: 'ExtensionConfig',
        metadata: { name },
        status: {
          handlers: (discovered.status?.handlers ?? [])
            .filter((h) => h.requestHook.hook === 'GeneratePatches')
            .map((h) => ({ ...h, name: `generate-patches.${name}`, failurePolicy, timeoutSeconds: 2 })),
          conditions: discovered.status?.conditions,
        },
      },
      { fieldManager: harnessFieldManager, force: true },
    );
  }

  test('an extension of the cluster that is down: failurePolicy Fail fails the plan naming patch, handler and hook', async () => {
    await putDownExtension('down-fail', 'Fail');
    const objects = [
      ...templates,
      clusterClass({ generatePatchesExtension: 'generate-patches.down-fail' }),
      cluster([]),
    ];
    const out = await plan(['-f', writeInputs('down-fail', objects), '--kubeconfig', mgmt.controlPlane.kubeconfigPath]);
    assert.equal(out.code, 1);
    assert.equal(out.stdout, '');
    assert.match(
      out.stderr,
      /error: .*Cluster default\/c1: failed to generate patches for patch "test-patch": failed to call extension handler "generate-patches\.down-fail" \(GeneratePatches\): http call failed: .*ECONNREFUSED/,
    );
  });

  test('failurePolicy Ignore: plan prints the pass without that answer, and warns naming the handler', async () => {
    await putDownExtension('down-ignore', 'Ignore');
    const objects = [
      ...templates,
      clusterClass({ generatePatchesExtension: 'generate-patches.down-ignore' }),
      cluster([]),
    ];
    const out = await plan([
      '-f',
      writeInputs('down-ignore', objects),
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stderr,
      /warning: failed to call extension handler "generate-patches\.down-ignore" \(GeneratePatches\): http call failed: .*\(failurePolicy Ignore: planned as the pass would go on, without this answer\)/,
    );
    const kcp = out.objects.find((o) => o.kind === 'KubeadmControlPlane');
    assert.deepEqual(
      (kcp?.['spec'] as { kubeadmConfigSpec: unknown }).kubeadmConfigSpec,
      { clusterConfiguration: { apiServer: {} } },
      'the template as the class gives it: no extension patch',
    );
  });

  test('examples/runtime-sdk: plan prints what the pass applies with the extension registered as test-extension', async () => {
    const example = 'examples/runtime-sdk';
    const offline = await plan(['-f', example]);
    assert.equal(offline.code, 1, 'its ExtensionConfig (a Service) needs the cluster');
    assert.match(
      offline.stderr,
      /"discover-variables\.test-extension" \(DiscoverVariables\).*ExtensionConfig test-extension could not be discovered: .*give plan --kubeconfig/,
    );
    // The same extension served on loopback: the ExtensionConfig as a user writes it for a URL.
    const extensionConfig = extensionConfigFile(ext.url, 'test-extension');
    await put(extensionConfig);
    const discovered = await reconcileExtensionConfig(
      { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
      'test-extension',
    );
    assert.equal(discovered.discovered, true, discovered.error);
    const inputs = readManifests([`${example}/clusterclass.yaml`, `${example}/cluster.yaml`]).map((i) => i.object);
    await runPass('default', inputs as KubeObject[], { clusterClass: 'runtime-sdk', cluster: 'runtime-sdk-1' });
    const out = await plan([
      '-f',
      `${example}/clusterclass.yaml`,
      '-f',
      `${example}/cluster.yaml`,
      '-f',
      writeInputs('example', [extensionConfig]),
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(
      out.stderr.split('\n').filter((l) => l !== ''),
      [
        'updated   Cluster default/runtime-sdk-1',
        'created   DevCluster default/runtime-sdk-1-bbbbb',
        'created   DevMachineTemplate default/runtime-sdk-1-bbbbc',
        'created   KubeadmControlPlane default/runtime-sdk-1-bbbbd',
        'created   KubeadmConfigTemplate default/runtime-sdk-1-md-0-bbbbf',
        'created   DevMachineTemplate default/runtime-sdk-1-md-0-bbbbg',
        'created   MachineDeployment default/runtime-sdk-1-md-0-bbbbh',
      ],
    );
    await assertPlanEqualsPass('default', out.objects, 'runtime-sdk-1');
  });

  test(
    "examples/runtime-sdk unchanged, the extension behind its Service: discovery and plan --kubeconfig go through the API server's service proxy",
    {
      skip: inPrivateNetworkNamespace()
        ? false
        : 'needs the private network namespace of test/run.mjs: it adds a pod address to loopback',
    },
    async () => {
      const example = 'examples/runtime-sdk';
      await serveBehindExampleService();
      // The example's ExtensionConfig as it is (a Service, the CA injected from the cert-manager Secret).
      const [extensionConfig] = readManifests([`${example}/extension-config.yaml`]).map((i) => i.object as KubeObject);
      await put(extensionConfig!);
      const discovered = await reconcileExtensionConfig(
        { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
        'test-extension',
      );
      assert.equal(discovered.discovered, true, `${discovered.error ?? ''}\n${ext.logs().slice(-2000)}`);
      assert.ok(discovered.handlers.includes('generate-patches.test-extension'), discovered.handlers.join(', '));
      const stored = await getExtensionConfig(mgmt.kube, 'test-extension');
      assert.equal(stored.spec.clientConfig.url, undefined, 'the Service, not a URL');
      assert.equal(stored.spec.clientConfig.caBundle, ext.caBundle, 'the CA injected from the Secret');

      const inputs = readManifests([`${example}/clusterclass.yaml`, `${example}/cluster.yaml`]).map((i) => i.object);
      // NOTE: the example's namespaceSelector admits `default` only; the pass now calls the extension through the
      // Service too.
      const namespace = 'default';
      const objects = inputs as KubeObject[];
      await runPass(namespace, objects, { clusterClass: 'runtime-sdk', cluster: 'runtime-sdk-1' });
      // NOTE: the example's ExtensionConfig is given again as a file, so plan discovers it itself (input files win),
      // through the same proxy.
      const out = await plan([
        '-f',
        writeInputs(namespace, [...objects, extensionConfig!]),
        '--kubeconfig',
        mgmt.controlPlane.kubeconfigPath,
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stderr, /warning/, 'every extension answered');
      const kcp = out.objects.find((o) => o.kind === 'KubeadmControlPlane');
      assert.ok(kcp, out.stderr);
      await assertPlanEqualsPass(namespace, out.objects, 'runtime-sdk-1');
    },
  );
});

/** Whether this process runs in a network namespace of its own (test/run.mjs), where loopback may be changed. */
function inPrivateNetworkNamespace(): boolean {
  const host = process.env['CAPI_SERVERLESS_HOST_NETNS'];
  return host !== undefined && String(statSync('/proc/self/ns/net').ino) !== host;
}

/**
 * Puts the test extension behind the Service the example names, as its own manifests deploy it: the extension
 * listens on every address, a pod address is added to loopback, and a Pod (never run: no kubelet) carries that
 * address, so the API server's service proxy, which only proxies to addresses of Pods, reaches it. The serving
 * certificate's CA is in the Secret cert-manager would write.
 */
async function serveBehindExampleService(): Promise<void> {
  const podIp = '10.255.0.1';
  const namespace = 'test-extension-system';
  try {
    execFileSync('ip', ['addr', 'add', `${podIp}/32`, 'dev', 'lo'], { stdio: 'pipe' });
  } catch (err) {
    if (!String((err as { stderr?: unknown }).stderr).includes('File exists')) throw err;
  }
  const port = Number(new URL(ext.url).port);
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await put({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'test-extension-webhook-service-cert', namespace },
    type: 'kubernetes.io/tls',
    data: { 'ca.crt': ext.caBundle, 'tls.crt': '', 'tls.key': '' },
  });
  await put({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-extension', namespace, labels: { app: 'test-extension' } },
    spec: { containers: [{ name: 'manager', image: 'gcr.io/k8s-staging-cluster-api/test-extension:dev' }] },
  });
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'test-extension', namespace },
      status: { phase: 'Running', podIP: podIp, podIPs: [{ ip: podIp }] },
    },
    { fieldManager: harnessFieldManager, force: true },
  );
  await put({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'test-extension-webhook-service', namespace },
    spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
  });
  // NOTE: no controller-manager here maintains Endpoints from the selector; they are written as it would.
  await put({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'test-extension-webhook-service', namespace },
    subsets: [
      {
        addresses: [{ ip: podIp, targetRef: { kind: 'Pod', name: 'test-extension', namespace } }],
        ports: [{ name: 'https', port }],
      },
    ],
  });
}
