// Admission of ExtensionConfigs (runtime.cluster.x-k8s.io), as upstream v1.14's webhooks with the RuntimeSDK gate on:
// defaulting (`namespaceSelector: {}`, service port 443) and validation of the name, `clientConfig` and
// `namespaceSelector`. Beside upstream's core manager its own defaulting webhook sets the same values (ours then finds
// nothing to do); its validating webhook sees only DELETE there (the handoff's matchCondition), so create and update
// are validated here.
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome, type AdmittedObject } from '#shared/webhooks/admission-status.ts';
import { computeJsonPatch, objectAt } from '#shared/webhooks/compute-json-patch.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import {
  AdmittedExtensionConfig,
  computeExtensionConfigDefaults,
  validateExtensionConfig,
} from '#shared/webhooks/rules/extension-config-rules.ts';

function identity(request: AdmissionRequest, name?: string): AdmittedObject {
  return { group: 'runtime.cluster.x-k8s.io', kind: 'ExtensionConfig', name: name ?? request.name ?? '' };
}

/**
 * Mutating: `spec.namespaceSelector` defaults to `{}` and a service's port to 443 (upstream `Default`).
 *
 * @example
 * mutateExtensionConfig(request).patch; // [{ op: 'add', path: '/spec/namespaceSelector', value: {} }]
 */
export function mutateExtensionConfig(request: AdmissionRequest): AdmissionOutcome {
  if (!objectAt(request.object, [])) return { allowed: true };
  const defaulted = computeExtensionConfigDefaults(request.object as Record<string, unknown>);
  return { allowed: true, patch: computeJsonPatch(request.object, defaulted) };
}

/**
 * Validating: create and update, upstream's rules and messages (`ExtensionConfig.runtime.cluster.x-k8s.io "<name>" is
 * invalid: …`).
 *
 * @example
 * validateExtensionConfigAdmission(request); // { allowed: false, status: { code: 422, … } } for an http URL
 */
export function validateExtensionConfigAdmission(request: AdmissionRequest): AdmissionOutcome {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
  const parsed = parseAdmittedObject(AdmittedExtensionConfig, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  return computeFieldOutcome(identity(request, parsed.value.metadata.name), validateExtensionConfig(parsed.value));
}
