// The `Paused` condition of a ClusterResourceSet (upstream `paused.EnsurePausedCondition`): a ClusterResourceSet
// with the `cluster.x-k8s.io/paused` annotation is not reconciled, and says so.
import type { ClusterResourceSet } from '#shared/api/addons.ts';
import type { Condition } from '#shared/api/condition.ts';
import { formatKubeTime } from '#shared/addons/desired/binding.ts';

export const PausedAnnotation = 'cluster.x-k8s.io/paused';
export const PausedCondition = 'Paused';
export const PausedReason = { Paused: 'Paused', NotPaused: 'NotPaused' } as const;

/** Whether the ClusterResourceSet carries the paused annotation (any value, as upstream `annotations.HasPaused`). */
export function isPaused(crs: ClusterResourceSet): boolean {
  return crs.metadata.annotations?.[PausedAnnotation] !== undefined;
}

/**
 * `Paused` True (reason Paused, upstream's message) while the annotation is set, else False (reason NotPaused);
 * `lastTransitionTime` is kept from `previous` when the status did not change.
 *
 * @example
 * computePausedCondition(crs, now).status; // 'True' when crs has the cluster.x-k8s.io/paused annotation
 */
export function computePausedCondition(crs: ClusterResourceSet, now: Date, previous?: Condition): Condition {
  const next: Omit<Condition, 'lastTransitionTime'> = isPaused(crs)
    ? {
        type: PausedCondition,
        status: 'True',
        reason: PausedReason.Paused,
        message: `ClusterResourceSet has the ${PausedAnnotation} annotation`,
      }
    : { type: PausedCondition, status: 'False', reason: PausedReason.NotPaused };
  const same =
    previous !== undefined &&
    previous.status === next.status &&
    previous.reason === next.reason &&
    previous.message === next.message;
  return { ...next, lastTransitionTime: same ? previous.lastTransitionTime : formatKubeTime(now) };
}
