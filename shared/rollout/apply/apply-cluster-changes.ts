// The change itself: a plain server-side apply of spec.topology.classRef/version on each Cluster the pass starts,
// under the rollout's own field manager, so upstream's webhooks and validation rules judge it like any user's change.
// Only the Clusters in `changes` are written: never one outside the selector or not yet reached.
import { errorMessage } from '#shared/errors/index.ts';
import {
  applyObject,
  KubeConflictError,
  KubeError,
  KubeForbiddenError,
  KubeInvalidError,
  type KubeClient,
} from '#shared/kube/index.ts';
import { clusterApiVersion } from '#shared/rollout/current/list-rollout-clusters.ts';
import type { ChangeResult, ClusterChange } from '#shared/rollout/types.ts';

export type ApplyChangesDeps = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly signal?: AbortSignal;
};

/**
 * Applies each change, one after another (a wave is small; `maxConcurrent` bounds it). A refusal by the server (a
 * webhook, a CEL rule: 422 or 403) is the Cluster's failure with the server's message; a 409 (the Cluster changed
 * since it was read: `metadata.resourceVersion` is a precondition) or an unavailable server is tried again.
 *
 * @example
 * await applyClusterChanges(deps, 'fleet', [{ name: 'c01', set: { version: 'v1.34.1' }, resourceVersion: '812', ... }]);
 * // [{ name: 'c01', result: 'Applied', resourceVersion: '815' }]
 */
export async function applyClusterChanges(
  deps: ApplyChangesDeps,
  namespace: string,
  changes: readonly ClusterChange[],
): Promise<ChangeResult[]> {
  const results: ChangeResult[] = [];
  for (const change of changes) {
    if (deps.signal?.aborted) {
      results.push({ name: change.name, result: 'Retry', message: 'the pass ran out of time' });
      continue;
    }
    try {
      const applied = await applyObject(
        deps.kube,
        {
          apiVersion: clusterApiVersion,
          kind: 'Cluster',
          metadata: { namespace, name: change.name, resourceVersion: change.resourceVersion },
          spec: { topology: { ...change.set } },
        },
        { fieldManager: deps.fieldManager, force: true },
      );
      results.push({ name: change.name, result: 'Applied', resourceVersion: applied.metadata.resourceVersion ?? '' });
    } catch (err) {
      if (err instanceof KubeInvalidError || err instanceof KubeForbiddenError) {
        results.push({ name: change.name, result: 'Refused', message: err.serverMessage || err.message });
      } else if (err instanceof KubeConflictError || err instanceof KubeError) {
        results.push({ name: change.name, result: 'Retry', message: err.serverMessage || err.message });
      } else {
        results.push({ name: change.name, result: 'Retry', message: errorMessage(err) });
      }
    }
  }
  return results;
}
