// Fixtures for the variables tests: frozen definitions built from a schema.
import type { JSONSchemaProps } from '#shared/api/jsonschema.ts';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/v1beta2/variables.ts';

/** Freezes a value and everything in it, so a function that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A status variable with one inline definition. */
export function definition(name: string, schema: JSONSchemaProps, required = false): ClusterClassStatusVariable {
  return deepFreeze({ name, definitions: [{ from: 'inline', required, schema: { openAPIV3Schema: schema } }] });
}

/** A variable value. */
export function value(name: string, v: unknown): ClusterVariable {
  return deepFreeze({ name, value: v as ClusterVariable['value'] });
}
