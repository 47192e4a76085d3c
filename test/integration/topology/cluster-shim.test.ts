// The cluster shim beside upstream Cluster API v1.14.2's real core and KubeadmControlPlane managers (and
// kube-controller-manager's garbage collector): with the control plane refused at creation (maxSurge 0 with one
// replica, refused by the KubeadmControlPlane webhook) the InfrastructureCluster stays owned by the shim Secret, so
// upstream's core Cluster controller does not adopt it (and no infrastructure provider would provision it); once the
// control plane is created the core controller adopts both and the next pass deletes the shim; deleting a Cluster
// whose control plane was refused leaves neither the shim nor the InfrastructureCluster behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, deleteObject, findObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import { reconcileClusterClass, reconcileTopology, type TopologyDeps } from '#shared/topology/index.ts';
import { computeInMemoryObjects } from '#test/e2e/in-memory-class.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import {
  computeGatesForAllManagers,
  startUpstreamManagementCluster,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';

const ns = 'cluster-shim';
const capi = 'cluster.x-k8s.io/v1beta2';
type Ref = { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean };

let mgmt: TestCluster & { readonly upstream: UpstreamCapi };
let deps: TopologyDeps;
let closePass: () => void;

const ownersOf = (o: KubeObject | undefined) => (o?.metadata as { ownerReferences?: Ref[] })?.ownerReferences ?? [];
const describeOwners = (o: KubeObject | undefined) =>
  ownersOf(o)
    .map((r) => `${r.kind}/${r.name}${r.controller ? ' (controller)' : ''}`)
    .join(', ');

