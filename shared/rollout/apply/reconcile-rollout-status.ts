// The rollout's status, written with server-side apply under its own field manager, and only when it changed.
import type { ClusterRollout, ClusterRolloutStatus } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { RolloutApiVersion, RolloutKind } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import { applyStatus, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { formatTime } from '#shared/rollout/desired/format-time.ts';

/**
 * Writes `status` unless it equals what the rollout already has; returns the resourceVersion after the write (or
 * the one read).
 *
 * @example
 * const resourceVersion = await reconcileRolloutStatus(kube, 'capi-serverless-rollout', rollout, desired.status);
 */
export async function reconcileRolloutStatus(
  kube: KubeClient,
  fieldManager: string,
  rollout: ClusterRollout,
  status: ClusterRolloutStatus,
): Promise<{ readonly written: boolean; readonly resourceVersion: string }> {
  const current = rollout.metadata.resourceVersion ?? '';
  if (computeStableJson(rollout.status ?? {}) === computeStableJson(status)) {
    return { written: false, resourceVersion: current };
  }
  const applied = await applyStatus(
    kube,
    {
      apiVersion: RolloutApiVersion,
      kind: RolloutKind,
      metadata: { namespace: rollout.metadata.namespace ?? '', name: rollout.metadata.name ?? '' },
      status,
    },
    { fieldManager, force: true },
  );
  return { written: true, resourceVersion: applied.metadata.resourceVersion ?? current };
}

/**
 * The status of a ClusterRollout whose spec does not parse: phase Invalid and a Progressing condition saying why.
 *
 * @example
 * await reconcileInvalidRollout(kube, fieldManager, raw, 'ClusterRollout fleet/v134: spec.waves[0].clusters: ...', now);
 */
export async function reconcileInvalidRollout(
  kube: KubeClient,
  fieldManager: string,
  raw: KubeObject,
  message: string,
  now: number,
): Promise<{ readonly result: 'Success'; readonly changed: readonly string[] }> {
  const status = (raw['status'] ?? {}) as {
    phase?: string;
    conditions?: { type: string; status: string; message?: string; lastTransitionTime?: string }[];
  };
  const previous = status.conditions?.find((c) => c.type === 'Progressing');
  if (status.phase === 'Invalid' && previous?.message === message) return { result: 'Success', changed: [] };
  await applyStatus(
    kube,
    {
      apiVersion: RolloutApiVersion,
      kind: RolloutKind,
      metadata: { namespace: raw.metadata.namespace ?? '', name: raw.metadata.name ?? '' },
      status: {
        observedGeneration: raw.metadata.generation ?? 0,
        phase: 'Invalid',
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'InvalidSpec',
            message,
            observedGeneration: raw.metadata.generation ?? 0,
            lastTransitionTime:
              previous?.status === 'False' && previous.lastTransitionTime
                ? previous.lastTransitionTime
                : formatTime(now),
          },
        ],
      },
    },
    { fieldManager, force: true },
  );
  return {
    result: 'Success',
    changed: [`status of ClusterRollout ${raw.metadata.namespace ?? ''}/${raw.metadata.name ?? ''}`],
  };
}
