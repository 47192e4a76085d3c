// Validation of Cluster variable values (spec.topology.variables and the per-topology overrides) against the
// definitions in ClusterClass status.variables, as upstream's cluster_variable_validation.go.
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import type { FieldError } from '#shared/lang/openapi/field-error.ts';
import { validateCelRules } from '#shared/lang/cel/rules.ts';
import { childPath, fieldInvalid, fieldRequired, keyPath } from '#shared/lang/openapi/field-error.ts';
import { openAPIErrorsToFieldErrors, validateAgainstSchema } from '#shared/lang/openapi/schema-validator.ts';
import { findUnknownFields } from '#shared/lang/openapi/structural.ts';
import { indexDefinitions, indexValues, rawValue } from '#shared/topology/variables/variable-indexes.ts';

/** Options of validateClusterVariables. */
export type ValidateClusterVariablesOptions = {
  /** Report required variables that are not set (true for Cluster variables, false for overrides). Default true. */
  readonly validateRequired?: boolean;
  /** Where the values live. Default `spec.topology.variables`. */
  readonly fieldPath?: string;
  /** The values before an update, by which transition rules (those using `oldSelf`) are checked. */
  readonly oldValues?: readonly ClusterVariable[];
};

/**
 * Validates one variable value against its schema: the OpenAPI checks, then fields the schema does not specify, then
 * the schema's `x-kubernetes-validations` (CEL) rules, with `oldSelf` from `oldValue` (the value before an update).
 *
 * @example
 * validateClusterVariable({ name: 'cpu', value: 'x' }, { name: 'cpu', schema: { openAPIV3Schema: { type: 'integer' } } }, 'spec.topology.variables[cpu]');
 * // [{ type: 'TypeInvalid', field: 'spec.topology.variables[cpu].value', badValue: '"x"', detail: 'must be of type integer: "string"' }]
 */
export function validateClusterVariable(
  value: ClusterVariable,
  definition: { readonly name: string; readonly schema: { readonly openAPIV3Schema: JSONSchemaProps } },
  fieldPath: string,
  oldValue?: ClusterVariable,
): FieldError[] {
  const raw = rawValue(value.value);
  const data = value.value === undefined ? null : value.value;
  const schema = definition.schema.openAPIV3Schema;
  const errors = openAPIErrorsToFieldErrors(validateAgainstSchema(data, schema), childPath(fieldPath, 'value'), {
    badValue: raw,
    trimInBody: true,
  });
  if (errors.length > 0) return errors;
  const unknown = findUnknownFields(data, schema);
  if (unknown.length > 0) {
    return [
      fieldInvalid(
        fieldPath,
        raw,
        `failed validation: "${unknown.join(',')}" field(s) are not specified in the variable schema of variable "${value.name}"`,
      ),
    ];
  }
  return validateCelRules(data, oldValue?.value, schema, childPath(fieldPath, 'value'), { badValue: raw });
}

/**
 * Validates variable values against the ClusterClass variable definitions: each value must be defined and valid
 * against its schema, no value may be set twice, and (with validateRequired) every required variable must be set.
 * Field paths use the variable name as key: `spec.topology.variables[cpu].value`, as upstream.
 *
 * @example
 * const errors = validateClusterVariables(cluster.spec.topology.variables ?? [], clusterClass.status.variables ?? []);
 * if (errors.length > 0) throw toValidationError(errors, { kind: 'Cluster', namespace, name });
 */
export function validateClusterVariables(
  values: readonly ClusterVariable[],
  definitions: readonly ClusterClassStatusVariable[],
  options: ValidateClusterVariablesOptions = {},
): FieldError[] {
  const fieldPath = options.fieldPath ?? 'spec.topology.variables';
  const valueIndex = indexValues(fieldPath, values);
  if (!valueIndex.ok) return valueIndex.errors;
  const definitionIndex = indexDefinitions(fieldPath, definitions);
  if (!definitionIndex.ok) return definitionIndex.errors;

  const oldValues = new Map((options.oldValues ?? []).map((v) => [v.name, v]));
  const errors: FieldError[] = [];
  if (options.validateRequired ?? true) {
    for (const [name, definition] of definitionIndex.index) {
      if (definition.required && !valueIndex.index.has(name)) {
        errors.push(fieldRequired(fieldPath, `required variable "${name}" must be set`));
      }
    }
  }
  for (const value of values) {
    const path = keyPath(fieldPath, value.name);
    const definition = definitionIndex.index.get(value.name);
    if (!definition) {
      errors.push(fieldInvalid(path, rawValue(value.value), 'variable is not defined'));
      continue;
    }
    errors.push(
      ...validateClusterVariable(
        value,
        { name: value.name, schema: definition.schema },
        path,
        oldValues.get(value.name),
      ),
    );
  }
  return errors;
}

/**
 * Validates a MachineDeployment's or MachinePool's `variables.overrides` (required variables are not enforced:
 * they are set on the Cluster); `oldOverrides`, on an update, are the same worker's overrides before it.
 *
 * @example
 * validateMachineVariables(md.variables?.overrides ?? [], cc.status.variables ?? [], 'spec.topology.workers.machineDeployments[0].variables.overrides');
 */
export function validateMachineVariables(
  overrides: readonly ClusterVariable[],
  definitions: readonly ClusterClassStatusVariable[],
  fieldPath: string,
  oldOverrides: readonly ClusterVariable[] = [],
): FieldError[] {
  return validateClusterVariables(overrides, definitions, {
    validateRequired: false,
    fieldPath,
    oldValues: oldOverrides,
  });
}

/** Validates the control plane's `variables.overrides` (same rules as validateMachineVariables). */
export function validateControlPlaneVariables(
  overrides: readonly ClusterVariable[],
  definitions: readonly ClusterClassStatusVariable[],
  fieldPath = 'spec.topology.controlPlane.variables.overrides',
  oldOverrides: readonly ClusterVariable[] = [],
): FieldError[] {
  return validateClusterVariables(overrides, definitions, {
    validateRequired: false,
    fieldPath,
    oldValues: oldOverrides,
  });
}
