// Admission of provider objects (operator.cluster.x-k8s.io), as the Cluster API Operator's webhooks admit them:
// defaulting sets `spec.configSecret.namespace` and `spec.additionalManifests.namespace` to the provider's namespace;
// validation refuses only what the operator's CRD refuses (fetchConfig exactly one source, not both patches and
// manifestPatches — the zod schema). A misnamed core provider, a second core provider, a duplicate name or a
// malformed version are admitted and reported by the preflight phase in the PreflightCheckPassed condition, as the
// operator does, so GitOps tools sync the object and show its condition instead of failing the whole sync.
import { isProviderKind, providerSchemas } from '#shared/api/operator/v1alpha2/provider.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome } from '#shared/webhooks/admission-status.ts';
import { cloneJson, computeJsonPatch, defaultRefNamespace, objectAt } from '#shared/webhooks/compute-json-patch.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';

/**
 * Mutating: the config Secret and additional manifests references default to the provider's namespace (upstream
 * `setDefaultProviderSpec`).
 *
 * @example
 * mutateProvider(request).patch; // [{ op: 'add', path: '/spec/configSecret/namespace', value: 'capi-system' }]
 */
export function mutateProvider(request: AdmissionRequest): AdmissionOutcome {
  const doc = cloneJson(request.object);
  const namespace = (objectAt(doc, ['metadata'])?.['namespace'] as string | undefined) || request.namespace || '';
  defaultRefNamespace(doc, ['spec', 'configSecret'], namespace);
  defaultRefNamespace(doc, ['spec', 'additionalManifests'], namespace);
  return { allowed: true, patch: computeJsonPatch(request.object, doc) };
}

/**
 * Validating: CREATE and UPDATE of the seven provider kinds, schema rules only.
 *
 * @example
 * validateProviderAdmission(request);
 */
export function validateProviderAdmission(request: AdmissionRequest): AdmissionOutcome {
  const kind = request.kind.kind;
  if (!isProviderKind(kind)) return { allowed: true };
  const object = { group: request.kind.group, kind, name: request.name ?? '' };
  const parsed = parseAdmittedObject(providerSchemas[kind], request.object);
  return parsed.ok ? { allowed: true } : computeFieldOutcome(object, parsed.errors);
}
