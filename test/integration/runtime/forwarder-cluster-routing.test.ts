// The forwarder watching Clusters on a real kube-apiserver names the controllers each change concerns, and the
// routing keeps it: the core manager's condition updates during an upgrade reach only the rollout (and only where a
// ClusterRollout exists), while a spec change (the input of the topology pass) still reaches the topology, and a label
// every controller. An owned MachineDeployment's status reaches a waiting Cluster's pass only when its rollout starts
// or finishes, not with every replica counter.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, applyStatus, deleteObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { routeChange } from '#shared/runtime/routes.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';

const ns = 'routing';
const user = { fieldManager: 'test-user', force: true };
const capi = 'cluster.x-k8s.io/v1beta2';
const rolloutApiVersion = 'management.cluster.x-k8s.io/v1alpha1';
const rollout: KubeObject = {
  apiVersion: rolloutApiVersion,
  kind: 'ClusterRollout',
  metadata: { namespace: ns, name: 'r1' },
  spec: { clusterSelector: { matchLabels: { team: 'z' } }, change: { version: 'v1.34.1' }, waves: [{ clusters: 1 }] },
} as KubeObject;

const cluster = (labels: Record<string, string>, paused = false): KubeObject => ({
  apiVersion: capi,
  kind: 'Cluster',
  metadata: { namespace: ns, name: 'c1', labels },
  spec: { paused },
});
const withConditions = (conditions: Record<string, unknown>[]): KubeObject => ({
  apiVersion: capi,
  kind: 'Cluster',
  metadata: { namespace: ns, name: 'c1' },
  status: { conditions },
});
const condition = (type: string, status: string, message = '', observedGeneration?: number) => ({
  type,
  status,
  ...(observedGeneration === undefined ? {} : { observedGeneration }),
  reason: 'Test',
  message,
  lastTransitionTime: '2026-11-27T00:00:00Z',
});

const md = (replicas: number): KubeObject =>
  ({
    apiVersion: capi,
    kind: 'MachineDeployment',
    metadata: {
      namespace: ns,
      name: 'c1-md-0',
      labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'topology.cluster.x-k8s.io/owned': '' },
    },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
      template: {
        metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
        spec: {
          clusterName: 'c1',
          bootstrap: { dataSecretName: 'boot' },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachineTemplate', name: 'm' },
        },
      },
    },
  }) as KubeObject;

