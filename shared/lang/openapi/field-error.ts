// Kubernetes-style field errors (k8s.io/apimachinery/pkg/util/validation/field): typed, with a path and a message
// formatted exactly like the API server's (`spec.topology.variables[cpu].value: Invalid value: "4": must be ...`).
import { ValidationError, describeObject } from '#shared/errors/index.ts';
import { canonicalJson, goFormatNumber } from '#shared/lang/openapi/json-value.ts';
import { quote } from '#shared/lang/go/strconv.ts';

/** The kinds of field error upstream reports, named after apimachinery's `field.ErrorType`. */
export const FieldErrorType = {
  Required: 'Required',
  Invalid: 'Invalid',
  TypeInvalid: 'TypeInvalid',
  NotSupported: 'NotSupported',
  TooLong: 'TooLong',
  TooMany: 'TooMany',
  Duplicate: 'Duplicate',
  Forbidden: 'Forbidden',
  Internal: 'Internal',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

/** What a field error shows as its value: a string or number as Go prints it, or nothing. */
export type BadValue =
  | string
  | number
  | boolean
  | null
  | { readonly omitted: true }
  | { readonly json: unknown }
  | { readonly rendered: string };

/** One problem with one field. */
export type FieldError = {
  readonly type: FieldErrorType;
  /** The path as Kubernetes renders it: `spec.topology.variables[cpu].value.foo`. */
  readonly field: string;
  readonly badValue?: BadValue;
  readonly detail: string;
};

const typeLabels: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  TypeInvalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Duplicate: 'Duplicate value',
  Forbidden: 'Forbidden',
  Internal: 'Internal error',
};

/** `path.child` (apimachinery `Path.Child`). */
export function childPath(path: string, ...names: string[]): string {
  return names.reduce((out, name) => (out ? `${out}.${name}` : name), path);
}

/** `path[i]` (apimachinery `Path.Index`). */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** `path[key]` (apimachinery `Path.Key`: the key is not quoted). */
export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

export function fieldRequired(field: string, detail: string): FieldError {
  return { type: 'Required', field, detail };
}
export function fieldInvalid(field: string, badValue: BadValue, detail: string): FieldError {
  return { type: 'Invalid', field, badValue, detail };
}
export function fieldTypeInvalid(field: string, badValue: BadValue, detail: string): FieldError {
  return { type: 'TypeInvalid', field, badValue, detail };
}
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'Forbidden', field, detail };
}
export function fieldInternal(field: string, detail: string): FieldError {
  return { type: 'Internal', field, detail };
}
export function fieldDuplicate(field: string, badValue: BadValue): FieldError {
  return { type: 'Duplicate', field, badValue, detail: '' };
}
/** Unsupported value; `supported` are rendered quoted as apimachinery does. */
export function fieldNotSupported(field: string, badValue: BadValue, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map((s) => quote(s)).join(', ')}` : '';
  return { type: 'NotSupported', field, badValue, detail };
}
export function fieldTooLong(field: string, maxLength: number): FieldError {
  const detail =
    maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { type: 'TooLong', field, badValue: { omitted: true }, detail };
}
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return { type: 'TooMany', field, badValue: actual >= 0 ? actual : { omitted: true }, detail };
}

function renderBadValue(value: BadValue | undefined): string | undefined {
  if (value === undefined) return '""';
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return goFormatNumber(value);
  if (typeof value === 'boolean') return String(value);
  if ('omitted' in value) return undefined;
  if ('rendered' in value) return value.rendered;
  return canonicalJson(value.json);
}

/**
 * The message of a field error exactly as apimachinery's `(*field.Error).Error()` writes it.
 *
 * @example
 * formatFieldError(fieldRequired('spec.topology.variables', 'required variable "cpu" must be set'));
 * // 'spec.topology.variables: Required value: required variable "cpu" must be set'
 */
export function formatFieldError(error: FieldError): string {
  let body = typeLabels[error.type];
  if (!['Required', 'Forbidden', 'TooLong', 'Internal'].includes(error.type)) {
    const rendered = renderBadValue(error.badValue);
    if (rendered !== undefined) body += `: ${rendered}`;
  }
  if (error.detail) body += `: ${error.detail}`;
  return `${error.field}: ${body}`;
}

/** The messages of a list of field errors, duplicates dropped (apimachinery `ErrorList.ToAggregate`). */
export function formatFieldErrors(errors: readonly FieldError[]): string[] {
  return [...new Set(errors.map((e) => formatFieldError(e)))];
}

/**
 * One ValidationError naming the object, for a non-empty list of field errors.
 *
 * @example
 * throw toValidationError(errors, { kind: 'Cluster', namespace: 'default', name: 'c1' });
 * // invalid Cluster default/c1: spec.topology.variables: Required value: required variable "cpu" must be set
 */
export function toValidationError(
  errors: readonly FieldError[],
  object: { readonly kind: string; readonly namespace?: string | undefined; readonly name?: string | undefined },
): ValidationError {
  const messages = formatFieldErrors(errors);
  const first = errors[0];
  return new ValidationError(
    `invalid ${describeObject(object.kind, object.namespace, object.name)}: ${messages.join('; ')}`,
    {
      kind: object.kind,
      ...(object.namespace === undefined ? {} : { namespace: object.namespace }),
      ...(object.name === undefined ? {} : { name: object.name }),
      ...(first ? { fieldPath: first.field } : {}),
      reason: 'Invalid',
    },
  );
}
