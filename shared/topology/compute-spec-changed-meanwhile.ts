// Whether a Cluster's spec changed under a running pass: pure.
import { computeStableJson } from '#shared/hash/stable-json.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** The spec without the references the pass itself writes. */
function specOf(cluster: Unstructured): unknown {
  const { infrastructureRef: _i, controlPlaneRef: _c, ...rest } = (cluster['spec'] ?? {}) as Record<string, unknown>;
  return rest;
}

/**
 * True when `latest` (the Cluster as the pass's own writes returned it) has a spec other than `read` (the one the pass
 * computed from), the references the pass writes aside: someone changed the Cluster while the pass ran, and the
 * pass's own write carried that change into the version the checkpoint records.
 * NOTE: the event of that change arrives while this pass holds the lease and is skipped, and the checkpoint records
 * the generation read at the start; without a requeue nothing ran before the next change or sweep (found by the
 * differential: a MachineDeployment added while the pass cleared the pending-hooks mark was never created).
 *
 * @example
 * isClusterSpecChangedMeanwhile(readAtStart, latestAfterOwnWrites); // true when a user edited spec.topology meanwhile
 */
export function isClusterSpecChangedMeanwhile(read: Unstructured, latest: Unstructured): boolean {
  if (read === latest) return false;
  return computeStableJson(specOf(read)) !== computeStableJson(specOf(latest));
}
