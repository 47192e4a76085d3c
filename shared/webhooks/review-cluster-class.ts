// Admission of ClusterClasses: parsing, validation with the same
// validateClusterClass the reconcile pass and `plan` use, update rules checked against the Clusters using the class,
// and deletion refused while Clusters use it.
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { validateClusterClass } from '#shared/topology/validation/validate-cluster-class.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome, computeForbiddenStatus, type AdmittedObject } from '#shared/webhooks/admission-status.ts';
import { cloneJson, computeJsonPatch } from '#shared/webhooks/compute-json-patch.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import {
  computeChangedVariables,
  computeRemovedWorkerClasses,
  validateClusterClassesAreCompatible,
  validateKubernetesVersions,
  validateKubernetesVersionsOfClusters,
  validateRemovedClassesAreNotUsed,
  validateVariableChangesAgainstClusters,
} from '#shared/webhooks/rules/cluster-class-rules.ts';

function identity(request: AdmissionRequest, cc?: ClusterClass): AdmittedObject {
  return { group: 'cluster.x-k8s.io', kind: 'ClusterClass', name: cc?.metadata.name ?? request.name ?? '' };
}

/**
 * Mutating: nothing to default in v1beta2 (template references carry no namespace); the object is only checked to
 * parse, so a malformed ClusterClass is refused with its field named.
 *
 * @example
 * mutateClusterClass(request); // { allowed: true, patch: [] }
 */
export function mutateClusterClass(request: AdmissionRequest): AdmissionOutcome {
  const parsed = parseAdmittedObject(ClusterClass, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  return { allowed: true, patch: computeJsonPatch(request.object, cloneJson(request.object)) };
}

/**
 * Validating: create, update (compatibility, classes, variables and Kubernetes versions in use) and delete (not while
 * in use). Lists the Clusters of the class only when an update removes a worker class, changes a variable or lists
 * kubernetesVersions, or on delete.
 *
 * @example
 * await validateClusterClassAdmission(request, reader);
 */
export async function validateClusterClassAdmission(
  request: AdmissionRequest,
  reader: WebhookReader,
): Promise<AdmissionOutcome> {
  // NOTE: Clusters admitted next (in this container) must not be checked against a kept copy of the class before
  // this write.
  if (request.name) reader.forgetClusterClass?.({ namespace: request.namespace ?? '', name: request.name });
  if (request.operation === 'DELETE') {
    const old = parseAdmittedObject(ClusterClass, request.oldObject);
    if (!old.ok) return { allowed: true };
    const clusters = await reader.listClustersUsingClass({
      namespace: old.value.metadata.namespace ?? request.namespace ?? '',
      name: old.value.metadata.name ?? request.name ?? '',
    });
    if (clusters.length === 0) return { allowed: true };
    return {
      allowed: false,
      status: computeForbiddenStatus(
        identity(request, old.value),
        `ClusterClass cannot be deleted because it is used by ${clusters.length} Cluster(s)`,
      ),
    };
  }
  const parsed = parseAdmittedObject(ClusterClass, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  const desired = parsed.value;
  const errors: FieldError[] = [
    ...validateClusterClass(desired),
    ...validateKubernetesVersions(desired.spec.kubernetesVersions ?? []),
  ];
  if (request.operation === 'UPDATE') {
    const old = parseAdmittedObject(ClusterClass, request.oldObject);
    if (old.ok) {
      const current = old.value;
      errors.push(...validateClusterClassesAreCompatible(current, desired));
      const removed = computeRemovedWorkerClasses(current, desired);
      const needsClusters =
        removed.machineDeployments.length > 0 ||
        removed.machinePools.length > 0 ||
        (desired.spec.kubernetesVersions ?? []).length > 0 ||
        computeChangedVariables(current, desired).size > 0;
      if (needsClusters) {
        const clusters = await reader.listClustersUsingClass({
          namespace: current.metadata.namespace ?? '',
          name: current.metadata.name ?? '',
        });
        errors.push(...validateKubernetesVersionsOfClusters(clusters, desired));
        errors.push(...validateRemovedClassesAreNotUsed(clusters, current, desired));
        errors.push(...validateVariableChangesAgainstClusters(clusters, current, desired));
      }
    }
  }
  return computeFieldOutcome(identity(request, desired), errors);
}