describe('Cluster changes reach the controllers that read what changed', () => {
  let mgmt: TestCluster;
  let forwarder: Forwarder;
  const sent: ObjectChange[] = [];

  /**
   * How many of `sent` the assertions have looked at. NOTE: counted from here, not from `sent.length` when the wait
   * starts: a new object's first change and a deletion are sent at once, so they can arrive before the test asks.
   */
  let consumed = 0;

  async function nextChange(what: string): Promise<ObjectChange> {
    const from = consumed;
    await forwarder.outbox.flush();
    // NOTE: generous for a loaded machine (the whole suite runs files at once); a change that never comes still fails.
    const deadline = Date.now() + 30_000;
    while (sent.length === from) {
      if (Date.now() > deadline) assert.fail(`no change sent after ${what}`);
      await new Promise((r) => setTimeout(r, 50));
      await forwarder.outbox.flush();
    }
    assert.equal(sent.length, from + 1, `one change after ${what}: ${JSON.stringify(sent.slice(from))}`);
    consumed = from + 1;
    return sent[from] as ObjectChange;
  }

  /** Waits out the coalescing window, sending what is pending. */
  async function waitOut(): Promise<void> {
    await new Promise((r) => setTimeout(r, 1_000));
    await forwarder.outbox.flush();
  }

  /** Waits out the coalescing window and asserts nothing was sent. */
  async function noChange(what: string): Promise<void> {
    const from = consumed;
    await new Promise((r) => setTimeout(r, 1_000));
    await forwarder.outbox.flush();
    assert.deepEqual(sent.slice(from), [], `nothing sent after ${what}`);
  }

  before(async () => {
    mgmt = await startManagementCluster({ name: 'fwd-routing', crds: 'upstream-core' });
    await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
    await applyObject(mgmt.kube, rollout, user);
    forwarder = startForwarder({
      kube: mgmt.kube,
      source: { kubeconfig: mgmt.controlPlane.kubeconfig },
      targets: [
        { apiVersion: capi, kind: 'Cluster', changesOf: 'cluster' },
        {
          apiVersion: capi,
          kind: 'MachineDeployment',
          labelSelector: 'topology.cluster.x-k8s.io/owned',
          changesOf: 'topologyOwned',
        },
        { apiVersion: rolloutApiVersion, kind: 'ClusterRollout' },
      ],
      sink: (batch) => (sent.push(...batch), Promise.resolve([])),
      coalesceMs: 100,
      // NOTE: a watch refused while the API server (re)initializes its storage under load is retried soon, not after a
      // doubling backoff that can outlast the deadlines below.
      retryBaseMs: 50,
      log: (message, fields) => process.stderr.write(`forwarder: ${message} ${JSON.stringify(fields ?? {})}\n`),
    });
    // NOTE: the watches must be open before the first write, or the Cluster's creation is part of the initial list.
    const watchingBy = Date.now() + 30_000;
    while (!forwarder.snapshot().kinds.every((k) => k.health.state === 'watching')) {
      if (Date.now() > watchingBy) assert.fail(`watches not open: ${JSON.stringify(forwarder.snapshot().kinds)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitOut();
    sent.splice(0);
    consumed = 0;
  });
  after(async () => {
    await forwarder?.stop();
    await mgmt?.stop();
  });

  test('a new Cluster reaches every controller', async () => {
    await applyObject(mgmt.kube, cluster({ team: 'a' }), user);
    const added = await nextChange('the Cluster was created');
    assert.equal(added.controllers, undefined);
    assert.deepEqual(routeChange(added), ['topology', 'addons', 'rollout']);
  });

  test("the core manager's health conditions reach only the rollout", async () => {
    await applyStatus(
      mgmt.kube,
      withConditions([condition('RollingOut', 'True'), condition('Available', 'False', 'rolling out')]),
      user,
    );
    const rolling = await nextChange('RollingOut turned True');
    assert.deepEqual(rolling.controllers, ['rollout']);
    assert.deepEqual(routeChange(rolling), ['rollout']);
  });

  test('a condition no pass reads sends nothing', async () => {
    await applyStatus(
      mgmt.kube,
      withConditions([condition('RollingOut', 'True'), condition('Available', 'False', 'still rolling out')]),
      user,
    );
    await noChange('a message of a condition no pass reads changed');
  });

  test("a spec change, the topology pass's input, still reaches the topology", async () => {
    await applyObject(mgmt.kube, cluster({ team: 'a' }, true), user);
    const spec = await nextChange('the spec changed');
    assert.deepEqual(spec.controllers, ['topology', 'rollout']);
    assert.deepEqual(routeChange(spec), ['topology', 'rollout']);
  });

  test('a label, which selects ClusterResourceSets and rollouts, reaches every controller', async () => {
    await applyObject(mgmt.kube, cluster({ team: 'b' }, true), user);
    const label = await nextChange('a label changed');
    assert.deepEqual(routeChange(label), ['topology', 'addons', 'rollout']);
  });

  test("an owned MachineDeployment's spec change says its generation changed; a status change does not", async () => {
    const created = await applyObject(mgmt.kube, md(1), user);
    const added = await nextChange('the MachineDeployment was created');
    assert.deepEqual([added.type, added.cluster, added.generationChanged], ['ADDED', 'c1', undefined]);
    await applyStatus(
      mgmt.kube,
      {
        ...md(1),
        status: { observedGeneration: created.metadata.generation, replicas: 1, upToDateReplicas: 1 },
      } as KubeObject,
      user,
    );
    const status = await nextChange('its rollout finished');
    assert.deepEqual([status.generation, status.generationChanged], [created.metadata.generation, undefined]);
    const edited = await applyObject(mgmt.kube, md(3), { fieldManager: 'diff-editor', force: true });
    const spec = await nextChange("a user's edit of spec.replicas");
    assert.deepEqual(
      [spec.kind, spec.cluster, spec.generation, spec.generationChanged],
      ['MachineDeployment', 'c1', edited.metadata.generation, true],
    );
  });

  test("a settled Cluster's owned objects send no status-only change; a spec change, and every change while the Cluster waits, still go", async () => {
    const { generation } = (
      await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c1' })
    ).metadata;
    const topology = (status: string) => [
      condition('RollingOut', 'True'),
      condition('ControlPlaneInitialized', 'True'),
      condition('TopologyReconciled', status, '', generation),
    ];
    const from = sent.length;
    await applyStatus(mgmt.kube, withConditions(topology('True')), user);
    await waitOut();
    assert.ok(sent.length > from, 'the Cluster change was sent');
    consumed = sent.length;
    let mdGeneration = (
      await getObject(mgmt.kube, { apiVersion: capi, kind: 'MachineDeployment', namespace: ns, name: 'c1-md-0' })
    ).metadata.generation as number;
    const mdStatus = (replicas: number, upToDateReplicas: number) =>
      applyStatus(
        mgmt.kube,
        {
          ...md(4),
          status: { observedGeneration: mdGeneration, replicas, readyReplicas: replicas, upToDateReplicas },
        } as KubeObject,
        user,
      );
    await mdStatus(3, 3);
    await noChange("a settled Cluster's MachineDeployment finished a rollout");
    mdGeneration = (await applyObject(mgmt.kube, md(4), { fieldManager: 'diff-editor', force: true })).metadata
      .generation as number;
    const spec = await nextChange("a user's edit of a settled Cluster's MachineDeployment");
    assert.deepEqual([spec.kind, spec.generationChanged], ['MachineDeployment', true]);
    const beforeWaiting = sent.length;
    await applyStatus(mgmt.kube, withConditions(topology('False')), user);
    await waitOut();
    assert.ok(sent.length > beforeWaiting, 'the Cluster change was sent');
    consumed = sent.length;
    // NOTE: while the Cluster waits, a Machine more, ready or up to date changes nothing the pass decides on.
    await mdStatus(5, 1);
    await noChange("a waiting Cluster's MachineDeployment surged a Machine");
    await mdStatus(5, 4);
    await noChange("a waiting Cluster's MachineDeployment has more Machines up to date");
    await mdStatus(4, 4);
    const waking = await nextChange("a waiting Cluster's MachineDeployment finished its rollout");
    assert.deepEqual([waking.kind, waking.cluster, waking.generationChanged], ['MachineDeployment', 'c1', undefined]);
  });

  test('without a ClusterRollout in its namespace, a Cluster change is sent to no rollout', async () => {
    await forwarder.outbox.flush();
    await deleteObject(mgmt.kube, { apiVersion: rolloutApiVersion, kind: 'ClusterRollout', namespace: ns, name: 'r1' });
    const deleted = await nextChange('the ClusterRollout was deleted');
    assert.deepEqual([deleted.kind, deleted.type], ['ClusterRollout', 'DELETED']);
    const { generation } = (
      await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c1' })
    ).metadata;
    // NOTE: the conditions the topology reads as the last test left them; only the rollout's health gate moves.
    await applyStatus(
      mgmt.kube,
      withConditions([
        condition('RollingOut', 'False'),
        condition('ControlPlaneInitialized', 'True'),
        condition('TopologyReconciled', 'True', '', generation),
      ]),
      user,
    );
    await noChange('the health conditions changed, with no rollout in the namespace');
    await applyObject(mgmt.kube, cluster({ team: 'c' }, true), user);
    const label = await nextChange('a label changed');
    assert.deepEqual(routeChange(label), ['topology', 'addons']);
  });
});
