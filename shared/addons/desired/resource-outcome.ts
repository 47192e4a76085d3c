// What happened to each resource of a ClusterResourceSet on one cluster: the decision from computeResourcesToApply
// plus, for applied resources, the result of applying. Feeds both the binding and the ResourcesApplied condition.
import type { ResourceRef } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ResourceToApply } from '#shared/addons/desired/resources-to-apply.ts';

export type ResourceOutcome =
  | { readonly ref: ResourceRef; readonly outcome: 'Skipped' }
  | { readonly ref: ResourceRef; readonly outcome: 'NotFound' }
  | { readonly ref: ResourceRef; readonly outcome: 'Applied'; readonly hash: string }
  | { readonly ref: ResourceRef; readonly outcome: 'ApplyFailed'; readonly hash: string; readonly message: string }
  | { readonly ref: ResourceRef; readonly outcome: 'Invalid'; readonly message: string }
  | { readonly ref: ResourceRef; readonly outcome: 'WrongSecretType'; readonly message: string }
  | { readonly ref: ResourceRef; readonly outcome: 'RetrievingResourceFailed'; readonly message: string };

/** The outcomes of one ClusterResourceSet on one cluster. */
export type ClusterOutcome = {
  readonly cluster: { readonly namespace: string; readonly name: string };
  /** Set when no client for the workload cluster could be had: nothing was applied. */
  readonly remoteClientError?: string | undefined;
  readonly resources: readonly ResourceOutcome[];
};

/**
 * The outcome of one decision. For an `apply` decision pass the apply result: `{}` when every object applied,
 * `{ error }` (a message naming the failed objects) otherwise; other decisions need no result.
 *
 * @example
 * computeResourceOutcome(decision, { error: 'failed to create ConfigMap kube-system/x: forbidden' });
 */
export function computeResourceOutcome(
  decision: ResourceToApply,
  applyResult: { readonly error?: string } = {},
): ResourceOutcome {
  const ref = decision.ref;
  switch (decision.action) {
    case 'skip':
      return { ref, outcome: 'Skipped' };
    case 'notFound':
      return { ref, outcome: 'NotFound' };
    case 'apply':
      return applyResult.error === undefined
        ? { ref, outcome: 'Applied', hash: decision.hash }
        : { ref, outcome: 'ApplyFailed', hash: decision.hash, message: applyResult.error };
    case 'invalid':
      return { ref, outcome: 'Invalid', message: decision.error.message };
    case 'wrongSecretType':
      return { ref, outcome: 'WrongSecretType', message: decision.error.message };
    case 'retrievalFailed':
      return { ref, outcome: 'RetrievingResourceFailed', message: decision.message };
  }
}
