// Validation of the variables a ClusterClass defines (spec.variables), as upstream's
// clusterclass_variable_validation.go: names, metadata, and schemas (structural, defaults, examples, enums, rules).
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { JSONSchemaTypes } from '#shared/lang/openapi/jsonschema.ts';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import type { StaticCostContext } from '#shared/lang/cel/rules.ts';
import { compileCelRules, hasCelRules, validateCelRules } from '#shared/lang/cel/rules.ts';
import {
  childCardinalityFactor,
  costErrorMessage,
  multiplyCost,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  StaticCostTotal,
} from '#shared/lang/cel/static-cost.ts';
import type { BadValue, FieldError } from '#shared/lang/openapi/field-error.ts';
import {
  childPath,
  fieldForbidden,
  fieldInternal,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  keyPath,
} from '#shared/lang/openapi/field-error.ts';
import { validateAnnotations, validateLabels } from '#shared/topology/variables/metadata-validation.ts';
import { openAPIErrorsToFieldErrors, validateAgainstSchema } from '#shared/lang/openapi/schema-validator.ts';
import { findUnknownFields, validateStructuralSchema } from '#shared/lang/openapi/structural.ts';

/** The name of the builtin variable, reserved. */
export const BUILTINS_VARIABLE_NAME = 'builtin';

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

function jsonBadValue(value: unknown): BadValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return { json: value };
}

function validateName(name: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (name === '') errors.push(fieldRequired(path, 'variable name must be defined'));
  if (name === BUILTINS_VARIABLE_NAME)
    errors.push(fieldInvalid(path, name, `"${BUILTINS_VARIABLE_NAME}" is a reserved variable name`));
  if (name.includes('.')) errors.push(fieldInvalid(path, name, 'variable name cannot contain "."'));
  return errors;
}

function validateXMetadata(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema['x-metadata']) {
    errors.push(...validateLabels(schema['x-metadata'].labels, childPath(path, 'x-metadata', 'labels')));
    errors.push(...validateAnnotations(schema['x-metadata'].annotations, childPath(path, 'x-metadata', 'annotations')));
  }
  if (schema.additionalProperties)
    errors.push(...validateXMetadata(schema.additionalProperties, childPath(path, 'additionalProperties')));
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const prop = schema.properties?.[name];
    if (prop) errors.push(...validateXMetadata(prop, keyPath(childPath(path, 'properties'), name)));
  }
  if (schema.items) errors.push(...validateXMetadata(schema.items, childPath(path, 'items')));
  return errors;
}

function isArrayWithRules(schema: JSONSchemaProps): boolean {
  return schema.type === 'array' && (schema['x-kubernetes-validations'] ?? []).length > 0;
}

/** Defaults must be pruned (no unknown fields) and valid against their schema (structural ValidateDefaults). */
function validateDefaults(schema: JSONSchemaProps, path: string, isRoot = false): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.default !== undefined) {
    const defaultPath = childPath(path, 'default');
    if (findUnknownFields(schema.default, schema).length > 0) {
      errors.push(fieldInvalid(defaultPath, jsonBadValue(schema.default), 'must not have unknown fields'));
    }
    const openAPIErrors = openAPIErrorsToFieldErrors(
      validateAgainstSchema(schema.default, schema, '', { formats: 'keep' }),
      defaultPath,
    );
    errors.push(...openAPIErrors);
    // NOTE: as ValidateDefaults, rules run only on defaults valid against the schema, with oldSelf = self. A root
    // array with rules has no CEL type (see CelContext), so its rules cannot run at all.
    if (openAPIErrors.length === 0) {
      // NOTE: a root default is validated as a resource root, which has no CEL type if it is an array with rules.
      const untyped = isRoot && schema.type === 'array' && hasCelRules(schema);
      errors.push(...validateCelRules(schema.default, schema.default, schema, defaultPath, { untyped }));
    }
  }
  if (schema.items) errors.push(...validateDefaults(schema.items, childPath(path, 'items')));
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const prop = schema.properties?.[name];
    if (prop) errors.push(...validateDefaults(prop, keyPath(childPath(path, 'properties'), name)));
  }
  return errors;
}

const newlines = /[\n\r]+/;

