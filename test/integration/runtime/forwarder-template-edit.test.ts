// A user's edit of a template a topology owns (the clone a MachineDeployment or the control plane references), end to
// end through the forwarder: a real kube-apiserver, the forwarder watching it (the deployment's targets, the template
// kinds found among the CRDs), the local bus, the deployed topology function (functions/topology.ts) and DynamoDB
// Local. The edit's event runs the Cluster's pass, which rotates the template as upstream's topology controller does
// when its resync (every `--sync-period`, 10 min by default) finds the template's spec off its desired state: a new
// template with the desired spec, the owner pointed at it, the edited one deleted. The pass's own writes (the new
// template, the owner's reference, the deletion) bring no further pass. No ticks: only the events act.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, findObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import type { ObjectChange, RuntimeEvent } from '#shared/runtime/events.ts';
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

const ns = 'template-edit';
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

/** The class's templates (the values the clones start from), the class and the Cluster. */
function objects(): KubeObject[] {
  return [
    template(infra, 'DockerClusterTemplate', 'cluster', { loadBalancer: { imageRepository: 'kindest' } }),
    template(cpApi, 'KubeadmControlPlaneTemplate', 'control-plane', {
      kubeadmConfigSpec: { clusterConfiguration: { apiServer: {} } },
    }),
    template(infra, 'DockerMachineTemplate', 'machine', { customImage: 'kindest/node' }),
    template(bootstrapApi, 'KubeadmConfigTemplate', 'bootstrap', {
      joinConfiguration: { nodeRegistration: { imagePullPolicy: 'IfNotPresent' } },
    }),
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

/** Where an owner references its template, and where the edited field is in that template. */
type TemplateSlot = {
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The name of the template the owner references now. */
  readonly referenced: () => Promise<string | undefined>;
  /** The edited field's value in a template. */
  readonly value: (t: KubeObject | undefined) => unknown;
  /** The user's edit of that field. */
  readonly edit: object;
  /** The value the class gives it. */
  readonly desired: unknown;
  /** The owner whose own event wakes the pass once more (see the test), if any. */
  readonly ownerWakes?: () => Promise<KubeObject | undefined>;
};

describe("a user's edit of a template the topology owns, through the forwarder", () => {
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

  /** The value at a dotted path of an object, e.g. `spec.template.spec.customImage`. */
  const at = (o: KubeObject | undefined, path: string): unknown =>
    path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
  const nameAt = (o: KubeObject | undefined, path: string): string | undefined => {
    const name = at(o, path);
    return typeof name === 'string' ? name : undefined;
  };
  const machineDeployment = async () =>
    (
      await listObjects(ctx.mgmt.kube, {
        apiVersion: capi,
        kind: 'MachineDeployment',
        namespace: ns,
        labelSelector: 'cluster.x-k8s.io/cluster-name=c1,topology.cluster.x-k8s.io/owned',
      })
    ).items[0];
  const controlPlane = async () => {
    const c1 = await findObject(ctx.mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c1' });
    const name = nameAt(c1, 'spec.controlPlaneRef.name');
    return name === undefined
      ? undefined
      : findObject(ctx.mgmt.kube, { apiVersion: cpApi, kind: 'KubeadmControlPlane', namespace: ns, name });
  };

  const slots: TemplateSlot[] = [
    {
      name: "the MachineDeployment's bootstrap template",
      apiVersion: bootstrapApi,
      kind: 'KubeadmConfigTemplate',
      referenced: async () => nameAt(await machineDeployment(), 'spec.template.spec.bootstrap.configRef.name'),
      value: (t) => at(t, 'spec.template.spec.joinConfiguration.nodeRegistration.imagePullPolicy'),
      edit: { template: { spec: { joinConfiguration: { nodeRegistration: { imagePullPolicy: 'Always' } } } } },
      desired: 'IfNotPresent',
    },
    {
      name: "the MachineDeployment's infrastructure template",
      apiVersion: infra,
      kind: 'DockerMachineTemplate',
      referenced: async () => nameAt(await machineDeployment(), 'spec.template.spec.infrastructureRef.name'),
      value: (t) => at(t, 'spec.template.spec.customImage'),
      edit: { template: { spec: { customImage: 'registry.example.com/user/node' } } },
      desired: 'kindest/node',
    },
    {
      name: "the control plane's infrastructure template",
      apiVersion: infra,
      kind: 'DockerMachineTemplate',
      referenced: async () => nameAt(await controlPlane(), 'spec.machineTemplate.spec.infrastructureRef.name'),
      ownerWakes: controlPlane,
      value: (t) => at(t, 'spec.template.spec.customImage'),
      edit: { template: { spec: { customImage: 'registry.example.com/user/node' } } },
      desired: 'kindest/node',
    },
  ];

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
    await eventually('the topology with its control plane and MachineDeployment', async () =>
      (await controlPlane()) !== undefined && (await machineDeployment()) !== undefined ? true : undefined,
    );
    await settle();
  });

  after(async () => {
    await forwarder?.stop();
    await bus?.stop();
  });

  test("a write that moves neither its generation nor its labels or annotations (an owner reference, as upstream's MachineSet controller adds) sends no event", async () => {
    const slot = slots[0];
    assert.ok(slot);
    const name = await eventually(`${slot.name} referenced`, slot.referenced);
    await settle();
    const id = { apiVersion: slot.apiVersion, kind: slot.kind, namespace: ns, name };
    const current = await findObject(ctx.mgmt.kube, id);
    const added = () => forwarder.outbox.stats.byKind.get(slot.kind)?.added ?? 0;
    const filtered = () => forwarder.watchers.get(`${slot.apiVersion}/${slot.kind}`)?.stats.filtered ?? 0;
    const [addedBefore, filteredBefore] = [added(), filtered()];
    const md = await machineDeployment();
    assert.ok(md?.metadata.uid);
    const written = await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: slot.apiVersion,
        kind: slot.kind,
        metadata: {
          namespace: ns,
          name,
          ownerReferences: [
            { apiVersion: capi, kind: 'MachineDeployment', name: md.metadata.name, uid: md.metadata.uid },
          ],
        },
      } as KubeObject,
      { fieldManager: 'owner-writer', force: true },
    );
    assert.equal(written.metadata.generation, current?.metadata.generation, 'no generation moved');
    assert.notEqual(written.metadata.resourceVersion, current?.metadata.resourceVersion, 'a write');
    await eventually('the forwarder saw the write', async () => (filtered() > filteredBefore ? true : undefined));
    await settle();
    assert.equal(added(), addedBefore, 'no event added');
  });

  for (const slot of slots) {
    test(`${slot.name}: the edit's event runs the Cluster's pass, which rotates it; its own writes bring no pass`, async () => {
      const find = (name: string) =>
        findObject(ctx.mgmt.kube, { apiVersion: slot.apiVersion, kind: slot.kind, namespace: ns, name });
      const oldName = await eventually(`${slot.name} referenced`, slot.referenced);
      const current = await find(oldName);
      assert.equal(slot.value(current), slot.desired, 'the clone starts from the class');
      await settle();
      const before = invocations.length;

      const edited = await applyObject(
        ctx.mgmt.kube,
        {
          apiVersion: slot.apiVersion,
          kind: slot.kind,
          metadata: { namespace: ns, name: oldName },
          spec: slot.edit,
        } as KubeObject,
        user,
      );
      assert.ok(
        (edited.metadata.generation ?? 0) > (current?.metadata.generation ?? 0),
        'the edit moves the generation',
      );

      const editedAt = Date.now();
      const newName = await eventually('the owner pointed at a new template', async () => {
        const name = await slot.referenced();
        return name !== undefined && name !== oldName ? name : undefined;
      });
      // NOTE: polled every 250 ms; the forwarder's coalescing window is 100 ms here (500 ms deployed).
      console.log(`template-edit: ${slot.name} rotated ${Date.now() - editedAt} ms after the edit`);
      assert.equal(slot.value(await find(newName)), slot.desired, 'the new template has the desired spec');
      await eventually('the edited template deleted', async () => ((await find(oldName)) ? undefined : true));
      await settle();

      const ran = invocations
        .slice(before)
        .filter((i) => i.passes.some((p) => p.kind === 'Cluster' && p.status === 'Ran'));
      // NOTE: here the Cluster's pass waits on its control plane (no controller reports the control plane's version),
      // so the control plane's own event of its new template reference wakes it once more, as upstream's watch of the
      // control plane reconciles on it. That pass changes nothing; no template event runs another.
      const [edit, ...after] = ran;
      assert.equal(edit?.trigger, `MODIFIED ${slot.kind} ${oldName}`, `the edit's event runs the pass\n${history()}`);
      const changed = edit.passes.flatMap((p) => p.changed);
      assert.ok(
        changed.some((c) => c.startsWith(`rotated ${slot.kind} ${ns}/${oldName} to ${newName}`)),
        JSON.stringify(changed),
      );
      const owner = await slot.ownerWakes?.();
      const woken = owner === undefined ? undefined : `MODIFIED ${owner.kind} ${owner.metadata.name ?? ''}`;
      assert.deepEqual(
        after.map((i) => [i.trigger, i.passes.flatMap((p) => p.changed)]).filter(([trigger]) => trigger !== woken),
        [],
        `no further pass but one the owner's own event woke\n${history()}`,
      );
      assert.deepEqual(
        after.flatMap((i) => i.passes.flatMap((p) => p.changed)),
        [],
        `which changes nothing\n${history()}`,
      );
      assert.deepEqual(errors, []);
    });
  }

  test('an edit made while the forwarder was away: its first list sends the template with its Cluster, which runs the pass', async () => {
    const slot = slots[0];
    assert.ok(slot);
    const oldName = await eventually(`${slot.name} referenced`, slot.referenced);
    await settle();
    await forwarder.stop();
    await applyObject(
      ctx.mgmt.kube,
      { apiVersion: slot.apiVersion, kind: slot.kind, metadata: { namespace: ns, name: oldName }, spec: slot.edit },
      user,
    );
    // NOTE: a forwarder starting afresh, of the template kinds only, its entries captured: the others' (the control
    // plane's, which a waiting pass wakes on) would run the same pass for another reason.
    const sent: ObjectChange[] = [];
    const restarted = startForwarder({
      kube: ctx.mgmt.kube,
      source: { kubeconfigPath: ctx.mgmt.controlPlane.kubeconfigPath },
      targets: (await discoverProviderTargets(ctx.mgmt.kube)).filter((t) => t.kind.endsWith('Template')),
      sink: async (batch) => (sent.push(...batch), []),
      coalesceMs: 100,
    });
    const change = await eventually('the first list sent the edited template', async () => {
      await restarted.outbox.flush();
      return sent.find((c) => c.kind === slot.kind && c.name === oldName);
    });
    await restarted.stop();
    assert.equal(change.type, 'SYNC');
    assert.equal(change.cluster, 'c1', 'it names its Cluster');
    assert.equal(typeof change.generation, 'number');
    assert.equal(typeof change.metadataHash, 'string');
    assert.ok(
      sent.every((c) => c.kind !== 'KubeadmConfigTemplate' || c.name !== 'bootstrap' || c.cluster === undefined),
      'the class template names no Cluster',
    );

    const before = invocations.length;
    await bus.putEvents([change]);
    await bus.drain();
    const newName = await eventually('the owner pointed at a new template', async () => {
      const name = await slot.referenced();
      return name !== undefined && name !== oldName ? name : undefined;
    });
    const ran = invocations
      .slice(before)
      .filter((i) => i.passes.some((p) => p.kind === 'Cluster' && p.status === 'Ran'));
    assert.equal(ran[0]?.trigger, `SYNC ${slot.kind} ${oldName}`, history());
    assert.ok(
      ran[0].passes.some((p) =>
        p.changed.some((c) => c.startsWith(`rotated ${slot.kind} ${ns}/${oldName} to ${newName}`)),
      ),
      history(),
    );
    assert.deepEqual(errors, []);
  });
});
