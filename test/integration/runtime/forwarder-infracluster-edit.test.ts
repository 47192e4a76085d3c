// A user's edit of the InfrastructureCluster a topology owns, end to end through the forwarder: a real
// kube-apiserver, the forwarder watching it (the deployment's targets, the InfrastructureCluster kind found among the
// CRDs), the local bus, the deployed topology function (functions/topology.ts) and DynamoDB Local. The edit's event
// runs the Cluster's pass, which puts the field back as upstream's topology controller does (it watches the
// InfrastructureCluster); the pass's own write brings no further pass. No ticks: only the events act.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, findObject, type KubeObject } from '#shared/kube/index.ts';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import type { RuntimeEvent } from '#shared/runtime/events.ts';
import { createLocalBus, type LocalBus } from '#shared/runtime/local-bus.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { useWiredFunction } from './wired-setup.ts';

const ctx = useWiredFunction('topology', {
  extraCrds: [
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
    genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
  ],
});

const ns = 'infra-edit';
const capi = 'cluster.x-k8s.io/v1beta2';
const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const user = { fieldManager: 'test-user', force: true };

const template = (apiVersion: string, kind: string, name: string, spec: object): KubeObject => ({
  apiVersion,
  kind,
  metadata: { namespace: ns, name },
  spec: { template: { spec } },
});
const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

/** The class's templates (the DockerCluster's load balancer image from its template), the class and the Cluster. */
function objects(): KubeObject[] {
  return [
    template(infra, 'DockerClusterTemplate', 'cluster', { loadBalancer: { imageRepository: 'kindest' } }),
    template(cpApi, 'KubeadmControlPlaneTemplate', 'control-plane', {
      kubeadmConfigSpec: { clusterConfiguration: { apiServer: {} } },
    }),
    template(infra, 'DockerMachineTemplate', 'machine', { customImage: 'kindest/node' }),
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
          workers: { machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }] },
        },
      },
    },
  ];
}

type Invocation = { trigger: string; passes: { kind: string; status: string; changed: readonly string[] }[] };

describe('a user edit of the InfrastructureCluster, through the forwarder', () => {
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
      passes:
        result.status === 'Handled'
          ? result.passes.map((p) => ({ kind: p.key.kind, status: p.status, changed: p.changed ?? [] }))
          : [],
    });
  const history = () => JSON.stringify(invocations, null, 1);

  async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await fn();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        assert.fail(`${what} not reached in ${timeoutMs} ms\n${errors.join('\n')}\n${history()}`);
      await new Promise((r) => setTimeout(r, 250));
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

  const dockerCluster = async () => {
    const c1 = await findObject(ctx.mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c1' });
    const name = (c1?.['spec'] as { infrastructureRef?: { name?: string } } | undefined)?.infrastructureRef?.name;
    return name === undefined
      ? undefined
      : findObject(ctx.mgmt.kube, { apiVersion: infra, kind: 'DockerCluster', namespace: ns, name });
  };
  const imageRepository = (o: KubeObject | undefined) =>
    (o?.['spec'] as { loadBalancer?: { imageRepository?: string } } | undefined)?.loadBalancer?.imageRepository;

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

  test("the edit's event runs the Cluster's pass, which puts the field back; its own write brings no pass", async () => {
    const created = await eventually('the DockerCluster the topology creates', async () => {
      const o = await dockerCluster();
      return imageRepository(o) === 'kindest' ? o : undefined;
    });
    await settle();
    const before = invocations.length;

    const edited = await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: infra,
        kind: 'DockerCluster',
        metadata: { namespace: ns, name: created.metadata.name },
        spec: { loadBalancer: { imageRepository: 'registry.example.com/user' } },
      } as KubeObject,
      user,
    );
    assert.ok((edited.metadata.generation ?? 0) > (created.metadata.generation ?? 0), 'the edit moves the generation');

    const restored = await eventually("the topology's value back", async () => {
      const o = await dockerCluster();
      return imageRepository(o) === 'kindest' ? o : undefined;
    });
    await settle();
    const after = invocations.slice(before);
    const ran = after.filter((i) => i.passes.some((p) => p.kind === 'Cluster' && p.status === 'Ran'));
    assert.deepEqual(
      ran.map((i) => i.trigger),
      [`MODIFIED DockerCluster ${created.metadata.name}`],
      `one pass, run by the edit's event\n${history()}`,
    );
    assert.ok(
      ran[0]?.passes.some((p) => p.changed.some((c) => c.startsWith(`updated DockerCluster ${ns}/`))),
      history(),
    );
    const managers = (restored.metadata as { managedFields?: { manager?: string; fieldsV1?: unknown }[] })
      .managedFields;
    const topologyFields = JSON.stringify(managers?.find((m) => m.manager === 'capi-topology')?.fieldsV1 ?? {});
    assert.ok(topologyFields.includes('"f:imageRepository"'), `capi-topology owns the field again: ${topologyFields}`);
    assert.deepEqual(errors, []);
  });
});
