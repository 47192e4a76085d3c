// One AdmissionReview in, one AdmissionReview out: the rules of the admitted kind for the webhook's mode
// (`mutate` or `validate`); a failed lookup refuses with an InternalError Status instead of escaping.
import { errorMessage } from '#shared/errors/index.ts';
import { operatorGroup } from '#shared/api/operator/v1alpha2/provider.ts';
import {
  computeAdmissionReviewResponse,
  type AdmissionOutcome,
  type AdmissionRequest,
  type AdmissionReview,
  type AdmissionReviewResponse,
} from '#shared/webhooks/admission-review.ts';
import { computeInternalStatus } from '#shared/webhooks/admission-status.ts';
import { computeHubRequest, computeSpokeOutcome, needsHubConversion } from '#shared/webhooks/convert-admission.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { mutateCluster, validateClusterAdmission } from '#shared/webhooks/review-cluster.ts';
import { mutateClusterClass, validateClusterClassAdmission } from '#shared/webhooks/review-cluster-class.ts';
import {
  mutateClusterResourceSet,
  validateClusterResourceSetAdmission,
  validateClusterResourceSetBindingAdmission,
} from '#shared/webhooks/review-cluster-resource-set.ts';
import { mutateExtensionConfig, validateExtensionConfigAdmission } from '#shared/webhooks/review-extension-config.ts';
import { mutateProvider, validateProviderAdmission } from '#shared/webhooks/review-provider.ts';
import { validateClusterRolloutAdmission } from '#shared/webhooks/review-cluster-rollout.ts';

export const AdmissionMode = { Mutate: 'mutate', Validate: 'validate' } as const;
export type AdmissionMode = (typeof AdmissionMode)[keyof typeof AdmissionMode];

export type WebhookDeps = { readonly reader: WebhookReader };

type Reviewer = (request: AdmissionRequest, deps: WebhookDeps) => AdmissionOutcome | Promise<AdmissionOutcome>;

const reviewers: Record<AdmissionMode, Readonly<Record<string, Reviewer>>> = {
  mutate: {
    'cluster.x-k8s.io/Cluster': (r, d) => mutateCluster(r, d.reader),
    'cluster.x-k8s.io/ClusterClass': (r) => mutateClusterClass(r),
    'addons.cluster.x-k8s.io/ClusterResourceSet': (r) => mutateClusterResourceSet(r),
    'runtime.cluster.x-k8s.io/ExtensionConfig': (r) => mutateExtensionConfig(r),
  },
  validate: {
    'cluster.x-k8s.io/Cluster': (r, d) => validateClusterAdmission(r, d.reader),
    'cluster.x-k8s.io/ClusterClass': (r, d) => validateClusterClassAdmission(r, d.reader),
    'addons.cluster.x-k8s.io/ClusterResourceSet': (r) => validateClusterResourceSetAdmission(r),
    'addons.cluster.x-k8s.io/ClusterResourceSetBinding': (r) => validateClusterResourceSetBindingAdmission(r),
    'runtime.cluster.x-k8s.io/ExtensionConfig': (r) => validateExtensionConfigAdmission(r),
    'management.cluster.x-k8s.io/ClusterRollout': (r, d) => validateClusterRolloutAdmission(r, d.reader),
  },
};

function findReviewer(mode: AdmissionMode, request: AdmissionRequest): Reviewer | undefined {
  if (request.kind.group === operatorGroup) return mode === 'validate' ? validateProviderAdmission : mutateProvider;
  return reviewers[mode][`${request.kind.group}/${request.kind.kind}`];
}

/**
 * Answers one AdmissionReview. Kinds and operations without rules are allowed unchanged (the webhook
 * configurations only send the ones with rules).
 *
 * @example
 * const response = await reviewAdmission({ reader }, 'validate', review);
 * response.response.allowed; // false when a rule refuses
 */
export async function reviewAdmission(
  deps: WebhookDeps,
  mode: AdmissionMode,
  review: AdmissionReview,
): Promise<AdmissionReviewResponse> {
  const request = review.request;
  const reviewer = findReviewer(mode, request);
  const relevant = mode === 'validate' || request.operation === 'CREATE' || request.operation === 'UPDATE';
  if (!reviewer || !relevant || request.subResource)
    return computeAdmissionReviewResponse(request.uid, { allowed: true });
  let outcome: AdmissionOutcome;
  try {
    // NOTE: the rules read v1beta2; a v1beta1 object is converted at the edge, its patch converted back.
    if (needsHubConversion(request)) {
      const hubRequest = computeHubRequest(request);
      outcome = computeSpokeOutcome(request, hubRequest, await reviewer(hubRequest, deps));
    } else {
      outcome = await reviewer(request, deps);
    }
  } catch (err) {
    outcome = {
      allowed: false,
      status: computeInternalStatus(
        `failed to admit ${request.kind.kind} ${request.namespace ? `${request.namespace}/` : ''}${request.name ?? ''}: ${errorMessage(err)}`,
      ),
    };
  }
  return computeAdmissionReviewResponse(request.uid, outcome);
}
