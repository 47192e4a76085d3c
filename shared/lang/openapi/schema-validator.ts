// Validation of a JSON value against a variable's OpenAPI v3 schema, with the semantics and messages of the API
// server's CRD validation (kube-openapi's validator behind apiextensions' ValidateCustomResource).
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { BadValue, FieldError } from '#shared/lang/openapi/field-error.ts';
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
} from '#shared/lang/openapi/field-error.ts';
import { compileRegexp, regexpSyntaxError } from '#shared/lang/go/regexp.ts';
import { canonicalJson, isJsonObject, jsonEqual } from '#shared/lang/openapi/json-value.ts';
import { stringFormatChecker } from '#shared/lang/openapi/string-formats.ts';
import { quote } from '#shared/lang/go/strconv.ts';
import { formatFloat } from '#shared/lang/go/format-float.ts';

/** What kube-openapi reports: a validation error at a (dotted) name, or a plain error about the whole value. */
export type OpenAPIError =
  | {
      readonly kind: 'validation';
      readonly code: 'required' | 'enum' | 'tooLong' | 'tooManyItems' | 'tooManyProperties' | 'invalidType' | 'other';
      /** kube-openapi's path: `foo.bar[0]`, with quirks kept (`.key` for root additionalProperties/required). */
      readonly name: string;
      readonly value?: unknown;
      readonly limit?: number;
      readonly enumValues?: readonly unknown[];
      readonly message: string;
    }
  | { readonly kind: 'plain'; readonly message: string };

const IN = 'body';
const INT32 = 2 ** 31;
const INT64 = 2 ** 63;
const FLOAT32_MAX = 3.4028234663852886e38;

type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

function kindOf(value: unknown): ValueKind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < INT64 ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

