// Comparing what a Cluster's topology says with what the rollout started from and where it goes.
import type { RolloutChange, TopologyTarget } from '#shared/api/management/v1alpha1/cluster-rollout.ts';

/** The Cluster's classRef/version once the rollout's change is made on top of `original`. */
export function computeTarget(original: TopologyTarget | undefined, change: RolloutChange): TopologyTarget {
  const classRef = change.classRef ?? original?.classRef;
  const version = change.version ?? original?.version;
  return { ...(classRef ? { classRef } : {}), ...(version !== undefined ? { version } : {}) };
}

/**
 * Whether two classRef/version pairs are the same, reading an absent classRef namespace as the Cluster's own.
 *
 * @example
 * isSameTopology({ classRef: { name: 'a' }, version: 'v1' }, { classRef: { name: 'a', namespace: 'ns' }, version: 'v1' }, 'ns'); // true
 */
export function isSameTopology(
  a: TopologyTarget | undefined,
  b: TopologyTarget | undefined,
  namespace: string,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  const ns = (t: TopologyTarget) => t.classRef?.namespace ?? namespace;
  return a.classRef?.name === b.classRef?.name && ns(a) === ns(b) && a.version === b.version;
}

/** `class@version` as messages show it, e.g. `dev-v2@v1.34.1`. */
export function describeTopology(t: TopologyTarget | undefined): string {
  if (t === undefined) return 'no topology';
  const ref = t.classRef
    ? t.classRef.namespace
      ? `${t.classRef.namespace}/${t.classRef.name}`
      : t.classRef.name
    : '?';
  return `${ref}@${t.version ?? '?'}`;
}
