// Defaulting of Cluster variable values from the ClusterClass variable schemas, as upstream's
// cluster_variable_defaulting.go (structural defaulting at every level of the value).
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import type { FieldError } from '#shared/lang/openapi/field-error.ts';
import { fieldInvalid, keyPath } from '#shared/lang/openapi/field-error.ts';
import { canonicalizeJson } from '#shared/lang/openapi/json-value.ts';
import { applyStructuralDefaults } from '#shared/lang/openapi/structural.ts';
import { indexDefinitions, indexValues, rawValue } from '#shared/topology/variables/variable-indexes.ts';

/** The defaulted values, or why they could not be defaulted. */
export type DefaultVariablesResult =
  { readonly ok: true; readonly values: ClusterVariable[] } | { readonly ok: false; readonly errors: FieldError[] };

/** Options of defaultClusterVariables. */
export type DefaultClusterVariablesOptions = {
  /** Create missing variables whose schema has a top-level default (true for Cluster variables). Default true. */
  readonly createVariables?: boolean;
  /** Where the values live. Default `spec.topology.variables`. */
  readonly fieldPath?: string;
};

/**
 * Applies the defaults of the variable schemas. A value that is set (or `null`) gets nested defaults at every level
 * of its objects and arrays (a property's default applies when its parent object exists). With createVariables, a
 * variable that is not set but has a top-level `default` is created, required or not; without a top-level default
 * it stays unset (no empty object is created). The result keeps the given values in their order and appends the
 * created ones in definition order; values are new objects with sorted keys, definitionFrom dropped.
 *
 * @example
 * const result = defaultClusterVariables(cluster.spec.topology.variables ?? [], cc.status.variables ?? []);
 * if (!result.ok) throw toValidationError(result.errors, { kind: 'Cluster', namespace, name });
 */
export function defaultClusterVariables(
  values: readonly ClusterVariable[],
  definitions: readonly ClusterClassStatusVariable[],
  options: DefaultClusterVariablesOptions = {},
): DefaultVariablesResult {
  const fieldPath = options.fieldPath ?? 'spec.topology.variables';
  const createVariables = options.createVariables ?? true;
  const valueIndex = indexValues(fieldPath, values);
  if (!valueIndex.ok) return { ok: false, errors: valueIndex.errors };
  const definitionIndex = indexDefinitions(fieldPath, definitions);
  if (!definitionIndex.ok) return { ok: false, errors: definitionIndex.errors };

  const names = [
    ...values.map((v) => v.name),
    ...definitions.map((d) => d.name).filter((name) => !valueIndex.index.has(name)),
  ];
  const errors: FieldError[] = [];
  const defaulted: ClusterVariable[] = [];
  for (const name of names) {
    const current = valueIndex.index.get(name);
    const definition = definitionIndex.index.get(name);
    if (!definition) {
      errors.push(fieldInvalid(keyPath(fieldPath, name), rawValue(current?.value), 'variable is not defined'));
      continue;
    }
    const schema = definition.schema.openAPIV3Schema;
    if (!current && (!createVariables || schema.default === undefined)) continue;
    let value: unknown = current?.value ?? null;
    if (value === null && schema.default !== undefined) value = structuredClone(schema.default);
    defaulted.push({
      name,
      value: canonicalizeJson(applyStructuralDefaults(value, schema)) as ClusterVariable['value'],
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: defaulted };
}

/**
 * Applies nested defaults to a MachineDeployment's or MachinePool's `variables.overrides`; never creates variables.
 *
 * @example
 * defaultMachineVariables(md.variables?.overrides ?? [], cc.status.variables ?? [], 'spec.topology.workers.machineDeployments[0].variables.overrides');
 */
export function defaultMachineVariables(
  overrides: readonly ClusterVariable[],
  definitions: readonly ClusterClassStatusVariable[],
  fieldPath: string,
): DefaultVariablesResult {
  return defaultClusterVariables(overrides, definitions, { createVariables: false, fieldPath });
}