function schemaTypes(schema: JSONSchemaProps): string[] {
  if (schema['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return schema.type ? [schema.type] : [];
}

/**
 * How formats are read. `strip`: as apiextensions' NewSchemaValidator does, through its
 * StripUnsupportedFormatsPostProcessor (used for values, examples and enums). `keep`: as structural defaulting's
 * ValidateDefaults does (s.ToKubeOpenAPI(), nothing stripped), so `format: double` on an integer still counts there.
 */
export type SchemaValidationOptions = { readonly formats: 'strip' | 'keep' };
const stripFormats: SchemaValidationOptions = { formats: 'strip' };

/** The format the validator sees (see SchemaValidationOptions). */
function effectiveFormat(schema: JSONSchemaProps, opts: SchemaValidationOptions): string {
  const format = schema.format ?? '';
  if (!format) return '';
  const types = schemaTypes(schema);
  const type = types.length === 1 ? types[0] : '';
  if (opts.formats === 'keep') return format;
  if (type === '' || type === 'string') return stringFormatChecker(format) ? format : '';
  if (type === 'integer') return format === 'int32' || format === 'int64' ? format : '';
  if (type === 'number') return format === 'float' || format === 'double' ? format : '';
  return '';
}

function invalidType(name: string, typeName: string, value: string): OpenAPIError {
  return {
    kind: 'validation',
    code: 'invalidType',
    name,
    value,
    message: `${name} in ${IN} must be of type ${typeName}: ${quote(value)}`,
  };
}

function other(name: string, message: string, value?: unknown): OpenAPIError {
  return { kind: 'validation', code: 'other', name, value, message: `${name} in ${IN} ${message}` };
}

function validateType(
  data: unknown,
  schema: JSONSchemaProps,
  path: string,
  opts: SchemaValidationOptions,
): OpenAPIError[] {
  const types = schemaTypes(schema);
  const format = effectiveFormat(schema, opts);
  if (types.length === 0 && format === '') return [];
  if (data === null || data === undefined) return types.length > 0 ? [invalidType(path, types.join(','), 'null')] : [];
  const kind = kindOf(data);
  const dataFormat = kind === 'integer' ? 'int64' : kind === 'number' ? 'float64' : '';
  const isIntFloat = kind === 'integer' && types.includes('number');
  if (kind !== 'string' && kind !== 'array' && format !== '') {
    if (!(types.includes(kind) || dataFormat === format || isIntFloat)) return [invalidType(path, format, dataFormat)];
  }
  if (
    !(types.includes('number') || types.includes('integer')) &&
    format !== '' &&
    (kind === 'string' || kind === 'array')
  ) {
    return [];
  }
  if (!(types.includes(kind) || isIntFloat)) return [invalidType(path, types.join(','), kind)];
  return [];
}

function validateString(data: string, schema: JSONSchemaProps, path: string): OpenAPIError[] {
  const length = [...data].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return [
      {
        kind: 'validation',
        code: 'tooLong',
        name: path,
        value: data,
        limit: schema.maxLength,
        message: `${path} in ${IN} should be at most ${schema.maxLength} chars long`,
      },
    ];
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    return [other(path, `should be at least ${schema.minLength} chars long`, data)];
  }
  if (schema.pattern) {
    const error = regexpSyntaxError(schema.pattern);
    if (error) return [other(path, `should match '${schema.pattern}, but pattern is invalid: ${error.message}'`, data)];
    if (!compileRegexp(schema.pattern).matchString(data))
      return [other(path, `should match '${schema.pattern}'`, data)];
  }
  return [];
}

function rangeError(value: number, typeName: string, format: string, prefix: string, path: string): OpenAPIError[] {
  let ok = true;
  if (typeName === 'integer') {
    const bound = format === 'int32' ? INT32 : INT64;
    ok = Number.isInteger(value) && value >= -bound && value < bound;
  } else if (format === 'float') {
    ok = Math.abs(value) <= FLOAT32_MAX;
  }
  if (ok) return [];
  const what = format ? `${typeName} with format ${format}` : `${typeName} (default format)`;
  return [{ kind: 'plain', message: `${prefix} value must be of type ${what} in ${path}` }];
}

function validateNumber(data: number, schema: JSONSchemaProps, path: string): OpenAPIError[] {
  const types = schemaTypes(schema);
  const typeName = types.length === 1 && (types[0] === 'integer' || types[0] === 'number') ? types[0] : '';
  // NOTE: range errors name the stripped format even where the type check keeps the raw one (ValidateDefaults).
  const format = typeName ? effectiveFormat(schema, stripFormats) : '';
  const errors = rangeError(data, typeName, format, 'Checked', path);
  const isInt = kindOf(data) === 'integer';
  const bound = (limit: number, exclusive: boolean, isMax: boolean): OpenAPIError[] => {
    const prefix = isMax ? 'Maximum boundary' : 'Minimum boundary';
    const boundaryErrors = rangeError(limit, typeName, format, prefix, path);
    const useInt = isInt && boundaryErrors.length === 0;
    const limitValue = useInt ? Math.trunc(limit) : limit;
    const failed = isMax
      ? exclusive
        ? data >= limitValue
        : data > limitValue
      : exclusive
        ? data <= limitValue
        : data < limitValue;
    if (!failed) return boundaryErrors;
    const shown = useInt ? String(limitValue) : formatFloat(limitValue, 'g', -1);
    const relation = isMax
      ? exclusive
        ? 'should be less than'
        : 'should be less than or equal to'
      : exclusive
        ? 'should be greater than'
        : 'should be greater than or equal to';
    return [...boundaryErrors, other(path, `${relation} ${shown}`, data)];
  };
  if (schema.minimum !== undefined) errors.push(...bound(schema.minimum, schema.exclusiveMinimum === true, false));
  if (schema.maximum !== undefined) errors.push(...bound(schema.maximum, schema.exclusiveMaximum === true, true));
  return errors;
}

function validateArray(
  data: readonly unknown[],
  schema: JSONSchemaProps,
  path: string,
  opts: SchemaValidationOptions,
): OpenAPIError[] {
  const errors: OpenAPIError[] = [];
  if (schema.items) {
    const items = schema.items;
    data.forEach((item, i) => errors.push(...validateAgainstSchema(item, items, `${path}[${i}]`, opts)));
  }
  if (schema.minItems !== undefined && data.length < schema.minItems) {
    errors.push(other(path, `should have at least ${schema.minItems} items`, data.length));
  }
  if (schema.maxItems !== undefined && data.length > schema.maxItems) {
    errors.push({
      kind: 'validation',
      code: 'tooManyItems',
      name: path,
      value: data.length,
      limit: schema.maxItems,
      message: `${path} in ${IN} should have at most ${schema.maxItems} items`,
    });
  }
  if (schema.uniqueItems && data.some((item, i) => data.slice(0, i).some((earlier) => jsonEqual(earlier, item)))) {
    errors.push(other(path, "shouldn't contain duplicates"));
  }
  return errors;
}

function validateObject(
  data: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  opts: SchemaValidationOptions,
): OpenAPIError[] {
  const errors: OpenAPIError[] = [];
  const keys = Object.keys(data).sort();
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
    errors.push(other(path, `should have at least ${schema.minProperties} properties`, keys.length));
  }
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    errors.push({
      kind: 'validation',
      code: 'tooManyProperties',
      name: path,
      value: keys.length,
      limit: schema.maxProperties,
      message: `${path} in ${IN} should have at most ${schema.maxProperties} properties`,
    });
  }
  const properties = schema.properties ?? {};
  if (schema.additionalProperties) {
    for (const key of keys) {
      if (!Object.hasOwn(properties, key)) {
        errors.push(...validateAgainstSchema(data[key], schema.additionalProperties, `${path}.${key}`, opts));
      }
    }
  }
  for (const name of Object.keys(properties).sort()) {
    const propertySchema = properties[name];
    if (propertySchema && Object.hasOwn(data, name)) {
      errors.push(...validateAgainstSchema(data[name], propertySchema, path ? `${path}.${name}` : name, opts));
    }
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(data, name)) {
      errors.push({
        kind: 'validation',
        code: 'required',
        name: `${path}.${name}`,
        message: `${path}.${name} in ${IN} is required`,
      });
    }
  }
  return errors;
}

