// Writes conditions of an object's status (the Cluster's TopologyReconciled, a ClusterClass's conditions) only when
// they change, as upstream v1beta2 does: `status.conditions` (metav1.Condition) and the v1beta1 twin under
// `status.deprecated.v1beta1.conditions`. The write is a merge patch of both whole lists guarded by the
// resourceVersion they were computed from: another writer's condition is never lost. The first write goes from the
// object as the pass read it (no extra read when nobody wrote meanwhile); a conflict (upstream's core manager writes a
// provisioning Cluster's status several times a second) is retried as upstream's patch helper retries its status
// conditions (util/patch patchStatusConditions: Steps 5, Duration 100 ms, Jitter 1.0, each step from a new read):
// up to 5 more writes, each 100-200 ms after the last and from a fresh read.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Condition as V1Beta1Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import { getObject, KubeConflictError, patchObject, refOf, type KubeClient } from '#shared/kube/index.ts';
import { computeWriteError } from '#shared/topology/apply/errors.ts';
import { computeConditions, computeV1Beta1Conditions, type ConditionPair } from '#shared/topology/outcome.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type StatusWrite = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly now: Date;
};

type Status = { conditions?: Condition[]; deprecated?: { v1beta1?: { conditions?: V1Beta1Condition[] } } };

const conditionsOf = (obj: Unstructured) => (obj['status'] as Status | undefined)?.conditions ?? [];
const v1beta1ConditionsOf = (obj: Unstructured) =>
  (obj['status'] as Status | undefined)?.deprecated?.v1beta1?.conditions ?? [];

/**
 * Writes of a conflicting status from a fresh read of the object (upstream's 5 steps, each from a new read), after the
 * first write from the pass's own read; and the wait between two of them (doubled at most by jitter).
 */
export const statusConflictRetry = { attempts: 5, delayMs: 100 } as const;

/**
 * Sets `conditions` on `obj`'s status (plus any `extraStatus` fields) when something differs; on a conflict reads
 * the object again and retries, up to {@link statusConflictRetry} writes from fresh reads. Resolves whether it wrote.
 *
 * @example
 * await reconcileConditions(write, rawCluster, [computeTopologyReconciledCondition(state)]);
 */
export async function reconcileConditions(
  write: StatusWrite,
  obj: Unstructured,
  conditions: readonly ConditionPair[],
  extraStatus: (current: Unstructured) => Record<string, unknown> = () => ({}),
): Promise<boolean> {
  const attempt = async (current: Unstructured): Promise<boolean> => {
    let list = conditionsOf(current);
    let v1beta1List = v1beta1ConditionsOf(current);
    let changed = false;
    let v1beta1Changed = false;
    for (const { condition, v1beta1 } of conditions) {
      const next = computeConditions(list, condition, write.now, current.metadata.generation);
      list = next.conditions;
      changed ||= next.changed;
      if (!v1beta1) continue;
      const nextV1Beta1 = computeV1Beta1Conditions(v1beta1List, v1beta1, write.now);
      v1beta1List = nextV1Beta1.conditions;
      v1beta1Changed ||= nextV1Beta1.changed;
    }
    const extra = extraStatus(current);
    const status = (current['status'] ?? {}) as Record<string, unknown>;
    const extraChanged = Object.entries(extra).some(([k, v]) => !isDeepStrictEqual(status[k], v));
    if (!changed && !v1beta1Changed && !extraChanged) return false;
    await patchObject(
      write.kube,
      refOf(current),
      {
        metadata: { resourceVersion: current.metadata.resourceVersion },
        status: {
          ...extra,
          ...(changed ? { conditions: list } : {}),
          ...(v1beta1Changed ? { deprecated: { v1beta1: { conditions: v1beta1List } } } : {}),
        },
      },
      { fieldManager: write.fieldManager, subresource: 'status' },
    );
    return true;
  };
  try {
    // NOTE: `fresh` counts the writes from a new read; the first write, from the pass's own read, is not one of them:
    // upstream's five steps all start from a new read, and a Cluster being created has nearly always had its status
    // written since the pass read it (before 2026-11-28 it counted, leaving 4 fresh writes where upstream makes 5).
    let current = obj;
    for (let fresh = 0; ; fresh++) {
      try {
        return await attempt(current);
      } catch (err) {
        if (!(err instanceof KubeConflictError) || fresh >= statusConflictRetry.attempts) throw err;
      }
      await sleep(statusConflictRetry.delayMs * (1 + Math.random()));
      current = (await getObject(write.kube, refOf(obj))) as Unstructured;
    }
  } catch (err) {
    throw computeWriteError('update status of', err, obj);
  }
}