async function eventually<T>(what: string, fn: () => Promise<{ value?: T; observed: string }>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fn();
    if (r.value !== undefined) return r.value;
    if (Date.now() > deadline)
      assert.fail(
        `${what}: not reached in ${timeoutMs / 1000} s; last seen: ${r.observed}\n${mgmt.upstream.logs().slice(-8_000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function clusterWithMaxSurge(name: string, maxSurge: string): KubeObject {
  const { cluster } = computeInMemoryObjects({ namespace: ns, clusterName: name, kubernetesVersion: 'v1.36.4' });
  const topology = (cluster['spec'] as { topology: { variables?: { name: string; value: unknown }[] } }).topology;
  topology.variables = [
    ...(topology.variables ?? []).filter((v) => v.name !== 'kubeadmControlPlaneMaxSurge'),
    { name: 'kubeadmControlPlaneMaxSurge', value: maxSurge },
  ];
  return cluster;
}

const secret = (name: string) =>
  findObject(mgmt.kube, { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: `${name}-shim` });
const cluster = (name: string) => findObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name });
async function referenced(c: KubeObject, field: 'infrastructureRef' | 'controlPlaneRef') {
  const ref = (c['spec'] as Record<string, { apiGroup: string; kind: string; name: string } | undefined>)[field];
  if (!ref) return undefined;
  const apiVersion = `${ref.apiGroup}/v1beta2`;
  return findObject(mgmt.kube, { apiVersion, kind: ref.kind, namespace: ns, name: ref.name });
}

describe("the cluster shim beside upstream's core Cluster controller", () => {
  before(async () => {
    mgmt = await startUpstreamManagementCluster({
      name: 'cluster-shim',
      upstream: {
        managers: ['core', 'control-plane-kubeadm'],
        // NOTE: as upstream's e2e (test/e2e/config/docker.yaml): its in-memory topology Cluster sets taints.
        featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }),
      },
    });
    const pass = await mgmt.newClient();
    closePass = () => pass.kube.close();
    deps = { kube: pass.kube, randomSuffix: sequentialSuffix(), now: () => new Date() };
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      { fieldManager: 'test' },
    );
    const { clusterClass } = computeInMemoryObjects({ namespace: ns, clusterName: 'c', kubernetesVersion: 'v1.36.4' });
    for (const o of clusterClass) await applyObject(mgmt.kube, o, { fieldManager: 'test', force: true });
    const cc = clusterClass.find((o) => o.kind === 'ClusterClass')!;
    const outcome = await reconcileClusterClass(deps, { namespace: ns, name: cc.metadata.name ?? '' });
    assert.equal(outcome.result, 'Success', outcome.error);
  });
  after(async () => {
    closePass?.();
    await mgmt?.stop();
  });

  test('owns the InfrastructureCluster until the Cluster references both, then the core controller adopts it and the shim goes', async () => {
    await applyObject(mgmt.kube, clusterWithMaxSurge('c', '0'), { fieldManager: 'test', force: true });
    const refused = await reconcileTopology(deps, { namespace: ns, name: 'c' });
    assert.equal(refused.result, 'Error');
    assert.match(refused.error ?? '', /KubeadmControlPlane/);

    const c = await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c' });
    const shim = await secret('c');
    assert.ok(shim, 'the shim Secret exists');
    assert.equal(shim['type'], 'cluster.x-k8s.io/secret');
    assert.deepEqual(
      ownersOf(shim).map((r) => [r.kind, r.name, r.uid]),
      [['Cluster', 'c', c.metadata.uid]],
    );
    assert.equal((c['spec'] as { controlPlaneRef?: unknown }).controlPlaneRef, undefined);
    const infra = await referenced(c, 'infrastructureRef');
    assert.ok(infra, 'the Cluster references its InfrastructureCluster');
    assert.deepEqual(
      ownersOf(infra).map((r) => [r.kind, r.name, r.uid]),
      [['Secret', 'c-shim', shim.metadata.uid]],
    );
    // NOTE: upstream's core controller reconciles the Cluster meanwhile; it must not adopt the InfrastructureCluster.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const retry = await reconcileTopology(deps, { namespace: ns, name: 'c' });
    assert.equal(retry.result, 'Error');
    const still = await referenced(c, 'infrastructureRef');
    assert.equal(describeOwners(still), 'Secret/c-shim', 'not adopted while the control plane is refused');
    assert.equal((await secret('c'))?.metadata.uid, shim.metadata.uid, 'the same shim, not another');

    await applyObject(mgmt.kube, clusterWithMaxSurge('c', '1'), { fieldManager: 'test', force: true });
    const created = await reconcileTopology(deps, { namespace: ns, name: 'c' });
    // NOTE: Success, no requeue, as upstream's pass: the shim waits for the core controller's adoption, and the control
    // plane's change (the adoption) runs the next pass (wakeOnChangeOf, checked below).
    assert.equal(created.result, 'Success', created.error);
    const withBoth = await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c' });
    const cp = await referenced(withBoth, 'controlPlaneRef');
    assert.ok(cp, 'the Cluster references its ControlPlane');
    // NOTE: the core controller may have adopted it already (its Cluster reference beside the shim's).
    assert.match(
      describeOwners(cp),
      /^Secret\/c-shim(, Cluster\/c \(controller\))?$/,
      'a new ControlPlane is owned by the shim too',
    );
    assert.deepEqual(created.wakeOnChangeOf, [`${cp.kind} ${ns}/${cp.metadata.name ?? ''}`]);

    const gone = await eventually('the core controller adopts both and a pass deletes the shim', async () => {
      const outcome = await reconcileTopology(deps, { namespace: ns, name: 'c' });
      const [i, p, s] = [
        await referenced(withBoth, 'infrastructureRef'),
        await referenced(withBoth, 'controlPlaneRef'),
        await secret('c'),
      ];
      const observed = `pass ${outcome.result}; InfrastructureCluster: ${describeOwners(i)}; ControlPlane: ${describeOwners(p)}; shim ${s ? 'present' : 'gone'}`;
      const adopted = (o: KubeObject | undefined) =>
        ownersOf(o).length === 1 && ownersOf(o)[0]?.kind === 'Cluster' && ownersOf(o)[0]?.controller === true;
      return { ...(!s && adopted(i) && adopted(p) ? { value: observed } : {}), observed };
    });
    assert.match(gone, /shim gone/);
    const quiet = await reconcileTopology(deps, { namespace: ns, name: 'c' });
    assert.deepEqual(quiet.changed, [], 'a pass after the shim went changes nothing');
    assert.equal(quiet.wakeOnChangeOf, undefined, 'a pass after the shim went awaits nothing');
    assert.equal(await secret('c'), undefined, 'no new shim once both exist');
  });

  test('deleting a Cluster whose control plane was refused leaves neither the shim nor its InfrastructureCluster', async () => {
    await applyObject(mgmt.kube, clusterWithMaxSurge('d', '0'), { fieldManager: 'test', force: true });
    assert.equal((await reconcileTopology(deps, { namespace: ns, name: 'd' })).result, 'Error');
    const d = await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'd' });
    const infra = await referenced(d, 'infrastructureRef');
    assert.ok(infra && (await secret('d')));
    await deleteObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'd' });
    await eventually('the Cluster, its shim and InfrastructureCluster are gone', async () => {
      await reconcileTopology(deps, { namespace: ns, name: 'd' }).catch(() => undefined);
      const left = [
        (await cluster('d')) ? 'Cluster' : '',
        (await secret('d')) ? 'shim' : '',
        (await findObject(mgmt.kube, {
          apiVersion: infra.apiVersion,
          kind: infra.kind,
          namespace: ns,
          name: infra.metadata.name ?? '',
        }))
          ? 'InfrastructureCluster'
          : '',
      ].filter(Boolean);
      return { ...(left.length === 0 ? { value: true } : {}), observed: `left: ${left.join(', ')}` };
    });
  });
});
