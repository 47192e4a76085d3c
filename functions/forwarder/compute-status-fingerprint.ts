// What of a topology-owned object's state the topology pass waits on (upstream's watch predicates on the control
// plane and the workers): its generation, deletion and the status fields that say whether it is upgrading, scaling
// or rolling out. A change of anything else (a condition's message, a heartbeat, managedFields) sends no event.
import type { KubeObject } from '#shared/kube/objects.ts';

/** Status fields (paths under `status`) that the upgrade sequencing and the creation of workers read. */
const statusPaths = [
  ['observedGeneration'],
  ['version'],
  ['replicas'],
  ['readyReplicas'],
  ['availableReplicas'],
  ['upToDateReplicas'],
  ['updatedReplicas'],
  ['unavailableReplicas'],
  ['initialized'],
  ['initialization'],
  ['phase'],
  ['deprecated', 'v1beta1', 'readyReplicas'],
  ['deprecated', 'v1beta1', 'updatedReplicas'],
  ['deprecated', 'v1beta1', 'unavailableReplicas'],
  ['deprecated', 'v1beta1', 'availableReplicas'],
] as const;

function valueAt(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const segment of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}

/**
 * A short string that changes exactly when one of the watched fields changes (stable key order, so equal states give
 * equal strings).
 *
 * @example
 * computeStatusFingerprint({ metadata: { generation: 2 }, status: { observedGeneration: 1, version: 'v1.33.0' } });
 * // '2|-|1|"v1.33.0"|-|...'
 */
export function computeStatusFingerprint(obj: KubeObject & { status?: unknown }): string {
  const encode = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  return [
    encode(obj.metadata.generation),
    obj.metadata.deletionTimestamp === undefined ? '-' : 'deleting',
    ...statusPaths.map((path) => encode(valueAt(obj.status, path))),
  ].join('|');
}
