// Admission of ClusterResourceSets: `strategy` defaulted to ApplyOnce, then the selector and immutability rules; and
// of ClusterResourceSetBindings: `spec.clusterName` immutable.
import { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome, type AdmittedObject } from '#shared/webhooks/admission-status.ts';
import { cloneJson, computeJsonPatch, objectAt } from '#shared/webhooks/compute-json-patch.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import {
  validateClusterResourceSet,
  validateClusterResourceSetBinding,
} from '#shared/webhooks/rules/cluster-resource-set-rules.ts';

function identity(request: AdmissionRequest, crs?: ClusterResourceSet): AdmittedObject {
  return {
    group: 'addons.cluster.x-k8s.io',
    kind: 'ClusterResourceSet',
    name: crs?.metadata.name ?? request.name ?? '',
  };
}

/** Mutating: `spec.strategy` defaults to ApplyOnce (upstream's defaulting webhook). */
export function mutateClusterResourceSet(request: AdmissionRequest): AdmissionOutcome {
  const doc = cloneJson(request.object);
  const spec = objectAt(doc, ['spec']);
  if (spec && (spec['strategy'] === undefined || spec['strategy'] === '')) spec['strategy'] = 'ApplyOnce';
  return { allowed: true, patch: computeJsonPatch(request.object, doc) };
}

/** Validating: non-empty valid selector; `strategy` and `clusterSelector` immutable. */
export function validateClusterResourceSetAdmission(request: AdmissionRequest): AdmissionOutcome {
  const parsed = parseAdmittedObject(ClusterResourceSet, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  const old = request.operation === 'UPDATE' ? parseAdmittedObject(ClusterResourceSet, request.oldObject) : undefined;
  return computeFieldOutcome(
    identity(request, parsed.value),
    validateClusterResourceSet(old?.ok ? old.value : undefined, parsed.value),
  );
}

/** Validating: a ClusterResourceSetBinding's `spec.clusterName` is immutable once set (upstream's webhook). */
export function validateClusterResourceSetBindingAdmission(request: AdmissionRequest): AdmissionOutcome {
  const parsed = parseAdmittedObject(ClusterResourceSetBinding, request.object);
  const object: AdmittedObject = {
    group: 'addons.cluster.x-k8s.io',
    kind: 'ClusterResourceSetBinding',
    name: (parsed.ok ? parsed.value.metadata.name : undefined) ?? request.name ?? '',
  };
  if (!parsed.ok) return computeFieldOutcome(object, parsed.errors);
  const old =
    request.operation === 'UPDATE' ? parseAdmittedObject(ClusterResourceSetBinding, request.oldObject) : undefined;
  return computeFieldOutcome(object, validateClusterResourceSetBinding(old?.ok ? old.value : undefined, parsed.value));
}
