// Node drain/detach/deletion timeouts between v1beta1 (top-level `node*Timeout` durations) and v1beta2
// (`deletion.node*TimeoutSeconds`), as every upstream conversion with these fields maps them.
import { convertFromSeconds, convertToSeconds } from '#shared/api/conversion/durations.ts';
import { compact, objectAt, type Unstructured } from '#shared/api/conversion/unstructured.ts';

export const V1Beta1DeletionFields = ['nodeDrainTimeout', 'nodeVolumeDetachTimeout', 'nodeDeletionTimeout'] as const;

/** v1beta2 `deletion` timeouts (in seconds) of a v1beta1 object carrying `node*Timeout` durations. */
export function convertDeletionTimeoutsToHub(source: Unstructured): Unstructured {
  return compact({
    nodeDrainTimeoutSeconds: convertToSeconds(source['nodeDrainTimeout']),
    nodeVolumeDetachTimeoutSeconds: convertToSeconds(source['nodeVolumeDetachTimeout']),
    nodeDeletionTimeoutSeconds: convertToSeconds(source['nodeDeletionTimeout']),
  });
}

/** v1beta1 `node*Timeout` durations of a v1beta2 object's `deletion`. */
export function convertDeletionTimeoutsFromHub(source: Unstructured): Unstructured {
  const deletion = objectAt(source, 'deletion');
  return compact({
    nodeDrainTimeout: convertFromSeconds(deletion?.['nodeDrainTimeoutSeconds']),
    nodeVolumeDetachTimeout: convertFromSeconds(deletion?.['nodeVolumeDetachTimeoutSeconds']),
    nodeDeletionTimeout: convertFromSeconds(deletion?.['nodeDeletionTimeoutSeconds']),
  });
}
