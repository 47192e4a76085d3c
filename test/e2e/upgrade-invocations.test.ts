// What one Cluster's version upgrade costs in invocations, with upstream's managers (handoff configuration) and
// capi-serverless as deployed (forwarder → local bus → the topology function, DynamoDB Local) and no tick. While the
// Cluster upgrades it is not settled, so the forwarder sends its control plane's and MachineDeployment's status
// changes; it sends only those that can change what the waiting pass decides (the upgrade and scaling gates), so the
// upgrade costs about one invocation per step: the Cluster change that starts it, the control plane's rollout
// finishing, the workers' rollout finishing, and the few writes of the pass's own that the forwarder cannot tell from
// someone else's. The upgrade still takes the control plane first and the workers after it, on events alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { computeGatesForAllManagers, startUpstreamManagementCluster } from '#test/support/harness/upstream-capi.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { computeInMemoryObjects } from './in-memory-class.ts';
import { startProduct, type RunningProduct } from './product.ts';

const ns = 'upgrade-cost';
const clusterName = 'in-memory-1';
const fromVersion = 'v1.36.4';
const toVersion = 'v1.37.0';
const user = { fieldManager: 'e2e-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const clusterRef = { apiVersion: capi, kind: 'Cluster', namespace: ns, name: clusterName };
const byCluster = `cluster.x-k8s.io/cluster-name=${clusterName}`;
/**
 * The topology invocations one upgrade (one control-plane and one worker Machine replaced) may cost: the Cluster
 * change, the control plane's upgrade finishing, the MachineDeployment's rollout finishing, and the events of the
 * pass's own writes of the control plane and the MachineDeployment (the forwarder cannot tell them from someone
 * else's), with some room for a loaded machine splitting a write's two watch events. Measured 2026-11-28 (upstream
 * v1.14.2 managers, kube-apiserver v1.34): 6, where the forwarder sending every replica counter cost 23.
 */
const maxUpgradeInvocations = 8;
/**
 * One-time schedules the upgrade may fire: while it waits only on routed status changes the pass requeues as a long
 * safety net (5 min, longer than the upgrade), so none fires during the upgrade; the schedule the last requeue asked
 * for is deleted by the pass that sees the upgrade converged (it no longer asks to run again), so none fires after
 * it either. Measured 2026-11-28 (upstream v1.14.2 managers, kube-apiserver v1.34): 3 fired with a 30 s requeue, 1
 * with the 5-minute safety net before its schedule was deleted on success.
 */
const maxUpgradeWakeUps = 0;

type Condition = { type: string; status: string; reason?: string; message?: string; observedGeneration?: number };

let mgmt: TestCluster & { upstream: { logs(): string } };
let product: RunningProduct;

const isControlPlane = (m: KubeObject) => 'cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {});
const versionOf = (m: KubeObject) => (m['spec'] as { version?: string }).version;
const phaseOf = (m: KubeObject) => (m['status'] as { phase?: string } | undefined)?.phase;
const describeMachines = (ms: readonly KubeObject[]) =>
  ms.map((m) => `${m.metadata.name}(${isControlPlane(m) ? 'cp' : 'worker'},${versionOf(m)},${phaseOf(m)})`).join(' ');

async function machines(): Promise<KubeObject[]> {
  return (await listObjects(mgmt.kube, { apiVersion: capi, kind: 'Machine', namespace: ns, labelSelector: byCluster }))
    .items;
}

async function topologyReconciled(): Promise<{ condition: Condition | undefined; generation: number | undefined }> {
  const cluster = await getObject(mgmt.kube, clusterRef);
  const conditions = (cluster['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return {
    condition: conditions.find((c) => c.type === 'TopologyReconciled'),
    generation: cluster.metadata.generation,
  };
}

/** Polls every second until `fn` says done; fails with the last observation, the passes and upstream's logs. */
async function eventually(what: string, fn: () => Promise<{ done: boolean; observed: string }>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fn();
    if (r.done) return;
    if (Date.now() > deadline)
      assert.fail(
        `${what}: not reached in ${timeoutMs / 1000} s; last seen: ${r.observed}` +
          `\n----- passes\n${product.recentPasses(120)}` +
          `\n----- upstream managers\n${mgmt.upstream.logs().split('\n').slice(-150).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Waits for 1 control-plane and 1 worker Machine Running at `version` and TopologyReconciled True at its generation. */
async function waitConverged(version: string, timeoutMs: number, watch?: (all: KubeObject[]) => void) {
  await eventually(
    `1 control-plane and 1 worker Machine Running at ${version}, TopologyReconciled True`,
    async () => {
      const all = await machines();
      watch?.(all);
      const { condition, generation } = await topologyReconciled();
      const done =
        all.filter(isControlPlane).length === 1 &&
        all.filter((m) => !isControlPlane(m)).length === 1 &&
        all.every((m) => phaseOf(m) === 'Running' && versionOf(m) === version && !m.metadata.deletionTimestamp) &&
        condition?.status === 'True' &&
        condition.observedGeneration === generation;
      return { done, observed: `${describeMachines(all)}; TopologyReconciled ${JSON.stringify(condition)}` };
    },
    timeoutMs,
  );
}

/** Waits until no topology invocation came for `quietMs` and the forwarder has nothing pending. */
async function waitQuiet(quietMs: number, timeoutMs: number) {
  await eventually(
    `no topology invocation for ${quietMs / 1000} s`,
    async () => {
      await product.bus.drain();
      const last = Math.max(0, ...product.invocations.map((i) => i.at));
      return {
        done: Date.now() - last >= quietMs && product.forwarder.outbox.pending() === 0,
        observed: `last invocation ${Date.now() - last} ms ago`,
      };
    },
    timeoutMs,
  );
}

const sentByKind = () =>
  Object.fromEntries([...product.forwarder.outbox.stats.byKind].map(([kind, k]) => [kind, k.sent]));

describe("one Cluster's version upgrade costs about one invocation per step", { timeout: 20 * 60_000 }, () => {
  before(async () => {
    mgmt = await startUpstreamManagementCluster({
      name: 'upgrade-cost',
      upstream: { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) },
    });
    product = await startProduct(mgmt, ['topology'], { tickMs: 0, wakeUps: true });
  });
  after(async () => {
    await product?.stop();
    await mgmt?.stop();
  });

  test('an upgrade from the control plane to the workers, on events alone', async () => {
    await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
    const objects = computeInMemoryObjects({ namespace: ns, clusterName, kubernetesVersion: fromVersion });
    for (const obj of objects.clusterClass) await applyObject(mgmt.kube, obj, user);
    await applyObject(mgmt.kube, objects.cluster, user);
    await waitConverged(fromVersion, 240_000);
    await waitQuiet(10_000, 120_000);

    const started = Date.now();
    const sentBefore = sentByKind();
    const linesBefore = product.passLines.length;
    const desired = structuredClone(objects.cluster);
    (desired['spec'] as { topology: { version: string } }).topology.version = toVersion;
    await applyObject(mgmt.kube, desired, user);
    let workersEarly = '';
    await waitConverged(toVersion, 300_000, (all) => {
      const cpDone = all.filter(isControlPlane).every((m) => versionOf(m) === toVersion && phaseOf(m) === 'Running');
      if (!cpDone && all.some((m) => !isControlPlane(m) && versionOf(m) === toVersion))
        workersEarly ||= describeMachines(all);
    });
    const seconds = (Date.now() - started) / 1000;
    // NOTE: longer than the short requeue (30 s), so a wake-up the last pass asked for is counted.
    await waitQuiet(40_000, 180_000);
    const sentAfter = sentByKind();
    const entries = Object.fromEntries(
      Object.entries(sentAfter)
        .map(([kind, n]) => [kind, n - (sentBefore[kind] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
    const all = product.invocations.filter((i) => i.controller === 'topology' && i.at >= started);
    const upgrade = all.filter((i) => i.trigger !== 'Pass Due');
    const wakeUps = all.filter((i) => i.trigger === 'Pass Due');
    // NOTE: a schedule a pass asked for before the upgrade converged is deleted by the pass that saw it converge.
    const pending = await product.pendingWakeUps();
    const summary =
      `upgrade converged in ${seconds.toFixed(1)} s; topology invocations ${upgrade.length} from events, ` +
      `${wakeUps.length} from one-time schedules fired, ${pending.length} schedules still to fire ` +
      `[${pending.join(', ')}] (at ${new Date().toISOString().slice(11, 19)}) ` +
      `(${all.map((i) => `${i.trigger}[${i.passes.join(',')}]`).join(' ')}); passes ran ` +
      `${all.reduce((n, i) => n + i.ran, 0)}; forwarder entries ${JSON.stringify(entries)}`;
    console.log(summary);

    assert.equal(workersEarly, '', `workers started upgrading before the control plane finished: ${workersEarly}`);
    assert.equal(
      product.invocations.filter((i) => i.trigger === 'Tick').length,
      0,
      'no tick ran: every pass came from an event',
    );
    assert.ok(
      upgrade.length <= maxUpgradeInvocations,
      `at most ${maxUpgradeInvocations} topology invocations for the upgrade: ${summary}\n` +
        product.passLines.slice(linesBefore).join('\n'),
    );
    assert.ok(
      wakeUps.length + pending.length <= maxUpgradeWakeUps,
      `at most ${maxUpgradeWakeUps} one-time schedules fired or still to fire for the upgrade: ${summary}\n` +
        product.passLines.slice(linesBefore).join('\n'),
    );
  });
});
