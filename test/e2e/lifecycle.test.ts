// The lifecycle end to end, beside upstream Cluster API: upstream's managers (core, kubeadm bootstrap, kubeadm control
// plane, Docker provider with its in-memory backend) run on a harness management cluster in the handoff
// configuration, and capi-serverless runs as deployed — the functions' handlers behind the local bus, fed by the
// forwarder's watches and ticks, its webhooks registered. Upstream's own in-memory ClusterClass, unchanged (its
// external patches and variables come from upstream's test Runtime Extension, served on loopback and registered with
// an ExtensionConfig that capi-serverless discovers), and topology Cluster go through creation, a
// version upgrade, scaling, adding and removing a MachineDeployment topology, a ClusterResourceSet applied into the
// in-memory workload cluster, and deletion. Every wait is bounded; a failure prints the passes' outcomes and
// upstream's managers' logs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  applyObject,
  createObject,
  deleteObject,
  findObject,
  getObject,
  getWorkloadClusterClient,
  listObjects,
  type KubeObject,
} from '#shared/kube/index.ts';
import {
  computeGatesForAllManagers,
  getInMemoryApiRequests,
  isWriteRequest,
  startUpstreamManagementCluster,
  upstreamCoreWorkloadUserAgent,
  upstreamManagerUsers,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeInMemoryObjects } from './in-memory-class.ts';
import { startProduct, type RunningProduct } from './product.ts';

const ns = 'e2e';
const clusterName = 'in-memory-1';
const fromVersion = 'v1.36.4';
const toVersion = 'v1.37.0';
const user = { fieldManager: 'e2e-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const clusterRef = { apiVersion: capi, kind: 'Cluster', namespace: ns, name: clusterName };
const byCluster = `cluster.x-k8s.io/cluster-name=${clusterName}`;
const topologyOwned = 'topology.cluster.x-k8s.io/owned';
/** The ExtensionConfig of upstream's test extension; upstream's ClusterClass names its handlers `<hook>.<this>`. */
const extensionConfigName = 'in-memory';
const inMemory = { namespace: ns, clusterName, kubernetesVersion: fromVersion, extensionConfigName };

type Condition = { type: string; status: string; reason?: string; message?: string };
type Status = {
  initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean };
  conditions?: Condition[];
  phase?: string;
};

const timings: [string, number][] = [];

// NOTE: capi-serverless writes topology objects with upstream's field manager, `capi-topology` (so a fleet switches
// over without field-ownership conflicts), so managedFields cannot tell the two implementations apart. The API
// server's audit log can (test/support/harness/audit-log.ts).
let audit: AuditLog | undefined;
const auditEvents = () => audit?.events() ?? [];

let mgmt: TestCluster;
let upstream: UpstreamCapi;
let product: RunningProduct;
let extension: TestExtension | undefined;

function condition(obj: KubeObject | undefined, type: string): Condition | undefined {
  return ((obj?.['status'] as Status | undefined)?.conditions ?? []).find((c) => c.type === type);
}

function diagnostics(): string {
  return (
    `\n----- capi-serverless passes (last 120)\n${product?.recentPasses(120) ?? ''}` +
    `\n----- test extension (last 60 lines)\n${extension?.logs().split('\n').slice(-60).join('\n') ?? ''}` +
    `\n----- upstream managers (last 300 lines)\n${upstream?.logs().split('\n').slice(-300).join('\n') ?? ''}`
  );
}

