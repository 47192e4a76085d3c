// Reads a ClusterRollout, parsed once at the boundary.
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ClusterRollout, RolloutApiVersion, RolloutKind } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { findObject, listObjects, type KubeClient, type KubeObject } from '#shared/kube/index.ts';

/**
 * The ClusterRollout `key` as stored (unparsed), or undefined when it does not exist.
 *
 * @example
 * const raw = await findClusterRollout(kube, { namespace: 'fleet', name: 'v134' });
 */
export async function findClusterRollout(kube: KubeClient, key: ObjectKey): Promise<KubeObject | undefined> {
  return findObject(kube, { apiVersion: RolloutApiVersion, kind: RolloutKind, ...key });
}

/** Parses a stored ClusterRollout; throws a ValidationError naming the field when it does not match the schema. */
export function parseClusterRollout(raw: unknown): ClusterRollout {
  return parseObject(ClusterRollout, RolloutKind, raw);
}

/**
 * Every ClusterRollout in `namespace` (those that do not parse are left out: their own pass reports them).
 *
 * @example
 * const rollouts = await listClusterRollouts(kube, 'fleet');
 */
export async function listClusterRollouts(kube: KubeClient, namespace: string): Promise<ClusterRollout[]> {
  const list = await listObjects(kube, { apiVersion: RolloutApiVersion, kind: RolloutKind, namespace });
  return list.items.flatMap((raw) => {
    const parsed = ClusterRollout.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}
