// The Cluster's TopologyReconciled condition written while another manager writes the same Cluster's status, as
// upstream's core manager does several times a second while a Cluster provisions (found by the N = 100 side-by-side
// bench: 119 topology passes failed with "the object has been modified" during the fleet's creation, and their
// retries kept the idle window busy). Proven on a real API server: a second client writes the status right before
// each of our attempts, so every stale write is a real 409. Upstream's patch helper makes 5 attempts, each from a new
// read; the pass's first write goes from its own read (stale when the Cluster is provisioning) and does not count
// against those 5 (the 4 fresh attempts before 2026-11-28 made a status write fail sooner than upstream's).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { patchObject, type KubeClient, type KubeRequest } from '#shared/kube/index.ts';
import { reconcileConditions, statusConflictRetry } from '#shared/topology/apply/reconcile-condition.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { capi, mustGet, put, setUpClass, testCluster, useTopologyCluster } from '#test/integration/topology/setup.ts';

const ctx = useTopologyCluster();

type Condition = { type: string; status: string; reason: string; message?: string };

/**
 * The passes' client, except that before each of its first `races` status writes the Cluster's status is changed
 * by another manager (its own `Available` condition with a new message), through the real API server.
 */
function racingClient(
  kube: KubeClient,
  races: number,
): { kube: KubeClient; raced: () => number; requests: readonly string[] } {
  let raced = 0;
  const requests: string[] = [];
  const request = async <T>(req: KubeRequest): Promise<T> => {
    requests.push(`${req.method} ${req.path}`);
    if (req.method === 'PATCH' && req.path.endsWith('/status') && raced < races) {
      raced++;
      const [, namespace, name] = /namespaces\/([^/]+)\/clusters\/([^/]+)\/status$/.exec(req.path) ?? [];
      const current = await mustGet(ctx, capi, 'Cluster', { namespace: namespace!, name: name! });
      const others = ((current['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(
        (c) => c.type !== 'Available',
      );
      await patchObject(
        ctx.mgmt.kube,
        { apiVersion: capi, kind: 'Cluster', namespace: namespace!, name: name! },
        {
          status: {
            conditions: [
              ...others,
              {
                type: 'Available',
                status: 'False',
                reason: 'NotAvailable',
                message: `write ${raced} of the core manager`,
                lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              },
            ],
          },
        },
        { fieldManager: 'manager', subresource: 'status' },
      );
    }
    return kube.request<T>(req);
  };
  return { kube: { ...kube, request }, raced: () => raced, requests };
}

const reconciled = {
  condition: { type: 'TopologyReconciled', status: 'True', reason: 'ReconcileSucceeded', message: '' },
} as const;

describe('status writes beside another status writer', () => {
  test('a write nobody raced is one PATCH from what the pass read, with no extra read', async () => {
    const namespace = 'status-quiet';
    await setUpClass(ctx, namespace);
    await put(ctx, testCluster(namespace, 'quiet'));
    const read = await mustGet(ctx, capi, 'Cluster', { namespace, name: 'quiet' });
    const racing = racingClient(ctx.pass.kube, 0);

    const wrote = await reconcileConditions(
      { kube: racing.kube, fieldManager: 'capi-topology', now: new Date() },
      read as Unstructured,
      [reconciled],
    );

    assert.equal(wrote, true);
    assert.deepEqual(racing.requests, [
      `PATCH /apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters/quiet/status`,
    ]);
  });

  test('a TopologyReconciled write whose first write and 4 fresh retries conflict lands on the 5th fresh one, keeping the other condition', async () => {
    const namespace = 'status-race';
    await setUpClass(ctx, namespace);
    await put(ctx, testCluster(namespace, 'busy'));
    const stale = await mustGet(ctx, capi, 'Cluster', { namespace, name: 'busy' });
    // NOTE: the first write from the pass's read, then 4 of upstream's 5 fresh steps, all conflict.
    const racing = racingClient(ctx.pass.kube, statusConflictRetry.attempts);

    const wrote = await reconcileConditions(
      { kube: racing.kube, fieldManager: 'capi-topology', now: new Date() },
      stale as Unstructured,
      [reconciled],
    );

    assert.equal(wrote, true);
    assert.equal(racing.raced(), statusConflictRetry.attempts);
    const conditions = (await mustGet(ctx, capi, 'Cluster', { namespace, name: 'busy' }))['status'] as {
      conditions: Condition[];
    };
    const byType = new Map(conditions.conditions.map((c) => [c.type, c]));
    assert.equal(byType.get('TopologyReconciled')?.status, 'True');
    assert.equal(byType.get('Available')?.message, `write ${statusConflictRetry.attempts} of the core manager`);
  });

  test('a write that still conflicts after every attempt fails naming the Cluster, and leaves the status as it was', async () => {
    const namespace = 'status-race-lost';
    await setUpClass(ctx, namespace);
    await put(ctx, testCluster(namespace, 'busier'));
    const stale = await mustGet(ctx, capi, 'Cluster', { namespace, name: 'busier' });
    const racing = racingClient(ctx.pass.kube, Number.POSITIVE_INFINITY);

    await assert.rejects(
      reconcileConditions(
        { kube: racing.kube, fieldManager: 'capi-topology', now: new Date() },
        stale as Unstructured,
        [reconciled],
      ),
      /failed to update status of Cluster status-race-lost\/busier: Operation cannot be fulfilled/,
    );
    assert.equal(racing.raced(), statusConflictRetry.attempts + 1);
    const conditions = (
      (await mustGet(ctx, capi, 'Cluster', { namespace, name: 'busier' }))['status'] as {
        conditions: Condition[];
      }
    ).conditions;
    assert.equal(
      conditions.find((c) => c.type === 'TopologyReconciled'),
      undefined,
    );
    assert.equal(
      conditions.find((c) => c.type === 'Available')?.message,
      `write ${statusConflictRetry.attempts + 1} of the core manager`,
    );
  });
});
