// Upstream v1.14.2's managed-fields check (cluster_controller_test.go, TestClusterReconciler_reconcileNewlyCreatedCluster)
// end to end through the forwarder: a real kube-apiserver, the forwarder watching it (the deployment's targets), the
// local bus, the deployed topology function (functions/topology.ts) and DynamoDB Local. Once the topology is converged,
// every object upstream's test names (the Cluster, InfrastructureCluster, control plane and its machine template, each
// MachineDeployment and its two templates, each MachinePool and its infrastructure and bootstrap objects) has its
// managed fields purged as that test does (a JSON patch replacing them with `[{}]`); they must come back within
// seconds, without the `before-first-apply` co-owner a plain apply would leave, and the passes' own writes bring no
// pass. No ticks: only the events act.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, findObject, getObject, listObjects, patchObject, type KubeObject } from '#shared/kube/index.ts';
import { computeClusterMetadataHash, computeMetadataHash } from '#shared/hash/compute-metadata-hash.ts';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import type { RuntimeEvent } from '#shared/runtime/events.ts';
import { createLocalBus, type LocalBus } from '#shared/runtime/local-bus.ts';
import { resolveResource, resourcePath } from '#shared/kube/resources.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { useWiredFunction } from './wired-setup.ts';

const ctx = useWiredFunction('topology', {
  extraCrds: [
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachinePoolTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachinePool'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
    genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
    genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfig'),
  ],
});

const ns = 'mf-purge';
const capi = 'cluster.x-k8s.io/v1beta2';
const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const user = { fieldManager: 'test-user', force: true };
/** As upstream's test: the restored objects must be back within its Eventually (5 s); this allows a loaded machine. */
const restoreWithinMs = 10_000;

const template = (apiVersion: string, kind: string, name: string, spec: object): KubeObject => ({
  apiVersion,
  kind,
  metadata: { namespace: ns, name },
  spec: { template: { spec } },
});
const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

function objects(): KubeObject[] {
  return [
    template(infra, 'DockerClusterTemplate', 'cluster', { loadBalancer: { imageRepository: 'kindest' } }),
    template(cpApi, 'KubeadmControlPlaneTemplate', 'control-plane', {
      kubeadmConfigSpec: { clusterConfiguration: { apiServer: {} } },
    }),
    template(infra, 'DockerMachineTemplate', 'machine', { customImage: 'kindest/node' }),
    template(infra, 'DockerMachinePoolTemplate', 'pool', { template: { customImage: 'kindest/node' } }),
    template(bootstrapApi, 'KubeadmConfigTemplate', 'bootstrap', { joinConfiguration: { nodeRegistration: {} } }),
    {
      apiVersion: capi,
      kind: 'ClusterClass',
      metadata: { namespace: ns, name: 'quick-start' },
      spec: {
        infrastructure: { templateRef: ref(infra, 'DockerClusterTemplate', 'cluster') },
        controlPlane: {
          templateRef: ref(cpApi, 'KubeadmControlPlaneTemplate', 'control-plane'),
          machineInfrastructure: { templateRef: ref(infra, 'DockerMachineTemplate', 'machine') },
        },
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              bootstrap: { templateRef: ref(bootstrapApi, 'KubeadmConfigTemplate', 'bootstrap') },
              infrastructure: { templateRef: ref(infra, 'DockerMachineTemplate', 'machine') },
            },
          ],
          machinePools: [
            {
              class: 'default-pool',
              bootstrap: { templateRef: ref(bootstrapApi, 'KubeadmConfigTemplate', 'bootstrap') },
              infrastructure: { templateRef: ref(infra, 'DockerMachinePoolTemplate', 'pool') },
            },
          ],
        },
      },
    },
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: { namespace: ns, name: 'c1' },
      spec: {
        topology: {
          classRef: { name: 'quick-start' },
          version: 'v1.34.0',
          controlPlane: { replicas: 1 },
          workers: {
            machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }],
            machinePools: [{ class: 'default-pool', name: 'mp-a', replicas: 1 }],
          },
        },
      },
    },
  ];
}

type Entry = { manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown };
const entriesOf = (o: KubeObject): Entry[] => (o.metadata as { managedFields?: Entry[] }).managedFields ?? [];
const describe_ = (o: KubeObject) => `${o.kind} ${o.metadata.name ?? ''}`;
const refTo = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, namespace: ns, name });
type Ref = { apiVersion?: string; kind?: string; name?: string };

type Invocation = {
  trigger: string;
  object?: string;
  metadataHash?: string | undefined;
  passes: { kind: string; status: string; reason: string; changed: readonly string[] }[];
};

