// functions/topology.ts's reconciler against a real management cluster and DynamoDB Local with the control plane
// refused at creation (a ValidatingAdmissionPolicy the real API server enforces, as the KubeadmControlPlane webhook
// refuses maxSurge 0 for one replica): the first pass writes as upstream's does; its retries, refused with the same
// error, create no health check and no machine template only to delete them again; each retry waits longer than
// the one before; an event before the due time runs nothing; a spec change runs at once and creates the control plane.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { getCheckpoint, type Checkpoint } from '#shared/checkpoint/index.ts';
import { applyObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { reconcileTopology } from '#shared/topology/index.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { changeEvent, invoke, resetCounters, useWiredFunction } from './wired-setup.ts';

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
const cluster = { apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'docker-1' };
const checkpointKey = { controller: 'topology', kind: 'Cluster', namespace: ns, name: 'docker-1' } as const;
const refusal = 'three control-plane replicas are refused in this test';

function readExample(file: string): KubeObject[] {
  const text = readFileSync(new URL(`../../../examples/docker/${file}`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

function clusterWithReplicas(replicas: number): KubeObject {
  const c = readExample('cluster.yaml').find((o) => o.kind === 'Cluster') as KubeObject & {
    spec: { topology: { controlPlane: { replicas: number } } };
  };
  c.spec.topology.controlPlane.replicas = replicas;
  return c;
}

/** A ValidatingAdmissionPolicy and its binding: the real API server refuses a KubeadmControlPlane with 3 replicas. */
async function refuseThreeReplicas(): Promise<void> {
  const admission = 'admissionregistration.k8s.io/v1';
  await applyObject(
    ctx.mgmt.kube,
    {
      apiVersion: admission,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'refuse-three-replicas' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['controlplane.cluster.x-k8s.io'],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['kubeadmcontrolplanes'],
            },
          ],
        },
        validations: [{ expression: '!has(object.spec.replicas) || object.spec.replicas != 3', message: refusal }],
      },
    } as KubeObject,
    { fieldManager: 'test-user', force: true },
  );
  await applyObject(
    ctx.mgmt.kube,
    {
      apiVersion: admission,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'refuse-three-replicas' },
      spec: { policyName: 'refuse-three-replicas', validationActions: ['Deny'] },
    } as KubeObject,
    { fieldManager: 'test-user', force: true },
  );
  // NOTE: the API server loads policies asynchronously: wait until a dry-run create is refused.
  const probe = {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'probe', namespace: ns },
    spec: { replicas: 3 },
  } as KubeObject;
  for (const deadline = Date.now() + 30_000; ;) {
    const refused = await applyObject(ctx.mgmt.kube, probe, { fieldManager: 'test-user', dryRun: true }).then(
      () => false,
      (err: unknown) => String(err).includes(refusal) || (err as { message?: string }).message?.includes(refusal),
    );
    if (refused) return;
    if (Date.now() > deadline) assert.fail('the ValidatingAdmissionPolicy is not enforced after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const count = async (apiVersion: string, kind: string) =>
  (await listObjects(ctx.mgmt.kube, { apiVersion, kind, namespace: ns })).items.length;

/** The writes of the counted client (dry runs excluded), as `METHOD resource`. */
function writes(): string[] {
  return ctx.kubeLog
    .mutating()
    .map((r) => `${r.method} ${r.path.split('/').slice(-2).join('/')}`)
    .sort();
}

async function checkpoint(): Promise<Checkpoint> {
  const found = await getCheckpoint(ctx.store, checkpointKey);
  assert.ok(found, 'the Cluster has a checkpoint');
  return found;
}

describe('a Cluster whose control plane is refused at creation', () => {
  before(async () => {
    await refuseThreeReplicas();
    for (const obj of readExample('clusterclass.yaml'))
      await applyObject(ctx.mgmt.kube, obj, { fieldManager: 'test-user', force: true });
    await applyObject(ctx.mgmt.kube, clusterWithReplicas(3), { fieldManager: 'test-user', force: true });
    const classPass = await invoke(ctx.countedHandler, changeEvent({ ...clusterClass, type: 'ADDED' }));
    assert.deepEqual(
      classPass.map((p) => [p.key.kind, p.result]),
      [['ClusterClass', 'Success']],
    );
  });

  test('retries without creating and deleting its health check and template, each waiting longer; a spec change runs at once', async () => {
    resetCounters(ctx);
    const [first] = await invoke(ctx.countedHandler, changeEvent(cluster));
    assert.equal(first?.result, 'Error');
    assert.match(first?.reason ?? '', new RegExp(refusal));
    // NOTE: as upstream's pass, the first one creates the health check and the template before the control plane is
    // refused (upstream then deletes the template and leaks the health check; this pass deletes both).
    assert.ok(
      writes().some((w) => w.startsWith('PATCH machinehealthchecks/')),
      writes().join('\n'),
    );
    assert.equal(await count(capi, 'MachineHealthCheck'), 0);
    assert.equal(await count('infrastructure.cluster.x-k8s.io/v1beta2', 'DockerMachineTemplate'), 2, 'the class');

    const delays: number[] = [];
    let last = await checkpoint();
    delays.push((last.nextAttemptAt ?? 0) - last.updatedAt);
    for (let retry = 1; retry <= 4; retry++) {
      if (retry > 1) {
        // An event before the due time (the Cluster's own status write, say) runs nothing.
        ctx.clock.now = (last.nextAttemptAt ?? 0) - 1;
        const [early] = await invoke(ctx.countedHandler, changeEvent(cluster));
        assert.deepEqual([early?.status, early?.reason], ['Skipped', 'BackingOff']);
        ctx.clock.now = last.nextAttemptAt ?? 0;
      }
      // NOTE: the first retry runs at once: the first pass set the Cluster's infrastructureRef (a new generation), as
      // upstream's watch on the Cluster runs its pass again at once after that write.
      resetCounters(ctx);
      const [pass] = await invoke(ctx.countedHandler, changeEvent(cluster));
      assert.equal(pass?.result, 'Error', `retry ${retry}`);
      assert.equal(pass?.reason, first?.reason, 'the same error, worded as the create worded it');
      assert.deepEqual(
        writes().filter((w) => !w.startsWith('PATCH clusters/docker-1')),
        [],
        `retry ${retry} writes nothing but the Cluster's status`,
      );
      const dryRuns = ctx.kubeLog.records.filter((r) => r.dryRun && r.path.includes('kubeadmcontrolplanes'));
      assert.equal(dryRuns.length, 1, `retry ${retry} asks the server once whether it would create the control plane`);
      last = await checkpoint();
      assert.equal(last.attempts, retry + 1);
      delays.push((last.nextAttemptAt ?? 0) - last.updatedAt);
    }
    // BACKOFF_BASE_MS 1000 doubling, jitter 0.5 (three quarters of the exponential delay), capped at 60 s.
    assert.deepEqual(delays, [750, 1_500, 3_000, 6_000, 12_000]);
    assert.equal(await count(capi, 'MachineHealthCheck'), 0);

    // A spec change runs at once, while backing off, and the control plane is admitted.
    await applyObject(ctx.mgmt.kube, clusterWithReplicas(1), { fieldManager: 'test-user', force: true });
    const [fixed] = await invoke(ctx.countedHandler, changeEvent(cluster));
    assert.deepEqual([fixed?.status, fixed?.result], ['Ran', 'Success'], fixed?.reason);
    assert.equal(await count('controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'), 1);
    assert.equal(await count(capi, 'MachineHealthCheck'), 1);
    assert.equal((await checkpoint()).attempts, 0);
  });

  test('a dry run refused with another error than the last pass ended with writes as upstream does (no deadlock on a webhook that wants the template)', async () => {
    const second = { ...clusterWithReplicas(3), metadata: { name: 'docker-2', namespace: ns } } as KubeObject;
    await applyObject(ctx.mgmt.kube, second, { fieldManager: 'test-user', force: true });
    const pass = await ctx.mgmt.newClient();
    try {
      const deps = { kube: pass.kube, randomSuffix: sequentialSuffix(), now: () => new Date() };
      const outcome = await reconcileTopology(
        deps,
        { namespace: ns, name: 'docker-2' },
        {
          previousError: 'failed to create kubeadmcontrolplanes.controlplane.cluster.x-k8s.io: the template is missing',
        },
      );
      assert.equal(outcome.result, 'Error');
      assert.match(outcome.error ?? '', new RegExp(refusal));
      const healthChecks = pass.log.mutating().filter((r) => r.path.includes('/machinehealthchecks/'));
      assert.deepEqual(
        healthChecks.map((r) => r.method),
        ['PATCH', 'DELETE'],
        'the health check is created and deleted again',
      );
    } finally {
      pass.kube.close();
    }
  });
});
