// Validation of the variables a ClusterClass defines (spec.variables), as upstream's
// clusterclass_variable_validation.go: names, metadata, and schemas (structural, defaults, examples, enums, rules).
import type { JSONSchemaProps } from '#shared/api/jsonschema.ts';
import { JSONSchemaTypes } from '#shared/api/jsonschema.ts';
import type { ClusterClassVariable } from '#shared/api/v1beta2/variables.ts';
import type { BadValue, FieldError } from '#shared/topology/variables/field-error.ts';
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  keyPath,
} from '#shared/topology/variables/field-error.ts';
import { validateAnnotations, validateLabels } from '#shared/topology/variables/metadata-validation.ts';
import { openAPIErrorsToFieldErrors, validateAgainstSchema } from '#shared/topology/variables/schema-validator.ts';
import { findUnknownFields, validateStructuralSchema } from '#shared/topology/variables/structural.ts';

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

/** Defaults must be pruned (no unknown fields) and valid against their schema (structural ValidateDefaults). */
function validateDefaults(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.default !== undefined) {
    const defaultPath = childPath(path, 'default');
    if (findUnknownFields(schema.default, schema).length > 0) {
      errors.push(fieldInvalid(defaultPath, jsonBadValue(schema.default), 'must not have unknown fields'));
    }
    errors.push(
      ...openAPIErrorsToFieldErrors(
        validateAgainstSchema(schema.default, schema, '', { formats: 'keep' }),
        defaultPath,
      ),
    );
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

/** validateSchema: supported types, examples and enums valid, properties XOR additionalProperties, rules well formed. */
function validateSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  if (schema.type !== undefined && !(JSONSchemaTypes as readonly string[]).includes(schema.type)) {
    return [fieldNotSupported(childPath(path, 'type'), schema.type, [...JSONSchemaTypes].sort())];
  }
  const errors: FieldError[] = [];
  if (schema.example !== undefined) {
    errors.push(
      ...openAPIErrorsToFieldErrors(validateAgainstSchema(schema.example, schema), childPath(path, 'example')),
    );
  }
  (schema.enum ?? []).forEach((value, i) => {
    if (value !== null) {
      errors.push(
        ...openAPIErrorsToFieldErrors(validateAgainstSchema(value, schema), indexPath(childPath(path, 'enum'), i)),
      );
    }
  });
  if (schema.additionalProperties) {
    if (Object.keys(schema.properties ?? {}).length > 0) {
      errors.push(fieldForbidden(path, 'additionalProperties and properties are mutually exclusive'));
    }
    errors.push(...validateSchema(schema.additionalProperties, childPath(path, 'additionalProperties')));
  }
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const prop = schema.properties?.[name];
    if (prop) errors.push(...validateSchema(prop, keyPath(childPath(path, 'properties'), name)));
  }
  if (schema.items) errors.push(...validateSchema(schema.items, childPath(path, 'items')));
  if (schema.not) errors.push(...validateSchema(schema.not, childPath(path, 'not')));
  for (const [list, name] of [
    [schema.allOf, 'allOf'],
    [schema.oneOf, 'oneOf'],
    [schema.anyOf, 'anyOf'],
  ] as const) {
    (list ?? []).forEach((sub, i) => errors.push(...validateSchema(sub, indexPath(childPath(path, name), i))));
  }
  errors.push(...validateRules(schema, path));
  return errors;
}

function validateRootSchema(variable: ClusterClassVariable, path: string): FieldError[] {
  const schema = variable.schema.openAPIV3Schema;
  const structural = validateStructuralSchema(schema, path);
  if (structural.length > 0) return structural;
  const defaults = validateDefaults(schema, path);
  if (defaults.length > 0) return defaults;
  return validateSchema(schema, path);
}

/**
 * Validates the variables a ClusterClass defines: unique names, no reserved name (`builtin`) or `.` in names, valid
 * labels/annotations in metadata and x-metadata, and a valid schema (structural; defaults pruned and valid; examples
 * and enum values valid; patterns compile as Go regexps; x-kubernetes-validations well formed).
 * NOTE: CEL rules are checked for form only, not compiled (no CEL engine).
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
