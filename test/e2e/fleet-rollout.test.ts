// Fleet rollouts end to end, beside upstream Cluster API: upstream's managers (core, kubeadm bootstrap, kubeadm
// control plane, Docker provider with its in-memory backend) in the handoff configuration, capi-serverless as deployed
// (topology and rollout functions behind the local bus, the forwarder's watches, ticks, its webhooks). Eight Clusters
// on upstream's in-memory ClusterClass (inline patches) run real Machines; two ClusterRollouts then move the fleet:
//  1. a rebase to a copy of the class whose worker bootstrap template differs, in waves of 1, 3 and the rest
//     (maxConcurrent 2, a short bake), with c03's MachineDeployment paused so its Machines cannot become up to date:
//     the rollout halts naming c03, the Clusters not reached are never written (audit log, generations, Machine
//     uids), and after the fix `spec.retry` completes it;
//  2. a version upgrade in waves of 1 and the rest (maxConcurrent 4);
//  3. a change of the class itself (a new worker bootstrap template), applied as upstream applies it: to every
//     Cluster of the class at once.
// Before each, `capi-serverless plan` forecasts the Machines each Cluster replaces (control plane, each
// MachineDeployment); after it, the Machines upstream's managers really deleted and created, by owner, must be
// exactly that. A ninth Cluster outside the selector, `d01`, gets each change directly (a user's edit of its
// spec.topology): after each rollout every Cluster's topology-managed state equals d01's. Not part of `npm run test:e2e` (creation and the rebase alone took 16 minutes on a loaded 2-core
// machine): `npm run test:fleet-e2e`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify as stringifyYaml } from 'yaml';
import { RolloutApiVersion, type ClusterRolloutStatus } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { runPlan } from '#shared/cli/plan.ts';
import {
  applyObject,
  createObject,
  getObject,
  KubeUnavailableError,
  listObjects,
  patchObject,
  type KubeObject,
} from '#shared/kube/index.ts';
import { createAuditLog, type AuditEvent, type AuditLog } from '#test/support/harness/audit-log.ts';
import { ourCrds, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  computeGatesForAllManagers,
  startUpstreamManagementCluster,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { computeInMemoryObjects } from './in-memory-class.ts';
import { startProduct, type RunningProduct } from './product.ts';

const ns = 'fleet';
const names = Array.from({ length: 8 }, (_, i) => `c0${i + 1}`);
const fromVersion = 'v1.36.4';
const toVersion = 'v1.37.0';
const user = { fieldManager: 'e2e-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const rolloutManager = 'capi-serverless-rollout';
const pausedAnnotation = 'cluster.x-k8s.io/paused';
const newClass = 'in-memory-v2';
const newWorkerBootstrap = 'in-memory-default-worker-bootstraptemplate-v2';
const v3WorkerBootstrap = 'in-memory-default-worker-bootstraptemplate-v3';
/** The Cluster changed directly by the user, the reference every rollout's result is compared with. */
const direct = 'd01';
const clusterRef = (name: string) => ({ apiVersion: capi, kind: 'Cluster', namespace: ns, name });
const rolloutRef = (name: string) => ({ apiVersion: RolloutApiVersion, kind: 'ClusterRollout', namespace: ns, name });

type Condition = { type: string; status: string; reason?: string; message?: string };

let mgmt: TestCluster & { readonly upstream: UpstreamCapi };
let product: RunningProduct | undefined;
let audit: AuditLog | undefined;
const timings: [string, number][] = [];

function conditionOf(obj: KubeObject | undefined, type: string): Condition | undefined {
  return ((obj?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
}

function diagnostics(): string {
  return (
    `\n----- capi-serverless passes (last 150)\n${product?.recentPasses(150) ?? ''}` +
    `\n----- upstream managers (last 200 lines)\n${mgmt?.upstream.logs().split('\n').slice(-200).join('\n') ?? ''}`
  );
}

/** Polls `fn` every 2 s until it returns a value; fails with `what`, the last observation and the logs. */
async function eventually<T>(
  what: string,
  fn: () => Promise<{ value?: T; observed: string }>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // NOTE: on the loaded shared machine the API server once left a LIST unanswered for 30 s (second run of the
    // class change); a poll that cannot read this time looks again instead of failing the step.
    const r = await fn().catch((err: unknown) => {
      if (!(err instanceof KubeUnavailableError)) throw err;
      return { observed: `API server unavailable: ${err.message}` } as { value?: T; observed: string };
    });
    if (r.value !== undefined) return r.value;
    if (Date.now() > deadline)
      assert.fail(`${what}: not reached in ${timeoutMs / 1000} s; last seen: ${r.observed}${diagnostics()}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
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

/** What `kubectl` shows (printed for docs/fleet-rollouts.md). */
function printKubectl(...args: string[]): void {
  try {
    const out = execFileSync('kubectl', ['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-n', ns, ...args], {
      encoding: 'utf8',
    });
    console.log(`$ kubectl ${args.join(' ')}\n${out}`);
  } catch (err) {
    console.log(`kubectl ${args.join(' ')} failed: ${String(err)}`);
  }
}

// ----- Machines, by owner

type MachineInfo = { cluster: string; owner: string; name: string };

const machineOwner = (m: KubeObject) => {
  const labels = m.metadata.labels ?? {};
  if ('cluster.x-k8s.io/control-plane' in labels) return 'ControlPlane';
  return `MachineDeployment/${labels['topology.cluster.x-k8s.io/deployment-name'] ?? labels['cluster.x-k8s.io/deployment-name'] ?? '?'}`;
};

async function listMachines(): Promise<KubeObject[]> {
  return (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'Machine', namespace: ns })).items;
}

const infoOf = (m: KubeObject): MachineInfo => ({
  cluster: m.metadata.labels?.['cluster.x-k8s.io/cluster-name'] ?? '?',
  owner: machineOwner(m),
  name: m.metadata.name ?? '',
});

/**
 * Every Machine seen in the namespace while it runs (a LIST every second), by uid: a Machine created and deleted
 * between the snapshots before and after a rollout is still counted.
 */
function startMachineSampler() {
  const seen = new Map<string, MachineInfo>();
  let busy = false;
  const sample = async () => {
    for (const m of await listMachines()) if (m.metadata.uid) seen.set(m.metadata.uid, infoOf(m));
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    sample()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 1_000);
  timer.unref();
  return {
    seen,
    async stop() {
      clearInterval(timer);
      await sample();
    },
  };
}

type Counts = Record<string, Record<string, number>>;

function count(machines: Iterable<MachineInfo>): Counts {
  const out: Counts = {};
  for (const m of machines) {
    const perCluster = (out[m.cluster] ??= {});
    perCluster[m.owner] = (perCluster[m.owner] ?? 0) + 1;
  }
  return sortCounts(out);
}

const sortCounts = (c: Counts): Counts =>
  Object.fromEntries(
    Object.keys(c)
      .sort()
      .map((k) => [k, Object.fromEntries(Object.entries(c[k] ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))]),
  );

// ----- plan

type Forecast = {
  summary: Record<string, number>;
  clusters: {
    name: string;
    result: string;
    error?: string;
    rollouts: { owner: string; topologyName?: string; replicas?: number; reasons: string[] }[];
  }[];
};

async function plan(args: string[]): Promise<{ forecast: Forecast; text: string }> {
  const run = async (extra: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runPlan(['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-n', ns, ...args, ...extra], {
      stdout: { write: (s) => (stdout += s) },
      stderr: { write: (s) => (stderr += s) },
    });
    assert.equal(code, 0, `plan ${args.join(' ')}: exit ${code}\n${stderr}\n${stdout}`);
    return stdout;
  };
  const text = await run([]);
  console.log(`$ capi-serverless plan --kubeconfig mgmt.kubeconfig -n ${ns} ${args.join(' ')}\n${text}`);
  return { forecast: JSON.parse(await run(['-o', 'json'])) as Forecast, text };
}

/** The forecast as counts: Cluster → owner → Machines replaced (owners with none left out). */
function forecastCounts(forecast: Forecast): Counts {
  const out: Counts = {};
  for (const c of forecast.clusters) {
    assert.equal(c.result, 'Changes', `${c.name}: ${c.result} ${c.error ?? ''}`);
    for (const r of c.rollouts) {
      const owner = r.owner === 'ControlPlane' ? 'ControlPlane' : `${r.owner}/${r.topologyName ?? '?'}`;
      if ((r.replicas ?? 0) > 0) (out[c.name] ??= {})[owner] = r.replicas ?? 0;
    }
  }
  return sortCounts(out);
}

/** Machines deleted (there before, gone after) and created (seen after the start, not there before), by owner. */
function replacedMachines(before: Map<string, MachineInfo>, seen: Map<string, MachineInfo>, final: KubeObject[]) {
  const finalUids = new Set(final.map((m) => m.metadata.uid));
  const inFleet = (m: MachineInfo) => names.includes(m.cluster);
  const deleted = [...before]
    .filter(([uid]) => !finalUids.has(uid))
    .map(([, m]) => m)
    .filter(inFleet);
  const created = [...seen]
    .filter(([uid]) => !before.has(uid))
    .map(([, m]) => m)
    .filter(inFleet);
  return { deleted: count(deleted), created: count(created) };
}

async function snapshotMachines(): Promise<Map<string, MachineInfo>> {
  return new Map((await listMachines()).map((m) => [m.metadata.uid ?? '', infoOf(m)]));
}

// ----- the fleet

/** Waits until every Cluster runs 1 control-plane and 1 worker Machine at `version` and TopologyReconciled is True. */
async function waitForFleet(
  version: string,
  timeoutMs: number,
  expect: (c: KubeObject) => boolean = () => true,
  clusters: readonly string[] = names,
): Promise<void> {
  await eventually(
    `${clusters.join(', ')} with 2 Machines Running at ${version}`,
    async () => {
      const machines = await listMachines();
      const bad: string[] = [];
      for (const name of clusters) {
        const own = machines.filter((m) => m.metadata.labels?.['cluster.x-k8s.io/cluster-name'] === name);
        const ok =
          own.length === 2 &&
          own.some((m) => machineOwner(m) === 'ControlPlane') &&
          own.every(
            (m) =>
              (m['status'] as { phase?: string } | undefined)?.phase === 'Running' &&
              (m['spec'] as { version?: string }).version === version &&
              !m.metadata.deletionTimestamp,
          );
        const cluster = await getObject(mgmt.kube, clusterRef(name));
        if (!ok || conditionOf(cluster, 'TopologyReconciled')?.status !== 'True' || !expect(cluster))
          bad.push(
            `${name}: ${own.map((m) => `${m.metadata.name}(${String((m['status'] as { phase?: string } | undefined)?.phase)})`).join(' ')} TopologyReconciled=${conditionOf(cluster, 'TopologyReconciled')?.status ?? '?'}`,
          );
      }
      return { ...(bad.length === 0 ? { value: true } : {}), observed: bad.join('; ') };
    },
    timeoutMs,
  );
}

async function waitForClassVariables(name: string): Promise<void> {
  await eventually(
    `ClusterClass ${name} reconciled with VariablesReady True`,
    async () => {
      const cc = await getObject(mgmt.kube, { apiVersion: capi, kind: 'ClusterClass', namespace: ns, name });
      const status = cc['status'] as { observedGeneration?: number } | undefined;
      const ok =
        status?.observedGeneration === cc.metadata.generation && conditionOf(cc, 'VariablesReady')?.status === 'True';
      return { ...(ok ? { value: true } : {}), observed: JSON.stringify(cc['status'] ?? {}) };
    },
    90_000,
  );
}

async function rolloutStatus(name: string): Promise<ClusterRolloutStatus> {
  return ((await getObject(mgmt.kube, rolloutRef(name)))['status'] ?? {}) as ClusterRolloutStatus;
}

const describeRollout = (s: ClusterRolloutStatus) =>
  `${s.phase ?? '?'} wave ${s.currentWave ?? '?'} ${s.progress ?? ''} ` +
  (s.clusters ?? [])
    .map(
      (c) =>
        `${c.name}=${c.state}${c.reason ? `(${c.reason}${c.state === 'Failed' ? `: ${c.message ?? ''}` : ''})` : ''}`,
    )
    .join(' ');

async function waitForPhase(
  name: string,
  phase: string,
  timeoutMs: number,
  opts: { failOnHalt?: boolean } = {},
): Promise<ClusterRolloutStatus> {
  return eventually(
    `ClusterRollout ${name} ${phase}`,
    async () => {
      const s = await rolloutStatus(name);
      // NOTE: a halt nobody expected does not end by itself: fail at once, with what it says.
      if (opts.failOnHalt && s.phase === 'Halted')
        assert.fail(`ClusterRollout ${name} halted: ${describeRollout(s)}${diagnostics()}`);
      return { ...(s.phase === phase ? { value: s } : {}), observed: describeRollout(s) };
    },
    timeoutMs,
  );
}

/** Generations of each Cluster's Cluster, KubeadmControlPlane and MachineDeployments, and its Machines' uids. */
async function fingerprint(cluster: string): Promise<string[]> {
  const byCluster = `cluster.x-k8s.io/cluster-name=${cluster}`;
  const out: string[] = [];
  const c = await getObject(mgmt.kube, clusterRef(cluster));
  out.push(`Cluster ${cluster} generation ${c.metadata.generation ?? 0}`);
  for (const [apiVersion, kind] of [
    ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
    [capi, 'MachineDeployment'],
    [capi, 'Machine'],
  ] as const) {
    for (const o of (await listObjects(mgmt.kube, { apiVersion, kind, namespace: ns, labelSelector: byCluster })).items)
      out.push(
        kind === 'Machine'
          ? `Machine ${o.metadata.name ?? ''} ${o.metadata.uid ?? ''}`
          : `${kind} ${o.metadata.name ?? ''} generation ${o.metadata.generation ?? 0}`,
      );
  }
  return out.sort();
}

function rolloutWritesTo(clusters: readonly string[], since: Date): string[] {
  const out: string[] = [];
  audit?.forEachEvent((e: AuditEvent) => {
    if (
      e.objectRef?.resource === 'clusters' &&
      clusters.includes(e.objectRef.name ?? '') &&
      e.requestURI.includes(`fieldManager=${rolloutManager}`) &&
      new Date(e.requestReceivedTimestamp ?? 0) >= since
    )
      out.push(`${e.verb} ${e.requestURI} → ${e.responseStatus?.code ?? '?'}`);
  });
  return out;
}

async function mdOf(cluster: string): Promise<KubeObject> {
  const [md] = (
    await listObjects(mgmt.kube, {
      apiVersion: capi,
      kind: 'MachineDeployment',
      namespace: ns,
      labelSelector: `cluster.x-k8s.io/cluster-name=${cluster}`,
    })
  ).items;
  assert.ok(md, `${cluster} has a MachineDeployment`);
  return md;
}

// ----- a rollout's result against a direct change

const onClass = (name: string) => (c: KubeObject) =>
  (c['spec'] as { topology: { classRef: { name: string } } }).topology.classRef.name === name;

async function getReferenced(
  ref: { apiGroup?: string; kind?: string; name?: string } | undefined,
): Promise<KubeObject> {
  assert.ok(ref?.apiGroup && ref.kind && ref.name, `a reference: ${JSON.stringify(ref)}`);
  // NOTE: every provider kind of the in-memory class is served at v1beta2 (Cluster API v1.14).
  return getObject(mgmt.kube, { apiVersion: `${ref.apiGroup}/v1beta2`, kind: ref.kind, namespace: ns, name: ref.name });
}

/** `value` without the keys the infrastructure provider fills per Cluster (its endpoint). */
function withoutEndpoints(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEndpoints);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'controlPlaneEndpoint')
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, withoutEndpoints(v)]),
  );
}

/**
 * What the topology manages for a Cluster: its spec.topology, and the specs of its infrastructure cluster, control
 * plane, control plane machine template, each MachineDeployment with its bootstrap and infrastructure templates, and
 * its MachineHealthChecks. The Cluster's own name and every name made from it become `<name>`, so two Clusters that
 * got the same change compare equal.
 */
async function topologyState(cluster: string): Promise<unknown> {
  const byCluster = `cluster.x-k8s.io/cluster-name=${cluster}`;
  type Ref = { apiGroup?: string; kind?: string; name?: string };
  const c = await getObject(mgmt.kube, clusterRef(cluster));
  const spec = c['spec'] as { infrastructureRef?: Ref; controlPlaneRef?: Ref };
  const cp = await getReferenced(spec.controlPlaneRef);
  const cpSpec = cp['spec'] as { machineTemplate?: { spec?: { infrastructureRef?: Ref } } };
  const state: Record<string, unknown> = {
    Cluster: c['spec'],
    InfrastructureCluster: (await getReferenced(spec.infrastructureRef))['spec'],
    ControlPlane: cp['spec'],
    ControlPlaneMachineTemplate: (await getReferenced(cpSpec.machineTemplate?.spec?.infrastructureRef))['spec'],
  };
  const mds = await listObjects(mgmt.kube, {
    apiVersion: capi,
    kind: 'MachineDeployment',
    namespace: ns,
    labelSelector: byCluster,
  });
  for (const md of mds.items) {
    const topologyName = md.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] ?? '?';
    const template = (
      md['spec'] as { template: { spec: { bootstrap?: { configRef?: Ref }; infrastructureRef?: Ref } } }
    ).template.spec;
    state[`MachineDeployment/${topologyName}`] = md['spec'];
    state[`MachineDeployment/${topologyName}/bootstrap`] = (await getReferenced(template.bootstrap?.configRef))['spec'];
    state[`MachineDeployment/${topologyName}/infrastructure`] = (await getReferenced(template.infrastructureRef))[
      'spec'
    ];
  }
  const mhcs = await listObjects(mgmt.kube, {
    apiVersion: capi,
    kind: 'MachineHealthCheck',
    namespace: ns,
    labelSelector: byCluster,
  });
  for (const mhc of mhcs.items) {
    // NOTE: a health check is told by what it selects (its own labels do not say which topology it serves).
    const selector = (mhc['spec'] as { selector?: { matchLabels?: Record<string, string> } }).selector;
    const target = selector?.matchLabels?.['topology.cluster.x-k8s.io/deployment-name'] ?? 'ControlPlane';
    state[`MachineHealthCheck/${target}`] = mhc['spec'];
  }
  const text = JSON.stringify(withoutEndpoints(state)).replace(new RegExp(`${cluster}[a-z0-9.-]*`, 'g'), '<name>');
  return JSON.parse(text) as unknown;
}

/** Every fleet Cluster's topology-managed state is the directly changed Cluster's. */
async function assertSameAsDirect(what: string): Promise<void> {
  const reference = await topologyState(direct);
  const differing: string[] = [];
  for (const name of names) {
    try {
      assert.deepEqual(await topologyState(name), reference);
    } catch (err) {
      differing.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  console.log(`${what}: ${names.length - differing.length} of ${names.length} Clusters equal ${direct}'s state`);
  assert.deepEqual(differing, [], `${what}: Clusters whose state differs from ${direct}'s (changed directly)`);
}

/** Sets `spec.topology` fields of the directly changed Cluster, as a user would (server-side apply, own manager). */
async function changeDirectly(topology: { classRef?: { name: string }; version?: string }): Promise<void> {
  const c = await getObject(mgmt.kube, clusterRef(direct));
  const current = (c['spec'] as { topology: Record<string, unknown> }).topology;
  await patchObject(
    mgmt.kube,
    clusterRef(direct),
    { spec: { topology: { ...current, ...topology } } },
    {
      fieldManager: 'e2e-user',
    },
  );
}

describe('fleet rollouts beside upstream Cluster API (in-memory backend)', { timeout: 75 * 60_000 }, () => {
  before(async () => {
    const started = Date.now();
    audit = createAuditLog();
    mgmt = await startUpstreamManagementCluster({
      name: 'fleet',
      extraApiServerArgs: audit.apiServerArgs,
      extraCrds: ourCrds().filter((crd) => crd.metadata.name === 'clusterrollouts.management.cluster.x-k8s.io'),
      upstream: { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) },
    });
    product = await startProduct(mgmt, ['topology', 'rollout']);
    timings.push(['start upstream managers and capi-serverless', Date.now() - started]);
  });
  after(async () => {
    await product?.stop();
    await mgmt?.stop();
    audit?.remove();
    console.log(
      `fleet e2e timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`,
    );
  });

  test('8 Clusters on the in-memory ClusterClass run their Machines', async () => {
    await timed('create 8 Clusters: Machines Running', async () => {
      await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
      const objects = computeInMemoryObjects({ namespace: ns, clusterName: 'c01', kubernetesVersion: fromVersion });
      for (const obj of objects.clusterClass) await applyObject(mgmt.kube, obj, user);
      // The class to rebase to: the same, but md class default-worker's bootstrap template has one more command.
      const worker = objects.clusterClass.find((o) => o.kind === 'KubeadmConfigTemplate');
      const cc = objects.clusterClass.find((o) => o.kind === 'ClusterClass');
      assert.ok(worker && cc);
      const v2Worker = structuredClone(worker);
      v2Worker.metadata = { namespace: ns, name: newWorkerBootstrap };
      const v2Spec = v2Worker['spec'] as { template: { spec: { preKubeadmCommands?: string[] } } };
      v2Spec.template.spec.preKubeadmCommands = [...(v2Spec.template.spec.preKubeadmCommands ?? []), 'echo v2'];
      await applyObject(mgmt.kube, v2Worker, user);
      const v2 = structuredClone(cc);
      v2.metadata = { namespace: ns, name: newClass };
      const md = (
        v2['spec'] as {
          workers: { machineDeployments: { class: string; bootstrap: { templateRef: { name: string } } }[] };
        }
      ).workers.machineDeployments.find((m) => m.class === 'default-worker');
      assert.ok(md);
      md.bootstrap.templateRef.name = newWorkerBootstrap;
      await applyObject(mgmt.kube, v2, user);
      await waitForClassVariables('in-memory');
      await waitForClassVariables(newClass);
      for (const name of [...names, direct]) {
        const { cluster } = computeInMemoryObjects({
          namespace: ns,
          clusterName: name,
          kubernetesVersion: fromVersion,
        });
        cluster.metadata.labels = { ...cluster.metadata.labels, env: name === direct ? 'direct' : 'fleet' };
        await applyObject(mgmt.kube, cluster, user);
      }
      await waitForFleet(fromVersion, 15 * 60_000, undefined, [...names, direct]);
    });
  });

  describe('a rebase to the new class in waves of 1, 3 and the rest; c03 cannot get up to date', () => {
    let forecast: Counts;
    let before_: Map<string, MachineInfo>;
    let sampler: ReturnType<typeof startMachineSampler>;
    const untouched = ['c05', 'c06', 'c07', 'c08'];
    const fingerprints: Record<string, string[]> = {};
    let started: Date;

    test('plan forecasts one worker Machine per Cluster and no control plane Machine', async () => {
      await timed('plan the rebase', async () => {
        const { forecast: f } = await plan(['--rebase-to', newClass, '-l', 'env=fleet']);
        forecast = forecastCounts(f);
        assert.deepEqual(
          forecast,
          Object.fromEntries(names.map((n) => [n, { 'MachineDeployment/md-0': 1 }])),
          'the forecast itself',
        );
      });
    });

    test('the rollout halts at wave 2 naming c03; Clusters not reached are not written', async () => {
      await timed('rebase: canary, wave 2, halt on c03', async () => {
        // NOTE: upstream's MachineDeployment controller does nothing for a paused MachineDeployment: c03's new
        // template is never rolled out, its Machines are not up to date (MachineSet status), the gate times out.
        await patchObject(
          mgmt.kube,
          { apiVersion: capi, kind: 'MachineDeployment', namespace: ns, name: (await mdOf('c03')).metadata.name ?? '' },
          { metadata: { annotations: { [pausedAnnotation]: 'true' } } },
          { fieldManager: 'e2e-user' },
        );
        for (const name of untouched) fingerprints[name] = await fingerprint(name);
        before_ = await snapshotMachines();
        sampler = startMachineSampler();
        started = new Date();
        await createObject(
          mgmt.kube,
          {
            ...rolloutRef('rebase'),
            metadata: { namespace: ns, name: 'rebase' },
            spec: {
              clusterSelector: { matchLabels: { env: 'fleet' } },
              change: { classRef: { name: newClass } },
              waves: [{ name: 'canary', clusters: 1 }, { clusters: 3 }, { clusters: 'rest' }],
              maxConcurrent: 2,
              bakeTime: '15s',
              healthGate: { timeout: '3m' },
            },
          },
          user,
        );
        await changeDirectly({ classRef: { name: newClass } });
        await eventually(
          'the canary wave succeeded',
          async () => {
            const s = await rolloutStatus('rebase');
            const ok = s.waves?.[0]?.state === 'Succeeded';
            return { ...(ok ? { value: true } : {}), observed: describeRollout(s) };
          },
          6 * 60_000,
        );
        const halted = await waitForPhase('rebase', 'Halted', 10 * 60_000);
        printKubectl('get', 'clusterrollouts', '-o', 'wide');
        const progressing = halted.conditions?.find((c) => c.type === 'Progressing');
        console.log(`Progressing: ${progressing?.reason ?? ''}: ${progressing?.message ?? ''}`);
        assert.equal(progressing?.reason, 'WaveFailed');
        assert.match(progressing?.message ?? '', /^wave-2 failed its health gate: c03 \(HealthGateTimeout: /);
        const c03 = halted.clusters?.find((c) => c.name === 'c03');
        assert.equal(c03?.state, 'Failed');
        assert.equal(c03?.reason, 'HealthGateTimeout');
        assert.equal(halted.clusters?.find((c) => c.name === 'c01')?.state, 'Healthy');
        assert.equal(halted.clusters?.find((c) => c.name === 'c02')?.state, 'Healthy');
        for (const name of untouched) assert.equal(halted.clusters?.find((c) => c.name === name)?.state, 'Pending');
        const healthGate = halted.conditions?.find((c) => c.type === 'HealthGate');
        assert.equal(healthGate?.status, 'False');
        assert.match(healthGate?.message ?? '', /c03/);
      });
      // The Clusters not reached: never written by the rollout (audit log), nothing of theirs changed spec or rolled.
      assert.deepEqual(rolloutWritesTo(untouched, started), [], 'rollout writes to Clusters not reached');
      for (const name of untouched) assert.deepEqual(await fingerprint(name), fingerprints[name], name);
      const reached = rolloutWritesTo(['c01', 'c02', 'c03'], started);
      assert.ok(reached.length >= 3, `the rollout wrote c01–c03: ${reached.join('\n')}`);
      for (const name of untouched) {
        const c = await getObject(mgmt.kube, clusterRef(name));
        const classRef = (c['spec'] as { topology: { classRef: { name: string } } }).topology.classRef;
        assert.equal(classRef.name, 'in-memory', name);
        const managers = ((c.metadata['managedFields'] ?? []) as { manager: string }[]).map((f) => f.manager);
        assert.ok(
          !managers.includes(rolloutManager),
          `${name} has no ${rolloutManager} field manager: ${managers.join(', ')}`,
        );
      }
    });

    test('after the fix, spec.retry resumes it and it completes', async () => {
      await timed('rebase: fix c03, retry, complete', async () => {
        await patchObject(
          mgmt.kube,
          { apiVersion: capi, kind: 'MachineDeployment', namespace: ns, name: (await mdOf('c03')).metadata.name ?? '' },
          { metadata: { annotations: { [pausedAnnotation]: null } } },
          { fieldManager: 'e2e-user' },
        );
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        assert.equal((await rolloutStatus('rebase')).phase, 'Halted', 'fixing the Cluster alone does not resume');
        await patchObject(mgmt.kube, rolloutRef('rebase'), { spec: { retry: 1 } }, { fieldManager: 'e2e-user' });
        const done = await waitForPhase('rebase', 'Completed', 15 * 60_000);
        assert.equal(done.progress, '8/8');
        await waitForFleet(fromVersion, 5 * 60_000, onClass(newClass), [...names, direct]);
        printKubectl('get', 'clusterrollouts', '-o', 'wide');
        printKubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.kind=ClusterRollout,involvedObject.name=rebase',
          '--sort-by',
          '.lastTimestamp',
          '-o',
          'custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message',
        );
      });
    });

    test("the Machines upstream's managers replaced are exactly the forecast", async () => {
      if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
      await sampler.stop();
      const { deleted, created } = replacedMachines(before_, sampler.seen, await listMachines());
      console.log(
        `rebase: forecast ${JSON.stringify(forecast)}\n  deleted ${JSON.stringify(deleted)}\n  created ${JSON.stringify(created)}`,
      );
      assert.deepEqual(deleted, forecast, 'Machines deleted, by Cluster and owner');
      assert.deepEqual(created, forecast, 'Machines created, by Cluster and owner');
    });

    test(`every Cluster ends as ${direct}, rebased directly`, async () => {
      if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
      await assertSameAsDirect('rebase');
    });
  });

  describe('a version upgrade in waves of 1 and the rest', () => {
    let forecast: Counts;
    let before_: Map<string, MachineInfo>;
    let sampler: ReturnType<typeof startMachineSampler>;

    test('plan forecasts the control plane and the workers of every Cluster', async () => {
      await timed('plan the upgrade', async () => {
        const { forecast: f } = await plan(['--version', toVersion, '-l', 'env=fleet']);
        forecast = forecastCounts(f);
        assert.deepEqual(
          forecast,
          Object.fromEntries(names.map((n) => [n, { ControlPlane: 1, 'MachineDeployment/md-0': 1 }])),
          'the forecast itself',
        );
      });
    });

    test('the rollout completes', async () => {
      await timed('upgrade rollout', async () => {
        before_ = await snapshotMachines();
        sampler = startMachineSampler();
        await createObject(
          mgmt.kube,
          {
            ...rolloutRef('v137'),
            metadata: { namespace: ns, name: 'v137' },
            spec: {
              clusterSelector: { matchLabels: { env: 'fleet' } },
              change: { version: toVersion },
              waves: [{ name: 'canary', clusters: 1 }, { clusters: 'rest' }],
              maxConcurrent: 4,
              bakeTime: '10s',
              healthGate: { timeout: '10m' },
            },
          },
          user,
        );
        await changeDirectly({ version: toVersion });
        const done = await waitForPhase('v137', 'Completed', 25 * 60_000, { failOnHalt: true });
        assert.equal(done.progress, '8/8');
        await waitForFleet(toVersion, 5 * 60_000, undefined, [...names, direct]);
        printKubectl('get', 'clusterrollouts', '-o', 'wide');
        printKubectl('get', 'clusters');
      });
    });

    test("the Machines upstream's managers replaced are exactly the forecast", async () => {
      if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
      await sampler.stop();
      const { deleted, created } = replacedMachines(before_, sampler.seen, await listMachines());
      console.log(
        `upgrade: forecast ${JSON.stringify(forecast)}\n  deleted ${JSON.stringify(deleted)}\n  created ${JSON.stringify(created)}`,
      );
      assert.deepEqual(deleted, forecast, 'Machines deleted, by Cluster and owner');
      assert.deepEqual(created, forecast, 'Machines created, by Cluster and owner');
    });

    test(`every Cluster ends as ${direct}, upgraded directly`, async () => {
      if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
      await assertSameAsDirect('version');
    });
  });

  describe('a change of the class itself, applied as upstream applies it (every Cluster of the class at once)', () => {
    let forecast: Counts;
    let before_: Map<string, MachineInfo>;
    let sampler: ReturnType<typeof startMachineSampler>;
    let dir: string;
    const changed: KubeObject[] = [];

    test('plan -f the changed class forecasts one worker Machine per Cluster', async () => {
      await timed('plan the class change', async () => {
        const strip = (o: KubeObject): KubeObject => ({
          apiVersion: o.apiVersion,
          kind: o.kind,
          metadata: { namespace: ns, name: o.metadata.name ?? '' },
          spec: o['spec'],
        });
        const v2Worker = strip(
          await getObject(mgmt.kube, {
            apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
            kind: 'KubeadmConfigTemplate',
            namespace: ns,
            name: newWorkerBootstrap,
          }),
        );
        const v3Worker = structuredClone(v2Worker);
        v3Worker.metadata = { namespace: ns, name: v3WorkerBootstrap };
        const v3Spec = v3Worker['spec'] as { template: { spec: { preKubeadmCommands?: string[] } } };
        v3Spec.template.spec.preKubeadmCommands = [...(v3Spec.template.spec.preKubeadmCommands ?? []), 'echo v3'];
        const cc = strip(
          await getObject(mgmt.kube, { apiVersion: capi, kind: 'ClusterClass', namespace: ns, name: newClass }),
        );
        const md = (
          cc['spec'] as {
            workers: { machineDeployments: { class: string; bootstrap: { templateRef: { name: string } } }[] };
          }
        ).workers.machineDeployments.find((m) => m.class === 'default-worker');
        assert.ok(md);
        md.bootstrap.templateRef.name = v3WorkerBootstrap;
        changed.push(v3Worker, cc);
        dir = mkdtempSync(join(tmpdir(), 'fleet-class-'));
        writeFileSync(join(dir, 'new-class.yaml'), changed.map((o) => stringifyYaml(o)).join('---\n'));
        const { forecast: f } = await plan(['-f', join(dir, 'new-class.yaml'), '-l', 'env=fleet']);
        forecast = forecastCounts(f);
        assert.deepEqual(
          forecast,
          Object.fromEntries(names.map((n) => [n, { 'MachineDeployment/md-0': 1 }])),
          'the forecast itself',
        );
      });
    });

    test('applied, upstream rolls every Cluster of the class', async () => {
      await timed('class change: every Cluster rolls', async () => {
        before_ = await snapshotMachines();
        sampler = startMachineSampler();
        for (const o of changed) await applyObject(mgmt.kube, o, user);
        const oldWorkers = new Set([...before_].filter(([, m]) => m.owner !== 'ControlPlane').map(([uid]) => uid));
        await eventually(
          'every Cluster with a new worker Machine Running',
          async () => {
            const machines = await listMachines();
            const waiting = [...names, direct].filter((name) => {
              const own = machines.filter((m) => infoOf(m).cluster === name && !m.metadata.deletionTimestamp);
              return !(
                own.length === 2 &&
                own.every((m) => (m['status'] as { phase?: string } | undefined)?.phase === 'Running') &&
                own.some((m) => machineOwner(m) !== 'ControlPlane' && !oldWorkers.has(m.metadata.uid ?? ''))
              );
            });
            return { ...(waiting.length === 0 ? { value: true } : {}), observed: `waiting: ${waiting.join(', ')}` };
          },
          15 * 60_000,
        );
        await waitForFleet(toVersion, 5 * 60_000, undefined, [...names, direct]);
      });
    });

    test("the Machines upstream's managers replaced are exactly the forecast", async () => {
      if (failedStep) assert.fail(`not run: an earlier step failed (${failedStep})`);
      await sampler.stop();
      rmSync(dir, { recursive: true, force: true });
      const { deleted, created } = replacedMachines(before_, sampler.seen, await listMachines());
      console.log(
        `class change: forecast ${JSON.stringify(forecast)}\n  deleted ${JSON.stringify(deleted)}\n  created ${JSON.stringify(created)}`,
      );
      assert.deepEqual(deleted, forecast, 'Machines deleted, by Cluster and owner');
      assert.deepEqual(created, forecast, 'Machines created, by Cluster and owner');
      await assertSameAsDirect('class change');
    });
  });
});
