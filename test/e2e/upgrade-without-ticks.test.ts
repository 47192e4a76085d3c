// An upgrade that needs no tick: with upstream's managers (handoff configuration) and capi-serverless as deployed
// (forwarder → local bus → the topology function) but no tick schedule at all, a topology Cluster is created and
// upgraded from the control plane to the workers on events alone. The status changes of the KubeadmControlPlane and
// the MachineDeployment (routed by the forwarder, filtered to what the upgrade waits on, coalesced per Cluster) wake
// the pass that requeued waiting for them, as upstream's watches on those kinds do. Without that routing the pass's
// requeue is found only by the next tick and this test times out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { computeGatesForAllManagers, startUpstreamManagementCluster } from '#test/support/harness/upstream-capi.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { computeInMemoryObjects } from './in-memory-class.ts';
import { startProduct, type RunningProduct } from './product.ts';

const ns = 'no-ticks';
const clusterName = 'in-memory-1';
const fromVersion = 'v1.36.4';
const toVersion = 'v1.37.0';
const user = { fieldManager: 'e2e-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const clusterRef = { apiVersion: capi, kind: 'Cluster', namespace: ns, name: clusterName };
const byCluster = `cluster.x-k8s.io/cluster-name=${clusterName}`;

type Condition = { type: string; status: string; reason?: string; message?: string };

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

async function topologyReconciled(): Promise<Condition | undefined> {
  const cluster = await getObject(mgmt.kube, clusterRef);
  const conditions = (cluster['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === 'TopologyReconciled');
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

/** Waits for `cp` control-plane and `workers` worker Machines Running at `version` and TopologyReconciled True. */
async function waitConverged(version: string, timeoutMs: number, watch?: (all: KubeObject[]) => void) {
  await eventually(
    `1 control-plane and 1 worker Machine Running at ${version}, TopologyReconciled True`,
    async () => {
      const all = await machines();
      watch?.(all);
      const t = await topologyReconciled();
      const done =
        all.filter(isControlPlane).length === 1 &&
        all.filter((m) => !isControlPlane(m)).length === 1 &&
        all.every((m) => phaseOf(m) === 'Running' && versionOf(m) === version && !m.metadata.deletionTimestamp) &&
        t?.status === 'True';
      return { done, observed: `${describeMachines(all)}; TopologyReconciled ${JSON.stringify(t)}` };
    },
    timeoutMs,
  );
}

/** Topology invocations since `from`, by what triggered them (a kind, or Tick). */
function invocationsSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const i of product.invocations)
    if (i.controller === 'topology' && i.at >= from) counts[i.trigger] = (counts[i.trigger] ?? 0) + 1;
  return counts;
}

describe('an upgrade proceeds from the control plane to the workers without any tick', { timeout: 15 * 60_000 }, () => {
  before(async () => {
    mgmt = await startUpstreamManagementCluster({
      name: 'no-ticks',
      upstream: { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) },
    });
    product = await startProduct(mgmt, ['topology'], { tickMs: 0 });
  });
  after(async () => {
    await product?.stop();
    await mgmt?.stop();
  });

  test('creation, then the upgrade, on events alone', async () => {
    await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
    const objects = computeInMemoryObjects({ namespace: ns, clusterName, kubernetesVersion: fromVersion });
    for (const obj of objects.clusterClass) await applyObject(mgmt.kube, obj, user);
    await applyObject(mgmt.kube, objects.cluster, user);
    await waitConverged(fromVersion, 240_000);

    const upgradeStarted = Date.now();
    const desired = structuredClone(objects.cluster);
    (desired['spec'] as { topology: { version: string } }).topology.version = toVersion;
    await applyObject(mgmt.kube, desired, user);
    let workersEarly = '';
    await waitConverged(toVersion, 240_000, (all) => {
      const cpDone = all.filter(isControlPlane).every((m) => versionOf(m) === toVersion && phaseOf(m) === 'Running');
      if (!cpDone && all.some((m) => !isControlPlane(m) && versionOf(m) === toVersion))
        workersEarly ||= describeMachines(all);
    });
    const seconds = (Date.now() - upgradeStarted) / 1000;
    await product.bus.drain();
    const byTrigger = invocationsSince(upgradeStarted);
    const upgrade = product.invocations.filter((i) => i.controller === 'topology' && i.at >= upgradeStarted);
    const totalMs = upgrade.reduce((sum, i) => sum + i.ms, 0);
    console.log(
      `upgrade converged in ${seconds.toFixed(1)} s; topology invocations: ${JSON.stringify(byTrigger)}; ` +
        `handler time ${(totalMs / 1000).toFixed(1)} s (mean ${(totalMs / Math.max(1, upgrade.length)).toFixed(0)} ms, ` +
        `max ${Math.max(0, ...upgrade.map((i) => i.ms)).toFixed(0)} ms); passes skipped on a held lease: ` +
        `${upgrade.reduce((sum, i) => sum + i.leaseHeld, 0)}; invocations ${upgrade.length}, ` +
        `passes ran ${upgrade.reduce((sum, i) => sum + i.ran, 0)}`,
    );

    assert.equal(workersEarly, '', `workers started upgrading before the control plane finished: ${workersEarly}`);
    assert.equal(
      product.invocations.filter((i) => i.trigger === 'Tick').length,
      0,
      'no tick ran: every pass came from an event',
    );
    assert.ok(
      (byTrigger['KubeadmControlPlane'] ?? 0) + (byTrigger['MachineDeployment'] ?? 0) > 0,
      'the status changes of the control plane and the workers reached the topology',
    );
  });
});