function validateComposition(
  data: unknown,
  schema: JSONSchemaProps,
  path: string,
  opts: SchemaValidationOptions,
): OpenAPIError[] {
  const errors: OpenAPIError[] = [];
  const quoted = quote(path);
  if (schema.anyOf && schema.anyOf.length > 0) {
    const results = schema.anyOf.map((sub) => validateAgainstSchema(data, sub, path, opts));
    if (!results.some((r) => r.length === 0)) {
      errors.push({ kind: 'plain', message: `${quoted} must validate at least one schema (anyOf)` });
      errors.push(...(results[0] ?? []));
    }
  }
  if (schema.oneOf && schema.oneOf.length > 0) {
    const results = schema.oneOf.map((sub) => validateAgainstSchema(data, sub, path, opts));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      const why = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      errors.push({ kind: 'plain', message: `${quoted} must validate one and only one schema (oneOf). ${why}` });
      if (valid === 0) errors.push(...(results[0] ?? []));
    }
  }
  if (schema.allOf && schema.allOf.length > 0) {
    const results = schema.allOf.map((sub) => validateAgainstSchema(data, sub, path, opts));
    results.forEach((r) => errors.push(...r));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== results.length) {
      errors.push({
        kind: 'plain',
        message: `${quoted} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`,
      });
    }
  }
  if (schema.not && validateAgainstSchema(data, schema.not, path, opts).length === 0) {
    errors.push({ kind: 'plain', message: `${quoted} must not validate the schema (not)` });
  }
  return errors;
}

/**
 * kube-openapi's enum check: the value is converted to the enum value's Go type when Go can convert it, then
 * compared. Kubernetes decodes whole JSON numbers as int64, others as float64, so NOTE two Go conversions show:
 * a fractional number matches an integer enum value after truncation (`0.5` is in `[0]`), and an integer matches a
 * string enum value that is the character with that code point (`97` is in `["a"]`).
 */
function enumMatches(value: unknown, data: unknown): boolean {
  if (typeof value === 'number' && typeof data === 'number') {
    return Number.isInteger(value) ? Math.trunc(data) === value : data === value;
  }
  if (typeof value === 'string' && typeof data === 'number' && Number.isInteger(data)) {
    const valid = data >= 0 && data <= 0x10ffff && !(data >= 0xd800 && data <= 0xdfff);
    return String.fromCodePoint(valid ? data : 0xfffd) === value;
  }
  return jsonEqual(value, data);
}

