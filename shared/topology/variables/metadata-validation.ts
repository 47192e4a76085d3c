// Label and annotation checks (apimachinery's ValidateLabels / ValidateAnnotations) for variable metadata.
import type { FieldError } from '#shared/lang/openapi/field-error.ts';
import { fieldInvalid, fieldTooLong } from '#shared/lang/openapi/field-error.ts';
import { goBytes, isLabelKey, isLabelValue } from '#shared/lang/openapi/apimachinery-validation.ts';

/** Total size limit of annotations, in bytes. */
const totalAnnotationSizeLimitB = 256 * 1024;

/** apimachinery's IsQualifiedName (content.IsLabelKey). */
const isQualifiedName = (key: string) => isLabelKey(goBytes(key));

/** Labels: qualified-name keys and label values; errors are reported at `path` itself, as upstream does. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(labels ?? {}).sort()) {
    for (const msg of isQualifiedName(key)) errors.push(fieldInvalid(path, key, msg));
    for (const msg of isLabelValue(goBytes(labels?.[key] ?? '')))
      errors.push(fieldInvalid(path, labels?.[key] ?? '', msg));
  }
  return errors;
}

/** Annotations: case-insensitive qualified-name keys, at most 256 KiB in total. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  const encoder = new TextEncoder();
  for (const key of Object.keys(annotations ?? {}).sort()) {
    for (const msg of isQualifiedName(key.toLowerCase())) errors.push(fieldInvalid(path, key, msg));
    total += encoder.encode(key).length + encoder.encode(annotations?.[key] ?? '').length;
  }
  if (total > totalAnnotationSizeLimitB) errors.push(fieldTooLong(path, totalAnnotationSizeLimitB));
  return errors;
}
