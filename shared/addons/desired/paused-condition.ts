// The `Paused` condition of a ClusterResourceSet (upstream `paused.EnsurePausedCondition`, v1beta2 conditions only):
// a ClusterResourceSet with the `cluster.x-k8s.io/paused` annotation is not reconciled, and says so.
import type { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { PausedCondition as Paused } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import { formatKubeTime } from '#shared/addons/desired/binding.ts';

export const PausedAnnotation = 'cluster.x-k8s.io/paused';
export const PausedCondition = Paused.type;
export const PausedReason = Paused.reasons;

/** Whether the ClusterResourceSet carries the paused annotation (any value, as upstream `annotations.HasPaused`). */
export function isPaused(crs: ClusterResourceSet): boolean {
  return crs.metadata.annotations?.[PausedAnnotation] !== undefined;
}

/**
 * `Paused` True (reason Paused, upstream's message) while the annotation is set, else False (reason NotPaused), with
 * the ClusterResourceSet's generation as `observedGeneration`; `lastTransitionTime` is kept from `previous` when the
 * status did not change (`meta.SetStatusCondition`).
 *
 * @example
 * computePausedCondition(crs, now).status; // 'True' when crs has the cluster.x-k8s.io/paused annotation
 */
export function computePausedCondition(crs: ClusterResourceSet, now: Date, previous?: Condition): Condition {
  const state = isPaused(crs)
    ? {
        status: 'True' as const,
        reason: PausedReason.Paused,
        message: `ClusterResourceSet has the ${PausedAnnotation} annotation`,
      }
    : { status: 'False' as const, reason: PausedReason.NotPaused, message: '' };
  const generation = crs.metadata.generation;
  return {
    type: PausedCondition,
    ...state,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime:
      previous !== undefined && previous.status === state.status ? previous.lastTransitionTime : formatKubeTime(now),
  };
}