describe("upstream's managed-fields purge, through the forwarder", () => {
  let bus: LocalBus;
  let forwarder: Forwarder;
  const invocations: Invocation[] = [];
  const errors: string[] = [];

  const record = (_: string, event: RuntimeEvent, result: HandlerResult) =>
    invocations.push({
      trigger:
        event['detail-type'] === 'Object Changed'
          ? `${event.detail.type} ${event.detail.kind} ${event.detail.name}`
          : event['detail-type'],
      ...(event['detail-type'] === 'Object Changed'
        ? { object: `${event.detail.kind} ${event.detail.name}`, metadataHash: event.detail.metadataHash }
        : {}),
      passes:
        result.status === 'Handled'
          ? result.passes.map((p) => ({
              kind: p.key.kind,
              status: p.status,
              reason: p.reason,
              changed: p.changed ?? [],
            }))
          : [],
    });
  const history = (from = 0) => JSON.stringify(invocations.slice(from), null, 1);

  async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await fn();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        assert.fail(`${what} not reached in ${timeoutMs} ms\n${errors.join('\n')}\n${history()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until no invocation has started or finished for `quietMs` (the forwarder flushed, the bus drained). */
  async function settle(quietMs = 3_000): Promise<void> {
    let seen = -1;
    while (seen !== invocations.length) {
      seen = invocations.length;
      await forwarder.outbox.flush();
      await bus.drain();
      await new Promise((r) => setTimeout(r, quietMs));
      await bus.drain();
    }
  }

  /** The objects upstream's test purges, read now (undefined while one is missing). */
  async function topologyObjects(): Promise<KubeObject[] | undefined> {
    const cluster = await getObject(ctx.mgmt.kube, refTo(capi, 'Cluster', 'c1'));
    const spec = cluster['spec'] as { infrastructureRef?: Ref; controlPlaneRef?: Ref };
    const find = async (r: Ref | undefined, apiVersion?: string) =>
      r?.name === undefined || r.kind === undefined
        ? undefined
        : findObject(ctx.mgmt.kube, refTo(r.apiVersion ?? apiVersion ?? '', r.kind, r.name));
    const infraCluster = await find(spec.infrastructureRef, infra);
    const controlPlane = await find(spec.controlPlaneRef, cpApi);
    const cpMachine = (controlPlane?.['spec'] as { machineTemplate?: { spec?: { infrastructureRef?: Ref } } })
      ?.machineTemplate?.spec?.infrastructureRef;
    const cpTemplate = await find(cpMachine, infra);
    const selector = { namespace: ns, labelSelector: 'cluster.x-k8s.io/cluster-name=c1' };
    const mds = (await listObjects(ctx.mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', ...selector })).items;
    const mps = (await listObjects(ctx.mgmt.kube, { apiVersion: capi, kind: 'MachinePool', ...selector })).items;
    if (!infraCluster || !controlPlane || !cpTemplate || mds.length !== 1 || mps.length !== 1) return undefined;
    const found: KubeObject[] = [cluster, infraCluster, controlPlane, cpTemplate];
    type MachineSpec = { template?: { spec?: { infrastructureRef?: Ref; bootstrap?: { configRef?: Ref } } } };
    for (const owner of [...mds, ...mps]) {
      const machine = (owner['spec'] as MachineSpec).template?.spec;
      const infraObject = await find(machine?.infrastructureRef, infra);
      const bootstrapObject = await find(machine?.bootstrap?.configRef, bootstrapApi);
      if (!infraObject || !bootstrapObject) return undefined;
      found.push(owner, infraObject, bootstrapObject);
    }
    return found;
  }

  before(async () => {
    bus = createLocalBus({
      handlers: { topology: ctx.functionHandler },
      retryDelayMs: 500,
      onResult: record,
      onError: (_, event, err) => errors.push(`${event['detail-type']}: ${String(err)}`),
    });
    forwarder = startForwarder({
      kube: ctx.mgmt.kube,
      source: { kubeconfigPath: ctx.mgmt.controlPlane.kubeconfigPath },
      targets: [...defaultTargets(), ...(await discoverProviderTargets(ctx.mgmt.kube))],
      sink: bus.putEvents,
      coalesceMs: 100,
    });
    await applyObject(ctx.mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
    for (const o of objects()) await applyObject(ctx.mgmt.kube, o, user);
  });

  after(async () => {
    await forwarder?.stop();
    await bus?.stop();
  });

  test('every purged object has its managed fields back within seconds, the topology owning its fields alone', async () => {
    const converged = await eventually('the topology created', topologyObjects);
    await settle();
    // NOTE: a label another manager set on the InfrastructureCluster, which the topology must not come to co-own.
    const infraCluster = converged[1] as KubeObject;
    await patchObject(
      ctx.mgmt.kube,
      refTo(infraCluster.apiVersion, infraCluster.kind, infraCluster.metadata.name ?? ''),
      { metadata: { labels: { 'example.com/owner': 'someone-else' } } },
      { fieldManager: 'someone-else' },
    );
    await settle();
    const start = invocations.length;

    const purge = [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }];
    for (const o of converged) {
      const info = await resolveResource(ctx.mgmt.kube, o.apiVersion, o.kind);
      const purged = await ctx.mgmt.kube.request<KubeObject>({
        method: 'PATCH',
        path: resourcePath(info, ns, o.metadata.name),
        body: purge,
        contentType: 'application/json-patch+json',
        target: { verb: 'patch', kind: o.kind, namespace: ns, name: o.metadata.name ?? '' },
      });
      assert.deepEqual(entriesOf(purged), [], `${describe_(o)} purged`);
    }
    const purgedAt = Date.now();

    const restored = await eventually(
      'every purged object with managed fields again',
      async () => {
        const now = await Promise.all(
          converged.map((o) => getObject(ctx.mgmt.kube, refTo(o.apiVersion, o.kind, o.metadata.name ?? ''))),
        );
        return now.every((o) => entriesOf(o).length > 0) ? now : undefined;
      },
      restoreWithinMs,
    );
    const tookMs = Date.now() - purgedAt;
    await settle();
    const final = await Promise.all(
      converged.map((o) => getObject(ctx.mgmt.kube, refTo(o.apiVersion, o.kind, o.metadata.name ?? ''))),
    );
    for (const o of final) {
      const entries = entriesOf(o);
      assert.ok(
        entries.some((e) => e.manager === 'capi-topology' && e.operation === 'Apply' && !e.subresource),
        `${describe_(o)}: the topology's apply entry is back: ${JSON.stringify(entries)}`,
      );
      assert.ok(
        !entries.some((e) => e.manager === 'before-first-apply'),
        `${describe_(o)}: no before-first-apply co-owner: ${JSON.stringify(entries)}`,
      );
    }
    const topologyOnInfra = JSON.stringify(
      entriesOf(final[1] as KubeObject).find((e) => e.manager === 'capi-topology')?.fieldsV1 ?? {},
    );
    assert.ok(
      !topologyOnInfra.includes('example.com/owner'),
      `the topology does not own the other manager's label: ${topologyOnInfra}`,
    );
    assert.ok(restored.length === converged.length);

    // NOTE: the passes' own writes (the seeds and the applies) bring no pass: no pass ran for an event carrying the
    // hash the object was left with.
    const leftWith = new Map(
      final.map((o) => [
        describe_(o),
        o.kind === 'Cluster' ? computeClusterMetadataHash(o.metadata) : computeMetadataHash(o.metadata),
      ]),
    );
    const after = invocations.slice(start);
    const ran = after.filter((i) => i.passes.some((p) => p.kind === 'Cluster' && p.status === 'Ran'));
    assert.ok(ran.length > 0, `the purge ran the Cluster's pass\n${history(start)}`);
    const ownWriteRuns = ran.filter(
      (i) => i.object !== undefined && i.metadataHash !== undefined && leftWith.get(i.object) === i.metadataHash,
    );
    assert.deepEqual(
      ownWriteRuns.map((i) => i.trigger),
      [],
      `no pass ran for an event of the passes' own writes\n${history(start)}`,
    );
    assert.deepEqual(errors, []);
    console.log(`restored ${converged.length} objects ${tookMs} ms after the last purge; ${ran.length} pass(es) ran`);
  });

  test("a purge of the Cluster's managed fields alone runs its pass, which writes them again", async () => {
    await settle();
    const start = invocations.length;
    const cluster = refTo(capi, 'Cluster', 'c1');
    const info = await resolveResource(ctx.mgmt.kube, capi, 'Cluster');
    await ctx.mgmt.kube.request<KubeObject>({
      method: 'PATCH',
      path: resourcePath(info, ns, 'c1'),
      body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }],
      contentType: 'application/json-patch+json',
      target: { verb: 'patch', kind: 'Cluster', namespace: ns, name: 'c1' },
    });
    const back = await eventually(
      "the Cluster's topology entry back",
      async () => {
        const c = await getObject(ctx.mgmt.kube, cluster);
        return entriesOf(c).some((e) => e.manager === 'capi-topology' && e.operation === 'Apply') ? c : undefined;
      },
      restoreWithinMs,
    );
    await settle();
    assert.ok(!entriesOf(back).some((e) => e.manager === 'before-first-apply'), JSON.stringify(entriesOf(back)));
    const ran = invocations
      .slice(start)
      .filter((i) => i.passes.some((p) => p.kind === 'Cluster' && p.status === 'Ran'));
    assert.deepEqual(
      ran.map((i) => [i.trigger, i.metadataHash === computeClusterMetadataHash(back.metadata)]),
      [['MODIFIED Cluster c1', false]],
      `one pass, run by the purge's event (not by the pass's own writes)\n${history(start)}`,
    );
    assert.deepEqual(errors, []);
  });
});