function validateRules(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const rulePath = indexPath(childPath(path, 'x-kubernetes-validations'), i);
    const message = rule.message ?? '';
    const trimmedRule = rule.rule.trim();
    const trimmedMsg = message.trim();
    if (trimmedRule === '') errors.push(fieldRequired(childPath(rulePath, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMsg === '') {
      errors.push(fieldInvalid(childPath(rulePath, 'message'), message, 'message must be non-empty if specified'));
    } else if (message.length > 2048) {
      errors.push(
        fieldInvalid(
          childPath(rulePath, 'message'),
          `${message.slice(0, 10)}...`,
          'message must have a maximum length of 2048 characters',
        ),
      );
    } else if (newlines.test(trimmedMsg)) {
      errors.push(fieldInvalid(childPath(rulePath, 'message'), message, 'message must not contain line breaks'));
    } else if (newlines.test(trimmedRule) && trimmedMsg === '') {
      errors.push(
        fieldRequired(childPath(rulePath, 'message'), 'message must be specified if rule contains line breaks'),
      );
    }
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errors.push(
        fieldRequired(childPath(rulePath, 'messageExpression'), 'messageExpression must be non-empty if specified'),
      );
    }
    if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) {
      errors.push(fieldNotSupported(childPath(rulePath, 'reason'), rule.reason, supportedReasons));
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath.length > 0 && fieldPath.trim() === '') {
      errors.push(
        fieldInvalid(childPath(rulePath, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'),
      );
    }
    if (newlines.test(fieldPath)) {
      errors.push(fieldInvalid(childPath(rulePath, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    }
  });
  return errors;
}

/**
 * How rules are compiled below a node, as upstream's CEL schema context: `typed` (compiled), `none` (not at all:
 * inside allOf/anyOf/oneOf/not), or `untyped`: in a root array with rules, whose CEL type apiextensions cannot build
 * (it adds apiVersion, kind and metadata to the root and drops `items`), so upstream rejects every rule there.
 */
type CelContext = 'typed' | 'none' | 'untyped';

/** Errors about the schema, and about its CEL rules, kept apart as upstream's OpenAPISchemaErrorList. */
type SchemaErrors = { readonly schema: FieldError[]; readonly cel: FieldError[] };

function appendErrors(to: SchemaErrors, from: SchemaErrors): void {
  to.schema.push(...from.schema);
  to.cel.push(...from.cel);
}

/**
 * The CEL part of validateSchema for one node: its rules compile (when no schema error was found at or below it),
 * then, when nothing at all is wrong so far, its example and enum values pass the rules.
 */
function validateRulesCompile(
  schema: JSONSchemaProps,
  path: string,
  uncorrelatablePath: string | undefined,
  celContext: CelContext,
  cost: StaticCostContext,
  errors: SchemaErrors,
): void {
  if ((schema['x-kubernetes-validations'] ?? []).length === 0) return;
  if (errors.schema.length === 0 && celContext === 'untyped') {
    errors.cel.push(
      fieldInternal(
        childPath(path, 'x-kubernetes-validations'),
        'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
      ),
    );
  } else if (errors.schema.length === 0 && celContext === 'typed') {
    errors.cel.push(...compileCelRules(schema, path, uncorrelatablePath, cost));
  }
  if (errors.schema.length > 0 || errors.cel.length > 0) return;
  if (schema.example !== undefined && schema.example !== null) {
    errors.cel.push(...validateCelRules(schema.example, undefined, schema, childPath(path, 'example')));
  }
  (schema.enum ?? []).forEach((value, i) => {
    if (value !== null)
      errors.cel.push(...validateCelRules(value, undefined, schema, indexPath(childPath(path, 'enum'), i)));
  });
}

/**
 * The cost context of a node's properties, additionalProperties and items (apiextensions' childContext): the
 * cardinality times the node's maxItems or maxProperties (1 for an object's properties), unbounded if either is.
 */
function childCostContext(schema: JSONSchemaProps, cost: StaticCostContext): StaticCostContext {
  const factor = childCardinalityFactor(schema);
  const cardinality =
    cost.cardinality === undefined || factor === undefined ? undefined : multiplyCost(cost.cardinality, factor);
  return { cardinality, isRoot: false, total: cost.total };
}

/** validateSchema: supported types, examples and enums valid, properties XOR additionalProperties, rules valid. */
function validateSchema(
  schema: JSONSchemaProps,
  path: string,
  uncorrelatablePath: string | undefined,
  celContext: CelContext,
  cost: StaticCostContext,
): SchemaErrors {
  if (schema.type !== undefined && !(JSONSchemaTypes as readonly string[]).includes(schema.type)) {
    return { schema: [fieldNotSupported(childPath(path, 'type'), schema.type, [...JSONSchemaTypes].sort())], cel: [] };
  }
  const errors: SchemaErrors = { schema: [], cel: [] };
  const child = childCostContext(schema, cost);
  if (schema.example !== undefined) {
    errors.schema.push(
      ...openAPIErrorsToFieldErrors(validateAgainstSchema(schema.example, schema), childPath(path, 'example')),
    );
  }
  (schema.enum ?? []).forEach((value, i) => {
    if (value !== null) {
      errors.schema.push(
        ...openAPIErrorsToFieldErrors(validateAgainstSchema(value, schema), indexPath(childPath(path, 'enum'), i)),
      );
    }
  });
  if (schema.additionalProperties) {
    if (Object.keys(schema.properties ?? {}).length > 0) {
      errors.schema.push(fieldForbidden(path, 'additionalProperties and properties are mutually exclusive'));
    }
    appendErrors(
      errors,
      validateSchema(
        schema.additionalProperties,
        childPath(path, 'additionalProperties'),
        uncorrelatablePath,
        celContext,
        child,
      ),
    );
  }
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const prop = schema.properties?.[name];
    if (prop)
      appendErrors(
        errors,
        validateSchema(prop, keyPath(childPath(path, 'properties'), name), uncorrelatablePath, celContext, child),
      );
  }
  if (schema.items) {
    // NOTE: items of atomic lists (the only list type variable schemas have) cannot be correlated with old items.
    const itemsPath = childPath(path, 'items');
    appendErrors(errors, validateSchema(schema.items, itemsPath, uncorrelatablePath ?? itemsPath, celContext, child));
  }
  if (schema.not)
    appendErrors(errors, validateSchema(schema.not, childPath(path, 'not'), uncorrelatablePath, 'none', child));
  for (const [list, name] of [
    [schema.allOf, 'allOf'],
    [schema.oneOf, 'oneOf'],
    [schema.anyOf, 'anyOf'],
  ] as const) {
    (list ?? []).forEach((sub, i) =>
      appendErrors(errors, validateSchema(sub, indexPath(childPath(path, name), i), uncorrelatablePath, 'none', child)),
    );
  }
  errors.schema.push(...validateRules(schema, path));
  validateRulesCompile(schema, path, uncorrelatablePath, celContext, cost, errors);
  return errors;
}

function validateRootSchema(variable: ClusterClassVariable, path: string): FieldError[] {
  const schema = variable.schema.openAPIV3Schema;
  const structural = validateStructuralSchema(schema, path);
  if (structural.length > 0) return structural;
  const defaults = validateDefaults(schema, path, true);
  if (defaults.length > 0) return defaults;
  const total = new StaticCostTotal();
  const cost: StaticCostContext = { cardinality: 1, isRoot: true, total };
  const errors = validateSchema(schema, path, undefined, isArrayWithRules(schema) ? 'untyped' : 'typed', cost);
  const all = [...errors.schema, ...errors.cel];
  if (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const expensive of total.mostExpensive) {
      all.push(
        fieldForbidden(
          expensive.path,
          'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema',
        ),
      );
    }
    all.push(
      fieldForbidden(
        path,
        costErrorMessage(
          'x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema',
          total.total,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return all;
}

/**
 * Validates the variables a ClusterClass defines: unique names, no reserved name (`builtin`) or `.` in names, valid
 * labels/annotations in metadata and x-metadata, and a valid schema (structural; defaults pruned and valid; examples
 * and enum values valid; patterns compile as Go regexps; x-kubernetes-validations well formed).
 * x-kubernetes-validations rules must compile, and defaults, examples and enum values must pass them.
 *
 * @example
 * const errors = validateClusterClassVariables(clusterClass.spec.variables ?? [], 'spec.variables');
 * // e.g. 'spec.variables[builtin].name: Invalid value: "builtin": "builtin" is a reserved variable name'
 */
export function validateClusterClassVariables(
  variables: readonly ClusterClassVariable[],
  fieldPath = 'spec.variables',
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const variable of variables) {
    if (seen.has(variable.name)) {
      errors.push(
        fieldInvalid(
          childPath(keyPath(fieldPath, variable.name), 'name'),
          variable.name,
          `variable name must be unique. Variable with name "${variable.name}" is defined more than once`,
        ),
      );
    }
    seen.add(variable.name);
  }
  for (const variable of variables) {
    const path = keyPath(fieldPath, variable.name);
    const schemaPath = childPath(path, 'schema', 'openAPIV3Schema');
    errors.push(...validateName(variable.name, childPath(path, 'name')));
    const metadata = variable.deprecatedV1Beta1Metadata;
    errors.push(...validateLabels(metadata?.labels, childPath(path, 'deprecatedV1Beta1Metadata', 'labels')));
    errors.push(
      ...validateAnnotations(metadata?.annotations, childPath(path, 'deprecatedV1Beta1Metadata', 'annotations')),
    );
    errors.push(...validateXMetadata(variable.schema.openAPIV3Schema, schemaPath));
    errors.push(...validateRootSchema(variable, schemaPath));
  }
  return errors;
}
