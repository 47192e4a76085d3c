// Writes one condition of an object's status (the Cluster's TopologyReconciled, a ClusterClass's conditions) only
// when it changes. `status.conditions` is an atomic list in upstream's CRDs, so the write is a merge patch of the
// whole list guarded by the resourceVersion it was computed from: another writer's condition is never lost.
import { isDeepStrictEqual } from 'node:util';
import type { Condition } from '#shared/api/condition.ts';
import { getObject, KubeConflictError, patchObject, refOf, type KubeClient } from '#shared/kube/index.ts';
import { computeWriteError } from '#shared/topology/apply/errors.ts';
import { computeConditions, type ConditionState } from '#shared/topology/outcome.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type StatusWrite = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly now: Date;
};

const conditionsOf = (obj: Unstructured) =>
  ((obj['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];

/**
 * Sets `conditions` on `obj`'s status (plus any `extraStatus` fields) when something differs; on a conflict reads
 * the object again and retries once. Resolves whether it wrote.
 *
 * @example
 * await reconcileConditions(write, rawCluster, [computeTopologyReconciledCondition(state)]);
 */
export async function reconcileConditions(
  write: StatusWrite,
  obj: Unstructured,
  conditions: readonly ConditionState[],
  extraStatus: (current: Unstructured) => Record<string, unknown> = () => ({}),
): Promise<boolean> {
  const attempt = async (current: Unstructured): Promise<boolean> => {
    let list = conditionsOf(current);
    let changed = false;
    for (const condition of conditions) {
      const next = computeConditions(list, condition, write.now);
      list = next.conditions;
      changed ||= next.changed;
    }
    const extra = extraStatus(current);
    const status = (current['status'] ?? {}) as Record<string, unknown>;
    const extraChanged = Object.entries(extra).some(([k, v]) => !isDeepStrictEqual(status[k], v));
    if (!changed && !extraChanged) return false;
    await patchObject(
      write.kube,
      refOf(current),
      {
        metadata: { resourceVersion: current.metadata.resourceVersion },
        status: { ...extra, ...(changed ? { conditions: list } : {}) },
      },
      { fieldManager: write.fieldManager, subresource: 'status' },
    );
    return true;
  };
  try {
    try {
      return await attempt(obj);
    } catch (err) {
      if (!(err instanceof KubeConflictError)) throw err;
      return await attempt((await getObject(write.kube, refOf(obj))) as Unstructured);
    }
  } catch (err) {
    throw computeWriteError('update status of', err, obj);
  }
}
