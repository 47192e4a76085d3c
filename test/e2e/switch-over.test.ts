// Switching a fleet from upstream's topology controller to capi-serverless, end to end: upstream's managers run alone
// ('upstream-only': ClusterTopology on everywhere, no handoff) and upstream's topology controller stamps its own
// in-memory ClusterClass Cluster (test/e2e/in-memory-class.ts) until its Machines run; then the managers restart in the
// handoff configuration and capi-serverless starts as deployed (test/e2e/product.ts). Its first passes must adopt
// what upstream created: nothing recreated (same uids), nothing rolled out (MachineSets, Machines, MachineDeployment
// revisions and template references unchanged), no new or orphaned object, TopologyReconciled True; then a scale of
// the MachineDeployment topology is carried out by capi-serverless alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import {
  computeGatesForAllManagers,
  startUpstreamCapi,
  startUpstreamManagementCluster,
  upstreamManagerUsers,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { computeInMemoryObjects } from './in-memory-class.ts';
import { startProduct, type RunningProduct } from './product.ts';

const ns = 'switch-over';
const clusterName = 'in-memory-upstream';
const version = 'v1.36.4';
const user = { fieldManager: 'e2e-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const clusterRef = { apiVersion: capi, kind: 'Cluster', namespace: ns, name: clusterName };
const revisionAnnotation = 'machinedeployment.clusters.x-k8s.io/revision';
const gates = computeGatesForAllManagers({ MachineTaintPropagation: true });

type Condition = { type: string; status: string; reason?: string; message?: string; observedGeneration?: number };

/** Every kind the topology stamps or the core controllers derive from it, listed in the namespace (labelled or not). */
const kinds = [
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevCluster'],
  ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevMachineTemplate'],
  ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate'],
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevMachine'],
  ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfig'],
  [capi, 'MachineDeployment'],
  [capi, 'MachineSet'],
  [capi, 'Machine'],
  [capi, 'MachineHealthCheck'],
] as const;

let mgmt: TestCluster & { readonly upstream: UpstreamCapi };
let handoff: UpstreamCapi | undefined;
let product: RunningProduct | undefined;
let audit: AuditLog | undefined;
const timings: [string, number][] = [];

function conditionOf(obj: KubeObject, type: string): Condition | undefined {
  return ((obj['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
}

function diagnostics(): string {
  const logs = (handoff ?? mgmt?.upstream)?.logs() ?? '';
  return (
    `\n----- capi-serverless passes (last 120)\n${product?.recentPasses(120) ?? ''}` +
    `\n----- upstream managers (last 200 lines)\n${logs.split('\n').slice(-200).join('\n')}`
  );
}

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

async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings.push([step, Date.now() - started]);
  }
}

const isControlPlane = (m: KubeObject) => 'cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {});
const phaseOf = (m: KubeObject) => (m['status'] as { phase?: string } | undefined)?.phase;

async function waitForMachines(cp: number, workers: number, timeoutMs = 240_000): Promise<KubeObject[]> {
  return eventually(
    `${cp} control-plane and ${workers} worker Machines Running`,
    async () => {
      const all = (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'Machine', namespace: ns })).items;
      const ok =
        all.filter(isControlPlane).length === cp &&
        all.filter((m) => !isControlPlane(m)).length === workers &&
        all.every((m) => phaseOf(m) === 'Running' && !m.metadata.deletionTimestamp);
      return {
        ...(ok ? { value: all } : {}),
        observed: all.map((m) => `${m.metadata.name}(${phaseOf(m)})`).join(' '),
      };
    },
    timeoutMs,
  );
}

type Snapshot = {
  /** `Kind/name` → uid of every object of `kinds` in the namespace. */
  readonly uids: Record<string, string>;
  /** Per MachineDeployment: its revision and the templates its Machines are created from. */
  readonly machineDeployments: Record<string, unknown>;
  /** The KubeadmControlPlane's machine template reference. */
  readonly controlPlane: unknown;
};

async function takeSnapshot(): Promise<Snapshot> {
  const uids: Record<string, string> = {};
  const machineDeployments: Record<string, unknown> = {};
  let controlPlane: unknown;
  for (const [apiVersion, kind] of kinds) {
    for (const o of (await listObjects(mgmt.kube, { apiVersion, kind, namespace: ns })).items) {
      uids[`${kind}/${o.metadata.name ?? ''}`] = o.metadata.uid ?? '';
      const spec = o['spec'] as Record<string, unknown>;
      if (kind === 'MachineDeployment') {
        const template = spec['template'] as { spec: Record<string, unknown> };
        machineDeployments[o.metadata.name ?? ''] = {
          revision: o.metadata.annotations?.[revisionAnnotation],
          infrastructureRef: template.spec['infrastructureRef'],
          bootstrap: template.spec['bootstrap'],
          version: template.spec['version'],
        };
      }
      if (kind === 'KubeadmControlPlane') controlPlane = spec['machineTemplate'];
    }
  }
  return { uids, machineDeployments, controlPlane };
}

async function applyReplicas(replicas: number): Promise<void> {
  const { cluster } = computeInMemoryObjects({ namespace: ns, clusterName, kubernetesVersion: version });
  const desired = structuredClone(cluster);
  const topology = (desired['spec'] as { topology: { workers: { machineDeployments: { replicas?: number }[] } } })
    .topology;
  const md = topology.workers.machineDeployments[0];
  if (!md) throw new Error('the in-memory Cluster has no MachineDeployment topology');
  md.replicas = replicas;
  await applyObject(mgmt.kube, desired, user);
}

