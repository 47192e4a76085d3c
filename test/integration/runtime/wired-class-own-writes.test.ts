// functions/topology.ts's reconciler against a real management cluster and DynamoDB Local: a ClusterClass pass adds
// its owner reference to each template it references; the forwarder's events about those writes (the templates at the
// versions the writes left them at) run no pass, neither the class's nor its Clusters'; a user's edit of a template
// still reaches the Cluster.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { forgetObject, getCheckpoint, recordCheckpoint } from '#shared/checkpoint/index.ts';
import { applyObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import type { PassReport } from '#shared/runtime/types.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { changeEvent, invoke, useWiredFunction } from './wired-setup.ts';

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
const capi = 'cluster.x-k8s.io/v1beta2';
const ns = 'default';
const clusterClass = { apiVersion: capi, kind: 'ClusterClass', namespace: ns, name: 'quick-start' };

function readExample(file: string): KubeObject[] {
  const text = readFileSync(new URL(`../../../examples/docker/${file}`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

const templates = () => readExample('clusterclass.yaml').filter((o) => o.kind.endsWith('Template'));
const describePasses = (passes: readonly PassReport[]) => passes.map((p) => [p.key.kind, p.key.name, p.status]);

/** The forwarder's event about a template as the server has it now. */
async function templateEvent(t: KubeObject) {
  const id = { apiVersion: t.apiVersion, kind: t.kind, namespace: ns, name: t.metadata.name ?? '' };
  const current = await getObject(ctx.mgmt.kube, id);
  return changeEvent({
    ...id,
    uid: current.metadata.uid ?? '',
    generation: current.metadata.generation ?? 0,
    resourceVersion: current.metadata.resourceVersion ?? '',
  });
}

describe("a ClusterClass pass's own template writes", () => {
  before(async () => {
    for (const obj of [...readExample('clusterclass.yaml'), ...readExample('cluster.yaml')])
      await applyObject(ctx.mgmt.kube, obj, { fieldManager: 'test-user', force: true });
    const classPass = await invoke(ctx.countedHandler, changeEvent({ ...clusterClass, type: 'ADDED' }));
    assert.deepEqual(describePasses(classPass), [['ClusterClass', 'quick-start', 'Ran']]);
    // NOTE: the class's status change (now reconciled) reaches the Cluster, which creates its topology.
    const statusChange = await invoke(ctx.countedHandler, changeEvent(clusterClass));
    assert.deepEqual(describePasses(statusChange), [
      ['ClusterClass', 'quick-start', 'Skipped'],
      ['Cluster', 'docker-1', 'Ran'],
    ]);
  });

  test('the events of its owner references on the templates run no pass', async () => {
    for (const t of templates()) {
      const passes = await invoke(ctx.countedHandler, await templateEvent(t));
      assert.deepEqual(describePasses(passes), [], `${t.kind} ${t.metadata.name ?? ''}`);
    }
    const checkpoint = await getCheckpoint(ctx.store, { controller: 'topology', ...clusterClass });
    assert.equal(Object.keys(checkpoint?.ownWrites ?? {}).length, templates().length, 'one write per template');
  });

  test("a user's later edit of a template still runs the Cluster's pass", async () => {
    const [t] = templates().filter((o) => o.kind === 'KubeadmConfigTemplate');
    assert.ok(t);
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: t.apiVersion,
        kind: t.kind,
        metadata: { name: t.metadata.name, namespace: ns, labels: { a: 'b' } },
      },
      { fieldManager: 'another-user', force: true },
    );
    const passes = await invoke(ctx.countedHandler, await templateEvent(t));
    assert.deepEqual(describePasses(passes), [
      ['ClusterClass', 'quick-start', 'Skipped'],
      ['Cluster', 'docker-1', 'Ran'],
    ]);
  });

  test("an event read against the class's checkpoint before its pass recorded it is judged again once the lease is taken: no pass", async () => {
    const key = { controller: 'topology', ...clusterClass } as const;
    const recorded = await getCheckpoint(ctx.store, key);
    assert.ok(recorded);
    // As the diff's maxsurge0 run of 2026-11-28 saw it: the template event's pass read no checkpoint (the class's
    // first pass was still running) and took the lease once that pass had recorded and let it go.
    await forgetObject(ctx.store, key, Date.now());
    let armed = true;
    ctx.store.client.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const pk = String((args.input as { Key?: { pk?: unknown } }).Key?.pk ?? '');
        if (armed && context.commandName === 'GetItemCommand' && pk.includes('ClusterClass')) {
          armed = false;
          await recordCheckpoint(ctx.store, key, recorded);
        }
        return out;
      },
      { step: 'initialize', name: 'recordMeanwhile' },
    );
    try {
      const passes = await invoke(ctx.countedHandler, changeEvent(clusterClass));
      assert.deepEqual(
        passes.filter((p) => p.key.kind === 'ClusterClass').map((p) => [p.status, p.reason]),
        [['Skipped', 'UpToDate']],
      );
    } finally {
      ctx.store.client.middlewareStack.remove('recordMeanwhile');
    }
    assert.equal(armed, false, 'the checkpoint was recorded meanwhile');
    assert.equal((await getCheckpoint(ctx.store, key))?.lastPassId, recorded.lastPassId, 'no checkpoint written');
  });
});