/** Polls `fn` every second until it returns a value; fails with `what`, the last observation and the logs. */
async function eventually<T>(
  what: string,
  fn: () => Promise<{ value?: T; observed: string }>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fn();
    if (r.value !== undefined) return r.value;
    if (Date.now() > deadline)
      assert.fail(`${what}: not reached in ${timeoutMs / 1000} s; last seen: ${r.observed}${diagnostics()}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

let failedStep: string | undefined;

/** Runs one step, timed; once a step failed, the later ones fail at once (each builds on the previous). */
async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
  const started = Date.now();
  try {
    return await fn();
  } catch (err) {
    failedStep = step;
    throw err;
  } finally {
    timings.push([step, Date.now() - started]);
  }
}

let failingSince: number | undefined;

/** Fails once TopologyReconciled has said ReconcileFailed for 30 s in a row (a pass error, not a wait). */
function assertTopologyNotFailing(cluster: KubeObject): void {
  const t = condition(cluster, 'TopologyReconciled');
  if (t?.reason !== 'ReconcileFailed') {
    failingSince = undefined;
    return;
  }
  failingSince ??= Date.now();
  if (Date.now() - failingSince > 30_000)
    assert.fail(`TopologyReconciled: ReconcileFailed for 30 s: ${t.message ?? ''}${diagnostics()}`);
}

async function machines(): Promise<KubeObject[]> {
  return (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'Machine', namespace: ns, labelSelector: byCluster }))
    .items;
}

const isControlPlane = (m: KubeObject) => 'cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {});
const versionOf = (m: KubeObject) => (m['spec'] as { version?: string }).version;
const phaseOf = (m: KubeObject) => (m['status'] as Status | undefined)?.phase;
const describeMachines = (ms: readonly KubeObject[]) =>
  ms.map((m) => `${m.metadata.name}(${isControlPlane(m) ? 'cp' : 'worker'},${versionOf(m)},${phaseOf(m)})`).join(' ');

/** Waits until the Cluster runs exactly `cp` control-plane and `workers` worker Machines, all Running at `version`. */
async function waitForMachines(cp: number, workers: number, version: string, timeoutMs = 240_000) {
  return eventually(
    `${cp} control-plane and ${workers} worker Machines Running at ${version}`,
    async () => {
      const all = await machines();
      const ok =
        all.filter(isControlPlane).length === cp &&
        all.filter((m) => !isControlPlane(m)).length === workers &&
        all.every((m) => phaseOf(m) === 'Running' && versionOf(m) === version && !m.metadata.deletionTimestamp);
      return { ...(ok ? { value: all } : {}), observed: describeMachines(all) };
    },
    timeoutMs,
  );
}

async function getCluster(): Promise<KubeObject> {
  return getObject(mgmt.kube, clusterRef);
}

async function applyCluster(mutate: (topology: Record<string, unknown>) => void): Promise<void> {
  const { cluster } = computeInMemoryObjects(inMemory);
  const desired = structuredClone(cluster);
  const topology = (desired['spec'] as { topology: Record<string, unknown> }).topology;
  topology['version'] = currentVersion;
  mutate(topology);
  await applyObject(mgmt.kube, desired, user);
}

let currentVersion = fromVersion;

type MdTopology = { name: string; class: string; replicas?: number } & Record<string, unknown>;
const mdTopologies = (t: Record<string, unknown>) =>
  (t['workers'] as { machineDeployments: MdTopology[] }).machineDeployments;

function managersOf(obj: KubeObject): string[] {
  return ((obj.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((m) => m.manager);
}

/** Every object the topology created for the Cluster (labelled topology-owned), of the kinds it stamps. */
async function topologyObjects(): Promise<KubeObject[]> {
  const kinds = [
    ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevCluster'],
    ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
    ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevMachineTemplate'],
    ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate'],
    [capi, 'MachineDeployment'],
    [capi, 'MachineHealthCheck'],
  ] as const;
  const out: KubeObject[] = [];
  for (const [apiVersion, kind] of kinds) {
    const list = await listObjects(mgmt.kube, { apiVersion, kind, namespace: ns, labelSelector: byCluster });
    out.push(...list.items.filter((o) => (o.metadata.labels ?? {})[topologyOwned] !== undefined));
  }
  return out;
}

/**
 * Upstream's test extension on loopback and its ExtensionConfig (the name upstream's ClusterClass expects, the
 * `extensionConfigName` setting its lifecycle handlers need); waits until capi-serverless's topology function has
 * discovered it (upstream's RuntimeSDK gate is off in the handoff: nothing else discovers it).
 */
async function registerTestExtension(): Promise<void> {
  const started = Date.now();
  extension = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
  const apiVersion = 'runtime.cluster.x-k8s.io/v1beta2';
  const ref = { apiVersion, kind: 'ExtensionConfig', name: extensionConfigName };
  await applyObject(
    mgmt.kube,
    {
      apiVersion,
      kind: 'ExtensionConfig',
      metadata: { name: extensionConfigName },
      spec: {
        clientConfig: { url: extension.url, caBundle: extension.caBundle },
        settings: { extensionConfigName },
      },
    },
    user,
  );
  await eventually(
    'the ExtensionConfig discovered (its handlers in status)',
    async () => {
      const ec = await getObject(mgmt.kube, ref);
      const handlers = ((ec['status'] as { handlers?: { name: string }[] } | undefined)?.handlers ?? []).map(
        (h) => h.name,
      );
      const ok = handlers.includes(`generate-patches.${extensionConfigName}`);
      return { ...(ok ? { value: true } : {}), observed: JSON.stringify(ec['status'] ?? {}) };
    },
    60_000,
  );
  timings.push(['start the test extension, discovered by capi-serverless', Date.now() - started]);
}

/**
 * Waits for the ClusterClass pass to publish the variables the extension's DiscoverVariables defines: the Cluster
 * webhooks validate the Cluster's variables against them (upstream's e2e framework retries its apply instead).
 */
async function waitForClusterClassVariables(): Promise<void> {
  await eventually(
    'ClusterClass in-memory reconciled with VariablesReady True',
    async () => {
      const cc = await getObject(mgmt.kube, {
        apiVersion: capi,
        kind: 'ClusterClass',
        namespace: ns,
        name: 'in-memory',
      });
      const generation = cc.metadata.generation;
      const status = cc['status'] as { observedGeneration?: number } | undefined;
      const ok = status?.observedGeneration === generation && condition(cc, 'VariablesReady')?.status === 'True';
      return { ...(ok ? { value: true } : {}), observed: JSON.stringify(cc['status'] ?? {}) };
    },
    60_000,
  );
}

/** TopologyReconciled as it changed (status, reason, message), sampled every half second while `sampling`. */
const topologySamples: { status: string; reason: string; message: string }[] = [];
let sampling: ReturnType<typeof setInterval> | undefined;

let samplingInFlight: Promise<void> = Promise.resolve();

async function sampleTopologyReconciled(): Promise<void> {
  const t = condition(await getCluster(), 'TopologyReconciled');
  const sample = { status: t?.status ?? '', reason: t?.reason ?? '', message: t?.message ?? '' };
  const last = topologySamples.at(-1);
  if (!last || last.status !== sample.status || last.reason !== sample.reason || last.message !== sample.message)
    topologySamples.push(sample);
}

function startSamplingTopologyReconciled(): void {
  topologySamples.length = 0;
  let busy = false;
  sampling = setInterval(() => {
    if (busy) return;
    busy = true;
    samplingInFlight = sampleTopologyReconciled()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 500);
}

/**
 * Stops sampling and takes one last sample, so the state the previous step waited for (TopologyReconciled True after
 * the upgrade) is in the trajectory even when it came less than one interval before the stop.
 */
async function stopSamplingTopologyReconciled(): Promise<void> {
  clearInterval(sampling);
  sampling = undefined;
  await samplingInFlight;
  await sampleTopologyReconciled().catch(() => undefined);
}

describe('lifecycle beside upstream Cluster API (in-memory backend)', { timeout: 30 * 60_000 }, () => {
  before(async () => {
    const started = Date.now();
    audit = createAuditLog();
    const cluster = await startUpstreamManagementCluster({
      name: 'e2e',
      extraApiServerArgs: audit.apiServerArgs,
      upstream: { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) },
    });
    mgmt = cluster;
    upstream = cluster.upstream;
    product = await startProduct(mgmt, ['topology', 'addons']);
    timings.push(['start upstream managers and capi-serverless', Date.now() - started]);
    await registerTestExtension();
  });
  after(async () => {
    await product?.stop();
    await extension?.stop();
    await mgmt?.stop();
    audit?.remove();
    console.log(
      `e2e timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`,
    );
  });

  test("1. upstream's in-memory ClusterClass and Cluster: control plane available, Machines Running", async () => {
    await timed('create: control plane available, Machines Running', async () => {
      await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
      const { clusterClass, cluster } = computeInMemoryObjects(inMemory);
      for (const obj of clusterClass) await applyObject(mgmt.kube, obj, user);
      await waitForClusterClassVariables();
      await applyObject(mgmt.kube, cluster, user);
      const ready = await eventually(
        'Cluster infrastructure provisioned, control plane initialized and available',
        async () => {
          const c = await getCluster();
          assertTopologyNotFailing(c);
          const init = (c['status'] as Status | undefined)?.initialization;
          const available = condition(c, 'ControlPlaneAvailable');
          const ok = init?.infrastructureProvisioned && init.controlPlaneInitialized && available?.status === 'True';
          return {
            ...(ok ? { value: c } : {}),
            observed: JSON.stringify({ init, conditions: (c['status'] as Status | undefined)?.conditions }),
          };
        },
        240_000,
      );
      assert.equal(condition(ready, 'TopologyReconciled')?.status, 'True', JSON.stringify(ready['status']));
      const all = await waitForMachines(1, 1, fromVersion);
      assert.equal(all.length, 2);
    });
    // The extension's patches reached the stamped control plane.
    const [kcp] = (
      await listObjects(mgmt.kube, {
        apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmControlPlane',
        namespace: ns,
        labelSelector: byCluster,
      })
    ).items;
    assert.ok(kcp, 'the topology created a KubeadmControlPlane');
    const kcpSpec = kcp['spec'] as {
      version: string;
      kubeadmConfigSpec: { clusterConfiguration: { apiServer: { extraArgs: unknown } } };
      rollout?: { strategy?: { rollingUpdate?: { maxSurge?: unknown } } };
    };
    assert.equal(kcpSpec.version, fromVersion);
    assert.deepEqual(kcpSpec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs, [{ name: 'v', value: '2' }]);
    assert.equal(kcpSpec.rollout?.strategy?.rollingUpdate?.maxSurge, 1);
    // The ClusterClass pass published the variables the extension's DiscoverVariables defines.
    const cc = await getObject(mgmt.kube, { apiVersion: capi, kind: 'ClusterClass', namespace: ns, name: 'in-memory' });
    const variables = (cc['status'] as { variables?: { name: string; definitions: { from: string }[] }[] }).variables;
    assert.deepEqual(
      (variables ?? []).filter((v) => v.definitions.some((d) => d.from === 'test-patch')).map((v) => v.name),
      [
        'files',
        'imageRepository',
        'kubeadmConfigTemplateAnnotations',
        'kubeadmControlPlaneMaxSurge',
        'preKubeadmCommands',
      ],
    );
  });

  test("1b. the class's MachineHealthChecks: one for the control plane, one for md-0, with the class's checks", async () => {
    if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
    const { clusterClass } = computeInMemoryObjects(inMemory);
    type HealthCheck = { checks?: { unhealthyNodeConditions?: unknown[] } };
    const classSpec = clusterClass.find((o) => o.kind === 'ClusterClass')?.['spec'] as {
      controlPlane: { healthCheck?: HealthCheck };
      workers: { machineDeployments: { class: string; healthCheck?: HealthCheck }[] };
    };
    const cpChecks = classSpec.controlPlane.healthCheck?.checks?.unhealthyNodeConditions;
    const mdChecks = classSpec.workers.machineDeployments.find((m) => m.class === 'default-worker')?.healthCheck?.checks
      ?.unhealthyNodeConditions;
    assert.ok(cpChecks && mdChecks, "upstream's class declares both health checks");
    type Mhc = {
      clusterName: string;
      selector: { matchLabels?: Record<string, string> };
      checks?: { unhealthyNodeConditions?: unknown[] };
    };
    const mhcs = (
      await listObjects(mgmt.kube, {
        apiVersion: capi,
        kind: 'MachineHealthCheck',
        namespace: ns,
        labelSelector: byCluster,
      })
    ).items;
    const describe = mhcs.map((m) => `${m.metadata.name}: ${JSON.stringify(m['spec'])}`).join('\n');
    assert.equal(mhcs.length, 2, describe);
    const specOf = (m: KubeObject) => m['spec'] as Mhc;
    const cp = mhcs.find((m) => specOf(m).selector.matchLabels?.['cluster.x-k8s.io/control-plane'] === '');
    const md = mhcs.find(
      (m) => specOf(m).selector.matchLabels?.['topology.cluster.x-k8s.io/deployment-name'] === 'md-0',
    );
    assert.ok(cp && md, describe);
    // As upstream v1.14 (computeMachineHealthCheck): named after its target, owned by the Cluster.
    const targets = {
      cp: (
        await listObjects(mgmt.kube, {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'KubeadmControlPlane',
          namespace: ns,
          labelSelector: byCluster,
        })
      ).items[0]?.metadata.name,
      md: (
        await listObjects(mgmt.kube, {
          apiVersion: capi,
          kind: 'MachineDeployment',
          namespace: ns,
          labelSelector: `${byCluster},topology.cluster.x-k8s.io/deployment-name=md-0`,
        })
      ).items[0]?.metadata.name,
    };
    for (const [mhc, checks, target] of [
      [cp, cpChecks, targets.cp],
      [md, mdChecks, targets.md],
    ] as const) {
      assert.equal(mhc.metadata.name, target, 'named after its target');
      assert.equal(specOf(mhc).clusterName, clusterName);
      assert.deepEqual(specOf(mhc).selector.matchLabels?.[topologyOwned], '', `${mhc.metadata.name}: topology-owned`);
      assert.deepEqual(specOf(mhc).checks?.unhealthyNodeConditions, checks, `${mhc.metadata.name}: the class's checks`);
      assert.equal(mhc.metadata.labels?.[topologyOwned], '');
      assert.deepEqual(
        (mhc.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`),
        [`Cluster/${clusterName}`],
        `${mhc.metadata.name} is owned by the Cluster`,
      );
    }
  });

  test('handoff: every topology write comes from capi-serverless, none from upstream topology controller', async () => {
    if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
    const objects = await topologyObjects();
    assert.ok(objects.length >= 6, `topology objects: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join()}`);
    for (const obj of objects)
      assert.ok(
        managersOf(obj).includes('capi-topology'),
        `${obj.kind} ${obj.metadata.name}: ${managersOf(obj).join()}`,
      );
    const topologyWrites = auditEvents().filter(
      (e) => e.requestURI.includes('fieldManager=capi-topology') && (e.responseStatus?.code ?? 0) < 300,
    );
    const writers = [...new Set(topologyWrites.map((e) => e.user.username))];
    assert.ok(topologyWrites.length >= objects.length, `${topologyWrites.length} successful topology writes`);
    const upstreamUsers: string[] = Object.values(upstreamManagerUsers);
    assert.deepEqual(
      writers.filter((u) => upstreamUsers.includes(u)),
      [],
      `writers with field manager capi-topology: ${writers.join()}`,
    );
    assert.equal(writers.length, 1, `one identity (capi-serverless's) wrote as capi-topology: ${writers.join()}`);
    // The upstream managers' other writes to these objects (status, owner references) use their own field managers.
    const upstreamWrites = auditEvents().filter((e) => upstreamUsers.includes(e.user.username));
    assert.ok(upstreamWrites.length > 0, 'the audit log records the upstream managers too');
  });

  test('2. a version upgrade: the control plane first, the workers only after it, every Machine at the new version', async () => {
    await timed('upgrade: control plane, then workers', async () => {
      currentVersion = toVersion;
      startSamplingTopologyReconciled();
      await applyCluster(() => undefined);
      // While the control plane upgrades, no worker Machine may be at the new version.
      let workersEarly = '';
      const cpDone = await eventually(
        'control plane Machines at the new version',
        async () => {
          const all = await machines();
          const cp = all.filter(isControlPlane);
          const workers = all.filter((m) => !isControlPlane(m));
          const kcps = await listObjects(mgmt.kube, {
            apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
            kind: 'KubeadmControlPlane',
            namespace: ns,
            labelSelector: byCluster,
          });
          const kcpVersion = (kcps.items[0]?.['status'] as { version?: string } | undefined)?.version;
          if (kcpVersion !== toVersion && workers.some((m) => versionOf(m) === toVersion))
            workersEarly ||= describeMachines(all);
          const ok =
            kcpVersion === toVersion &&
            cp.length === 1 &&
            cp.every((m) => versionOf(m) === toVersion && phaseOf(m) === 'Running');
          return { ...(ok ? { value: all } : {}), observed: `kcp ${kcpVersion}: ${describeMachines(all)}` };
        },
        300_000,
      );
      assert.equal(workersEarly, '', `workers started upgrading before the control plane finished: ${workersEarly}`);
      assert.ok(cpDone.length >= 2);
      await waitForMachines(1, 1, toVersion, 300_000);
      const cluster = await eventually(
        'TopologyReconciled True after the upgrade',
        async () => {
          const c = await getCluster();
          const t = condition(c, 'TopologyReconciled');
          return { ...(t?.status === 'True' ? { value: c } : {}), observed: JSON.stringify(t) };
        },
        60_000,
      );
      assert.equal((cluster['spec'] as { topology: { version: string } }).topology.version, toVersion);
    });
  });

  test('2b. TopologyReconciled during the upgrade: the control plane upgrading, then the MachineDeployment', async () => {
    await stopSamplingTopologyReconciled();
    if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
    const seen = topologySamples.map((t, i) => `${i}: ${t.status} ${t.reason}: ${t.message.replaceAll('\n', ' | ')}`);
    const printed = seen.join('\n');
    console.log(`TopologyReconciled during the upgrade:\n${printed}`);
    const upgrading = (t: (typeof topologySamples)[number]) => t.status === 'False' && t.reason === 'ClusterUpgrading';
    // NOTE: the messages name the MachineDeployment object (`in-memory-1-md-0-<suffix>`), as upstream's do.
    const cpUpgrading = topologySamples.findIndex(
      (t) => upgrading(t) && /ControlPlane upgrading to version v1\.37\.0/.test(t.message),
    );
    const mdUpgrading = topologySamples.findIndex(
      (t) =>
        upgrading(t) &&
        /MachineDeployments? \S*md-0\S* upgrading to version v1\.37\.0/.test(t.message) &&
        !/ControlPlane upgrading/.test(t.message),
    );
    assert.ok(cpUpgrading !== -1, `ClusterUpgrading with the control plane upgrading:\n${printed}`);
    assert.match(
      topologySamples[cpUpgrading]?.message ?? '',
      /MachineDeployments? \S*md-0\S* pending upgrade to version v1\.37\.0/,
      `md-0 pending while the control plane upgrades:\n${printed}`,
    );
    assert.ok(
      mdUpgrading > cpUpgrading,
      `then ClusterUpgrading with md-0 upgrading (after the control plane):\n${printed}`,
    );
    // While the control plane upgrades, md-0 is at most pending, never upgrading.
    for (const t of topologySamples.slice(cpUpgrading, mdUpgrading))
      assert.doesNotMatch(t.message, /md-0\S* upgrading/, printed);
    assert.equal(topologySamples.at(-1)?.status, 'True', printed);
  });

  test('3a. scaling a MachineDeployment topology', async () => {
    await timed('scale md-0 from 1 to 2', async () => {
      await applyCluster((t) => {
        mdTopologies(t)[0]!.replicas = 2;
      });
      await waitForMachines(1, 2, toVersion);
    });
  });

  test('3b. adding and removing a MachineDeployment topology', async () => {
    await timed('add md-1, then remove it', async () => {
      await applyCluster((t) => {
        mdTopologies(t)[0]!.replicas = 2;
        mdTopologies(t).push({ ...structuredClone(mdTopologies(t)[0]!), name: 'md-1', replicas: 1 });
      });
      await waitForMachines(1, 3, toVersion);
      const mds = await listObjects(mgmt.kube, {
        apiVersion: capi,
        kind: 'MachineDeployment',
        namespace: ns,
        labelSelector: byCluster,
      });
      assert.deepEqual(
        mds.items.map((md) => md.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name']).sort(),
        ['md-0', 'md-1'],
      );
      await applyCluster((t) => {
        mdTopologies(t)[0]!.replicas = 2;
      });
      await waitForMachines(1, 2, toVersion);
      await eventually(
        'md-1 and its templates gone',
        async () => {
          const left = (await topologyObjects()).filter(
            (o) => o.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] === 'md-1',
          );
          return {
            ...(left.length === 0 ? { value: true } : {}),
            observed: left.map((o) => `${o.kind}/${o.metadata.name}`).join(),
          };
        },
        60_000,
      );
    });
  });

  test('3c. a changed ClusterClass template: cloned under a new name, the reference switched, the old clone removed once unused', async () => {
    await timed('rotate md-0 bootstrap template', async () => {
      const kctApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
      const md0 = async () =>
        (
          await listObjects(mgmt.kube, {
            apiVersion: capi,
            kind: 'MachineDeployment',
            namespace: ns,
            labelSelector: `${byCluster},topology.cluster.x-k8s.io/deployment-name=md-0`,
          })
        ).items[0];
      type MdSpec = { template: { spec: { bootstrap: { configRef: { name: string } } } } };
      const bootstrapOf = (md: KubeObject | undefined) =>
        (md?.['spec'] as MdSpec | undefined)?.template.spec.bootstrap.configRef.name;
      const before = await md0();
      const oldClone = bootstrapOf(before);
      assert.ok(oldClone, 'md-0 has a bootstrap template clone');
      const { clusterClass } = computeInMemoryObjects(inMemory);
      const source = clusterClass.find((o) => o.kind === 'KubeadmConfigTemplate');
      const cc = structuredClone(clusterClass.find((o) => o.kind === 'ClusterClass'));
      assert.ok(source && cc);
      const rotatedName = `${source.metadata.name ?? ''}-rotated`;
      const rotated = structuredClone(source);
      rotated.metadata = { namespace: ns, name: rotatedName };
      // A new template in the class: upstream's worker KubeadmConfigTemplate (empty in upstream's class: the test
      // extension patches it) with one more pre-kubeadm command.
      type KctSpec = { template?: { spec?: { preKubeadmCommands?: string[] } } };
      const spec = ((rotated['spec'] as KctSpec | undefined) ?? {}) as KctSpec;
      const template = (spec.template ??= {});
      const kubeadm = (template.spec ??= {});
      kubeadm.preKubeadmCommands = [...(kubeadm.preKubeadmCommands ?? []), 'echo rotated by the e2e'];
      rotated['spec'] = spec;
      await applyObject(mgmt.kube, rotated, user);
      const ccSpec = cc['spec'] as {
        workers: { machineDeployments: { class: string; bootstrap: { templateRef: { name: string } } }[] };
      };
      const worker = ccSpec.workers.machineDeployments.find((m) => m.class === 'default-worker');
      assert.ok(worker);
      worker.bootstrap.templateRef.name = rotatedName;
      await applyObject(mgmt.kube, cc, user);

      const newClone = await eventually(
        'md-0 references a new clone of the changed template',
        async () => {
          const name = bootstrapOf(await md0());
          return { ...(name && name !== oldClone ? { value: name } : {}), observed: `md-0 bootstrap ${name ?? '?'}` };
        },
        120_000,
      );
      const clone = await getObject(mgmt.kube, {
        apiVersion: kctApi,
        kind: 'KubeadmConfigTemplate',
        namespace: ns,
        name: newClone,
      });
      assert.equal(clone.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], rotatedName);
      assert.match(newClone, /^in-memory-1-md-0-/, 'named like the clones upstream makes');
      assert.ok(
        (clone['spec'] as KctSpec | undefined)?.template?.spec?.preKubeadmCommands?.includes('echo rotated by the e2e'),
        `the clone carries the changed template's spec: ${JSON.stringify(clone['spec'])}`,
      );
      await waitForMachines(1, 2, toVersion, 300_000);
      await eventually(
        'the old clone deleted once no MachineSet uses it',
        async () => {
          const old = await findObject(mgmt.kube, {
            apiVersion: kctApi,
            kind: 'KubeadmConfigTemplate',
            namespace: ns,
            name: oldClone,
          });
          const sets = (
            await listObjects(mgmt.kube, {
              apiVersion: capi,
              kind: 'MachineSet',
              namespace: ns,
              labelSelector: byCluster,
            })
          ).items.map((ms) => `${ms.metadata.name}:${bootstrapOf(ms) ?? '?'}`);
          return {
            ...(old === undefined ? { value: true } : {}),
            observed: `${oldClone} still there; MachineSets ${sets.join(', ')}`,
          };
        },
        180_000,
      );
      // The rollout to the new template is over: md-0's Machines run again, none of the old MachineSet left.
      await waitForMachines(1, 2, toVersion);
    });
  });

  test('4. a ClusterResourceSet selecting the Cluster is applied into the in-memory workload cluster (ApplyOnce)', async () => {
    await timed('ClusterResourceSet into the workload cluster', async () => {
      // NOTE: ApplyOnce creates with POST, which the in-memory workload API server serves; it has no server-side
      // apply (PATCH accepts merge and strategic-merge patches only), which strategy Reconcile uses.
      await applyObject(
        mgmt.kube,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: ns, name: 'e2e-addon' },
          data: {
            'addon.yaml':
              'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-addon\n  namespace: default\ndata:\n  from: capi-serverless\n',
          },
        },
        user,
      );
      await applyObject(
        mgmt.kube,
        {
          apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
          kind: 'ClusterResourceSet',
          metadata: { namespace: ns, name: 'e2e-addon' },
          spec: {
            clusterSelector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': clusterName } },
            resources: [{ kind: 'ConfigMap', name: 'e2e-addon' }],
            strategy: 'ApplyOnce',
          },
        },
        user,
      );
      const workload = await getWorkloadClusterClient(mgmt.kube, { namespace: ns, name: clusterName });
      try {
        // NOTE: the in-memory workload API server serves only what the backend creates: it has no Service
        // default/kubernetes, which a real kube-apiserver creates itself and which the addons pass reads first to
        // know the cluster answers (upstream's ensureKubernetesServiceCreated does the same). Create it as the real
        // API server would.
        await createObject(
          workload,
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { namespace: 'default', name: 'kubernetes' },
            spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
          },
          { fieldManager: 'kube-apiserver' },
        );
        const applied = await eventually(
          'ConfigMap default/e2e-addon in the workload cluster',
          async () => {
            const cm = await findObject(workload, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              namespace: 'default',
              name: 'e2e-addon',
            }).catch((err: unknown) => ({ error: String(err) }) as unknown as KubeObject);
            return {
              ...(cm && !('error' in cm) ? { value: cm } : {}),
              observed: JSON.stringify(cm ?? 'absent').slice(0, 500),
            };
          },
          90_000,
        );
        assert.deepEqual(applied['data'], { from: 'capi-serverless' });
      } finally {
        workload.close();
      }
      const binding = await getObject(mgmt.kube, {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSetBinding',
        namespace: ns,
        name: clusterName,
      });
      assert.ok(binding, 'the pass bound the Cluster');
      const crs = await getObject(mgmt.kube, {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSet',
        namespace: ns,
        name: 'e2e-addon',
      });
      const upstreamWrites = auditEvents().filter(
        (e) =>
          e.objectRef?.resource?.startsWith('clusterresourceset') &&
          (e.responseStatus?.code ?? 0) < 300 &&
          e.user.username === upstreamManagerUsers.core &&
          // NOTE: the harness's dry-run probe as the core manager (waiting for the handoff policy to be enforced).
          e.objectRef.name !== 'capi-serverless-handoff-probe' &&
          !e.requestURI.includes('dryRun=All'),
      );
      assert.deepEqual(
        upstreamWrites.map((e) => `${e.verb} ${e.requestURI} → ${e.responseStatus?.code} at ${e.stageTimestamp}`),
        [],
        `upstream's core manager wrote no ClusterResourceSet kind`,
      );
      assert.ok(!managersOf(crs).includes('manager'), managersOf(crs).join());
      // Which implementation applied it. Upstream's ClusterResourceSet controller runs too: it saw the
      // ClusterResourceSet (its attempts are in the audit log), and each was its first write, adding its finalizer,
      // refused by the handoff policy; it never got as far as a binding (which it writes after applying).
      const upstreamAttempts = auditEvents().filter(
        (e) =>
          e.user.username === upstreamManagerUsers.core &&
          e.objectRef?.resource?.startsWith('clusterresourceset') &&
          e.objectRef.name !== 'capi-serverless-handoff-probe',
      );
      const describeAttempt = (e: (typeof upstreamAttempts)[number]) =>
        `${e.verb} ${e.objectRef?.resource ?? ''}/${e.objectRef?.name ?? ''} → ${e.responseStatus?.code ?? '?'}`;
      assert.ok(
        upstreamAttempts.some(
          (e) => e.objectRef?.resource === 'clusterresourcesets' && e.objectRef.name === 'e2e-addon',
        ),
        "upstream's ClusterResourceSet controller saw the ClusterResourceSet",
      );
      assert.deepEqual(
        upstreamAttempts.filter((e) => e.objectRef?.resource !== 'clusterresourcesets').map(describeAttempt),
        [],
        "upstream's ClusterResourceSet controller got past its finalizer",
      );
      assert.ok(
        upstreamAttempts.every((e) => (e.responseStatus?.code ?? 0) >= 400),
        upstreamAttempts.map(describeAttempt).join('\n'),
      );
      // In the workload cluster, by user agent (every client uses the same kubeconfig): capi-serverless created the
      // ConfigMap, upstream's core manager wrote no ConfigMap at all.
      const configMapWrites = (await getInMemoryApiRequests(upstream)).filter(
        (r) => r.resource === 'configmaps' && isWriteRequest(r),
      );
      const seen = configMapWrites.map((r) => `${r.verb} ${r.code} ×${r.count} ${r.userAgent}`).join('\n');
      assert.deepEqual(
        configMapWrites.filter((r) => r.userAgent.includes(upstreamCoreWorkloadUserAgent)).map((r) => r.verb),
        [],
        `upstream's core manager wrote ConfigMaps into the workload cluster:\n${seen}`,
      );
      assert.ok(
        // NOTE: the in-memory API server answers a create with 200.
        configMapWrites.some(
          (r) => r.userAgent.startsWith('capi-serverless') && r.verb === 'POST' && r.code.startsWith('2'),
        ),
        `capi-serverless created the ConfigMap:\n${seen}`,
      );
    });
  });

  test('5. deleting the Cluster leaves nothing the topology created', async () => {
    await timed('delete the Cluster', async () => {
      await deleteObject(mgmt.kube, clusterRef);
      await eventually(
        'the Cluster, its Machines and every topology object gone',
        async () => {
          const cluster = await findObject(mgmt.kube, clusterRef);
          const left = [...(await topologyObjects()), ...(await machines())];
          const ok = cluster === undefined && left.length === 0;
          return {
            ...(ok ? { value: true } : {}),
            observed: `${cluster ? 'Cluster present; ' : ''}${left.map((o) => `${o.kind}/${o.metadata.name}`).join()}`,
          };
        },
        300_000,
      );
    });
  });
});
