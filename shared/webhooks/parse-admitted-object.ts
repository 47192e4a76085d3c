// Parsing the object in an AdmissionReview with its zod schema, problems reported as field errors (so a refusal
// names every offending field), the typed object otherwise.
import type { z } from 'zod';
import { computeWithoutNullMetadata, formatFieldPath } from '#shared/api/parse.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';

export type ParsedObject<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: FieldError[] };

/**
 * Parses `raw` with `schema`; each zod issue becomes a field error at its path (`Required` for a missing field).
 *
 * @example
 * const parsed = parseAdmittedObject(Cluster, request.object);
 * if (!parsed.ok) return computeFieldOutcome(object, parsed.errors);
 */
export function parseAdmittedObject<S extends z.ZodType>(schema: S, raw: unknown): ParsedObject<z.output<S>> {
  const result = schema.safeParse(computeWithoutNullMetadata(raw));
  if (result.success) return { ok: true, value: result.data };
  const errors = result.error.issues.map((issue): FieldError => {
    const field = formatFieldPath(issue.path) || '<root>';
    // NOTE: zod reports inputs only on request; a missing field reads "received undefined".
    const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
    return missing
      ? { type: 'Required', field, detail: '' }
      : { type: 'Invalid', field, badValue: { omitted: true }, detail: issue.message };
  });
  return { ok: false, errors };
}
