// Indexes of variable values and definitions by name, with the checks upstream runs while building them (utils.go).
import type {
  ClusterClassStatusVariable,
  ClusterClassStatusVariableDefinition,
  ClusterVariable,
} from '#shared/api/core/v1beta2/variables.ts';
import type { FieldError } from '#shared/lang/openapi/field-error.ts';
import { fieldInvalid, fieldTypeInvalid, keyPath } from '#shared/lang/openapi/field-error.ts';
import { canonicalJson } from '#shared/lang/openapi/json-value.ts';

/** A variable's value as upstream shows it in errors: its raw JSON (Go writes object keys sorted). */
export function rawValue(value: unknown): string {
  return value === undefined ? '' : canonicalJson(value);
}

/** Values by name; rejects values that set the deprecated definitionFrom or are set more than once. */
export function indexValues(
  fieldPath: string,
  values: readonly ClusterVariable[],
): { ok: true; index: ReadonlyMap<string, ClusterVariable> } | { ok: false; errors: FieldError[] } {
  const index = new Map<string, ClusterVariable>();
  const errors: FieldError[] = [];
  for (const value of values) {
    const path = keyPath(fieldPath, value.name);
    // NOTE: v1beta2 has no definitionFrom; a value converted from v1beta1 may still carry it.
    if ((value as { definitionFrom?: string }).definitionFrom) {
      errors.push(
        fieldInvalid(
          path,
          rawValue(value.value),
          `variable "${value.name}" has DefinitionFrom set. DefinitionFrom is deprecated, must not be set anymore and is going to be removed in the next apiVersion`,
        ),
      );
    }
    if (index.has(value.name)) {
      errors.push(fieldInvalid(path, rawValue(value.value), `variable "${value.name}" is set more than once`));
    }
    index.set(value.name, value);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, index };
}

/** The one definition of each variable; rejects variables without definitions or with conflicting ones. */
export function indexDefinitions(
  fieldPath: string,
  definitions: readonly ClusterClassStatusVariable[],
):
  { ok: true; index: ReadonlyMap<string, ClusterClassStatusVariableDefinition> } | { ok: false; errors: FieldError[] } {
  const index = new Map<string, ClusterClassStatusVariableDefinition>();
  const problems: string[] = [];
  for (const definition of definitions) {
    const first = definition.definitions[0];
    if (!first) problems.push(`variable "${definition.name}" has no definitions`);
    if (definition.definitionsConflict) problems.push(`variable "${definition.name}" has conflicting definitions`);
    if (first) index.set(definition.name, first);
  }
  if (problems.length === 0) return { ok: true, index };
  const names = `[${definitions.map((d) => `Name: ${d.name}`).join(',')}]`;
  const aggregate = problems.length === 1 ? (problems[0] ?? '') : `[${problems.join(', ')}]`;
  return {
    ok: false,
    errors: [fieldTypeInvalid(fieldPath, names, `variable definitions in the ClusterClass not valid: ${aggregate}`)],
  };
}