function validateEnum(data: unknown, schema: JSONSchemaProps, path: string): OpenAPIError[] {
  const values = schema.enum ?? [];
  if (values.length === 0 || values.some((v) => data !== null && data !== undefined && enumMatches(v, data))) return [];
  return [
    {
      kind: 'validation',
      code: 'enum',
      name: path,
      value: data,
      enumValues: values,
      message: `${path} in ${IN} should be one of ${canonicalJson(values)}`,
    },
  ];
}

/**
 * Validates `data` against `schema` as kube-openapi does (type, composition, string, format, number, array, enum,
 * object, in that order); `path` is kube-openapi's name of `data` ('' at the root). Unknown fields are not reported
 * here: upstream finds them by pruning (see findUnknownFields).
 */
export function validateAgainstSchema(
  data: unknown,
  schema: JSONSchemaProps,
  path = '',
  opts: SchemaValidationOptions = stripFormats,
): OpenAPIError[] {
  const errors = validateType(data, schema, path, opts);
  if (data === null || data === undefined) return [...errors, ...validateEnum(null, schema, path)];
  errors.push(...validateComposition(data, schema, path, opts));
  if (typeof data === 'string') {
    errors.push(...validateString(data, schema, path));
    const format = effectiveFormat(schema, opts);
    const check = format ? stringFormatChecker(format) : undefined;
    if (check && !check(data)) errors.push(invalidType(path, format, data));
  }
  if (typeof data === 'number') errors.push(...validateNumber(data, schema, path));
  if (Array.isArray(data)) errors.push(...validateArray(data, schema, path, opts));
  errors.push(...validateEnum(data, schema, path));
  if (isJsonObject(data)) errors.push(...validateObject(data, schema, path, opts));
  return errors;
}

/** A value as apimachinery prints an `interface{}` bad value. */
function goBadValue(value: unknown): BadValue {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return { json: value };
}

function enumValueText(value: unknown): string {
  return typeof value === 'string' ? value : canonicalJson(value);
}

/** How upstream turns kube-openapi errors into field errors at one call site. */
export type ToFieldErrorsOptions = {
  /** Replaces every bad value (upstream shows the variable's whole raw JSON value). */
  readonly badValue?: BadValue;
  /** Strip the leading ' in body ' kube-openapi leaves when the name is empty (cluster variable validation does). */
  readonly trimInBody?: boolean;
};

/**
 * apiextensions' kubeOpenAPIResultToFieldErrors: kube-openapi errors as field errors under `fieldPath`.
 *
 * @example
 * openAPIErrorsToFieldErrors(validateAgainstSchema('x', { type: 'integer' }), 'spec.topology.variables[cpu].value');
 */
export function openAPIErrorsToFieldErrors(
  errors: readonly OpenAPIError[],
  fieldPath: string,
  options: ToFieldErrorsOptions = {},
): FieldError[] {
  const detail = (message: string) =>
    options.trimInBody && message.startsWith(' in body ') ? message.slice(9) : message;
  return errors.map((error): FieldError => {
    if (error.kind === 'plain') return fieldInvalid(fieldPath, options.badValue ?? '', detail(error.message));
    const path = error.name && error.name !== '.' ? childPath(fieldPath, error.name.replace(/^\./, '')) : fieldPath;
    const bad = options.badValue ?? goBadValue(error.value);
    switch (error.code) {
      case 'required':
        return fieldRequired(path, '');
      case 'enum':
        return fieldNotSupported(path, bad, (error.enumValues ?? []).map(enumValueText));
      case 'tooLong':
        return fieldTooLong(path, error.limit ?? -1);
      case 'tooManyItems':
      case 'tooManyProperties': {
        const tooMany = fieldTooMany(path, typeof error.value === 'number' ? error.value : -1, error.limit ?? -1);
        return options.badValue === undefined ? tooMany : { ...tooMany, badValue: options.badValue };
      }
      case 'invalidType':
        return fieldTypeInvalid(path, bad, detail(error.message));
      default:
        return fieldInvalid(path, bad, detail(error.message));
    }
  });
}
