// One pass over a ClusterRollout: read it and its Clusters, compute the next step (pure), write status first (the
// intent), then the Cluster changes, then the status again if the server refused or deferred some, then Events.
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { ValidationError } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { applyClusterChanges } from '#shared/rollout/apply/apply-cluster-changes.ts';
import { recordRolloutEvents } from '#shared/rollout/apply/record-rollout-events.ts';
import { reconcileInvalidRollout, reconcileRolloutStatus } from '#shared/rollout/apply/reconcile-rollout-status.ts';
import { findClusterRollout, parseClusterRollout } from '#shared/rollout/current/get-cluster-rollout.ts';
import { listRolloutClusters } from '#shared/rollout/current/list-rollout-clusters.ts';
import { computeRollout } from '#shared/rollout/desired/compute-rollout.ts';
import { computeRolloutEvents } from '#shared/rollout/desired/compute-rollout-events.ts';
import { computeStatusAfterApply } from '#shared/rollout/desired/compute-status-after-apply.ts';
import { computeRolloutOutcome, type RolloutOutcome } from '#shared/rollout/outcome.ts';

export type RolloutDeps = {
  readonly kube: KubeClient;
  /** The rollout's own field manager (its Cluster writes and status). */
  readonly fieldManager: string;
  /** The clock (epoch ms), read once per pass and passed to the pure step. */
  readonly now: () => number;
  readonly signal?: AbortSignal;
  readonly warn?: (message: string, error: string) => void;
};

/**
 * Reconciles one ClusterRollout.
 *
 * @example
 * const outcome = await reconcileRollout(deps, { namespace: 'fleet', name: 'v134' });
 * // { result: 'Requeue', requeueAfterMs: 600000, changed: ['changed Cluster fleet/c01 (wave-1)', 'status of ClusterRollout fleet/v134'] }
 */
export async function reconcileRollout(deps: RolloutDeps, key: ObjectKey): Promise<RolloutOutcome> {
  const raw = await findClusterRollout(deps.kube, key);
  if (raw === undefined) return { result: 'Success', changed: [] };
  let rollout;
  try {
    rollout = parseClusterRollout(raw);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return reconcileInvalidRollout(deps.kube, deps.fieldManager, raw, err.message, deps.now());
  }
  const clusters = await listRolloutClusters(deps.kube, rollout);
  const now = deps.now();
  const desired = computeRollout({ rollout, clusters, now });
  const intent = await reconcileRolloutStatus(deps.kube, deps.fieldManager, rollout, desired.status);
  const results = await applyClusterChanges(deps, key.namespace, desired.changes);
  const final = computeStatusAfterApply(rollout, desired, results, now);
  const written =
    final === desired
      ? intent
      : await reconcileRolloutStatus(
          deps.kube,
          deps.fieldManager,
          {
            ...rollout,
            metadata: { ...rollout.metadata, resourceVersion: intent.resourceVersion },
            status: desired.status,
          },
          final.status,
        );
  const events = computeRolloutEvents(`${key.namespace}/${key.name}`, rollout.status, final.status, final.changes);
  await recordRolloutEvents(deps, rollout, clusters, events);
  return computeRolloutOutcome({
    key,
    final,
    results,
    statusWritten: intent.written || written.written,
    resourceVersion: written.resourceVersion,
    now,
  });
}
