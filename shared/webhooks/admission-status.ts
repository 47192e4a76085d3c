// Refusals in the Kubernetes `Status` format, built the way apimachinery's `NewInvalid` / `NewForbidden` /
// `NewInternalError` build them, so `kubectl apply` prints `The Cluster "c1" is invalid: spec.topology...` as usual.
import type { FieldError, FieldErrorType } from '#shared/topology/variables/index.ts';
import { formatFieldError, formatFieldErrors } from '#shared/topology/variables/index.ts';
import type { AdmissionOutcome, AdmissionStatus, StatusCause } from '#shared/webhooks/admission-review.ts';

/** The object a refusal is about: its group and kind, and its name (may be empty with generateName). */
export type AdmittedObject = { readonly group: string; readonly kind: string; readonly name: string };

/** `metav1.CauseType` of each field error type (apimachinery `field.ErrorType`). */
const causeTypes: Record<FieldErrorType, string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  NotSupported: 'FieldValueNotSupported',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Duplicate: 'FieldValueDuplicate',
  Forbidden: 'FieldValueForbidden',
  Internal: 'InternalError',
};

function qualifiedKind(object: AdmittedObject): string {
  return object.group ? `${object.kind}.${object.group}` : object.kind;
}

/** apimachinery's aggregate message: one error as is, several as `[a, b]`. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}

function causeOf(error: FieldError): StatusCause {
  const full = formatFieldError(error);
  const prefix = `${error.field}: `;
  // NOTE: a cause carries the error body (`Invalid value: ...`) and the field separately, as apimachinery's ErrorBody().
  const message = full.startsWith(prefix) ? full.slice(prefix.length) : full;
  return { reason: causeTypes[error.type], message, field: error.field };
}

/**
 * The 422 `Invalid` Status for field errors, with one cause per error.
 *
 * @example
 * computeInvalidStatus({ group: 'cluster.x-k8s.io', kind: 'Cluster', name: 'c1' }, errors).message;
 * // 'Cluster.cluster.x-k8s.io "c1" is invalid: spec.topology.version: Invalid value: "v1.28.0": version cannot be decreased from "1.29.0" to "1.28.0"'
 */
export function computeInvalidStatus(object: AdmittedObject, errors: readonly FieldError[]): AdmissionStatus {
  const causes = [...new Map(errors.map((e) => [formatFieldError(e), causeOf(e)])).values()];
  return {
    metadata: {},
    status: 'Failure',
    message: `${qualifiedKind(object)} "${object.name}" is invalid: ${aggregate(formatFieldErrors(errors))}`,
    reason: 'Invalid',
    code: 422,
    details: { name: object.name, group: object.group, kind: object.kind, causes },
  };
}

/**
 * The 403 `Forbidden` Status (a whole-object refusal, e.g. deleting a ClusterClass in use); `resource` is the plural.
 *
 * @example
 * computeForbiddenStatus({ group: 'cluster.x-k8s.io', kind: 'clusterclasses', name: 'cc' }, 'it is used by 1 Cluster(s)');
 */
export function computeForbiddenStatus(resource: AdmittedObject, reason: string): AdmissionStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `${qualifiedKind(resource)} "${resource.name}" is forbidden: ${reason}`,
    reason: 'Forbidden',
    code: 403,
    details: { name: resource.name, group: resource.group, kind: resource.kind },
  };
}

/** The 500 `InternalError` Status, when a lookup a rule needs fails. */
export function computeInternalStatus(message: string): AdmissionStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    code: 500,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message }] },
  };
}

/**
 * Allowed when there are no errors, else refused as Invalid.
 *
 * @example
 * return computeFieldOutcome({ group: 'addons.cluster.x-k8s.io', kind: 'ClusterResourceSet', name }, errors);
 */
export function computeFieldOutcome(
  object: AdmittedObject,
  errors: readonly FieldError[],
  allowed: Extract<AdmissionOutcome, { allowed: true }> = { allowed: true },
): AdmissionOutcome {
  return errors.length === 0 ? allowed : { allowed: false, status: computeInvalidStatus(object, errors) };
}