describe("switching a fleet from upstream's topology controller to capi-serverless", { timeout: 20 * 60_000 }, () => {
  let before_: Snapshot;

  before(async () => {
    const started = Date.now();
    audit = createAuditLog();
    mgmt = await startUpstreamManagementCluster({
      name: 'switch-over',
      extraApiServerArgs: audit.apiServerArgs,
      upstream: { mode: 'upstream-only', featureGates: gates },
    });
    timings.push(['start upstream managers (upstream-only)', Date.now() - started]);
  });
  after(async () => {
    await product?.stop();
    await handoff?.stop();
    await mgmt?.stop();
    audit?.remove();
    console.log(
      `switch-over timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`,
    );
  });

  test("upstream's topology controller stamps the in-memory Cluster until its Machines run", async () => {
    await timed('upstream stamps the Cluster, Machines Running', async () => {
      await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
      const { clusterClass, cluster } = computeInMemoryObjects({
        namespace: ns,
        clusterName,
        kubernetesVersion: version,
      });
      for (const obj of clusterClass) await applyObject(mgmt.kube, obj, user);
      await applyObject(mgmt.kube, cluster, user);
      await eventually(
        'TopologyReconciled True and the control plane available (upstream)',
        async () => {
          const c = await getObject(mgmt.kube, clusterRef);
          const ok =
            conditionOf(c, 'TopologyReconciled')?.status === 'True' &&
            conditionOf(c, 'ControlPlaneAvailable')?.status === 'True';
          return { ...(ok ? { value: c } : {}), observed: JSON.stringify(c['status'] ?? {}) };
        },
        240_000,
      );
      await waitForMachines(1, 1);
    });
    before_ = await takeSnapshot();
    assert.ok(Object.keys(before_.machineDeployments).length > 0, JSON.stringify(before_.uids));
  });

  test('after the switch, capi-serverless adopts everything: nothing recreated, rolled out or left over', async () => {
    await timed('switch: managers in the handoff configuration, capi-serverless started', async () => {
      const portLock = await mgmt.upstream.stopKeepingPortLock();
      handoff = await startUpstreamCapi(mgmt, {
        mode: 'beside-capi-serverless',
        featureGates: gates,
        ...(portLock ? { portLock } : {}),
      });
      product = await startProduct(mgmt, ['topology', 'addons']);
    });
    const switched = new Date();
    await timed('capi-serverless reconciles the adopted Cluster', async () => {
      await eventually(
        'a capi-serverless topology pass over the Cluster and TopologyReconciled True at its generation',
        async () => {
          const c = await getObject(mgmt.kube, clusterRef);
          const t = conditionOf(c, 'TopologyReconciled');
          const passed = (product?.passLines ?? []).some((l) => l.includes('topology') && l.includes(clusterName));
          const ok = passed && t?.status === 'True';
          return { ...(ok ? { value: c } : {}), observed: JSON.stringify(t ?? {}) };
        },
        120_000,
      );
      // NOTE: give a rollout the time to show (a new MachineSet, template or Machine) before comparing.
      await new Promise((r) => setTimeout(r, 20_000));
    });
    const after_ = await takeSnapshot();
    // NOTE: the pass lines name a rotation's changed spec paths.
    assert.deepEqual(
      after_.machineDeployments,
      before_.machineDeployments,
      `MachineDeployments rolled out${diagnostics()}`,
    );
    assert.deepEqual(after_.controlPlane, before_.controlPlane, 'the control plane rolled out');
    assert.deepEqual(after_.uids, before_.uids, 'objects recreated, added or removed');
    const c = await getObject(mgmt.kube, clusterRef);
    assert.equal(conditionOf(c, 'TopologyReconciled')?.status, 'True', JSON.stringify(c['status']));
    const writes = (audit?.events() ?? []).filter(
      (e) =>
        e.requestURI.includes('fieldManager=capi-topology') &&
        (e.responseStatus?.code ?? 0) < 300 &&
        new Date(e.requestReceivedTimestamp ?? 0) > switched,
    );
    const upstreamUsers: string[] = Object.values(upstreamManagerUsers);
    assert.deepEqual(
      writes.filter((e) => upstreamUsers.includes(e.user.username)).map((e) => e.requestURI),
      [],
      'upstream wrote as capi-topology after the switch',
    );
    console.log(
      `capi-serverless topology writes after the switch:\n${writes.map((e) => `  ${e.verb} ${e.requestURI.split('?')[0] ?? ''}`).join('\n')}`,
    );
  });

  test('a scale of the MachineDeployment topology is carried out by capi-serverless', async () => {
    const started = new Date();
    await timed('scale the MachineDeployment topology to 2', async () => {
      await applyReplicas(2);
      await waitForMachines(1, 2);
    });
    const writers = new Set(
      (audit?.events() ?? [])
        .filter(
          (e) =>
            e.requestURI.includes('fieldManager=capi-topology') &&
            e.objectRef?.resource === 'machinedeployments' &&
            (e.responseStatus?.code ?? 0) < 300 &&
            new Date(e.requestReceivedTimestamp ?? 0) > started,
        )
        .map((e) => e.user.username),
    );
    const upstreamUsers: string[] = Object.values(upstreamManagerUsers);
    assert.equal(writers.size, 1, `MachineDeployment writers: ${[...writers].join()}`);
    assert.ok(![...writers].some((u) => upstreamUsers.includes(u)), [...writers].join());
  });
});
