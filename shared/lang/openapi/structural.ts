// Structural-schema algorithms from apiextensions, on CAPI's JSONSchemaProps: pruning (to find unknown fields),
// defaulting, and the structural-schema rules a variable schema must follow.
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { FieldError } from '#shared/lang/openapi/field-error.ts';
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  formatFieldError,
  indexPath,
  keyPath,
} from '#shared/lang/openapi/field-error.ts';
import { regexpSyntaxError } from '#shared/lang/go/regexp.ts';
import { isJsonObject } from '#shared/lang/openapi/json-value.ts';

/**
 * The paths of fields pruning would drop (apiextensions' PruneWithOptions with TrackUnknownFieldPaths), sorted:
 * `foo.bar`, `list[0].x`. Fields under `x-kubernetes-preserve-unknown-fields: true` are kept.
 */
export function findUnknownFields(value: unknown, schema: JSONSchemaProps | undefined): string[] {
  const found: string[] = [];
  const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);
  const walk = (x: unknown, s: JSONSchemaProps | undefined, path: string, preserve: boolean): void => {
    if (s?.['x-kubernetes-preserve-unknown-fields'] && !preserve) return walk(x, s, path, true);
    if (isJsonObject(x)) {
      for (const key of Object.keys(x)) {
        const prop = s?.properties?.[key];
        if (prop) walk(x[key], prop, join(path, key), false);
        else if (s?.additionalProperties) walk(x[key], s.additionalProperties, join(path, key), false);
        else if (!preserve) found.push(join(path, key));
      }
    } else if (Array.isArray(x)) {
      x.forEach((item, i) => {
        if (preserve) {
          if (s?.items) walk(item, s.items, `${path}[${i}]`, true);
        } else walk(item, s?.items, `${path}[${i}]`, false);
      });
    }
  };
  walk(value, schema, '', false);
  return found.sort();
}

/** A copy of `value` with structural defaults applied at every level (apiextensions' defaulting.Default). */
export function applyStructuralDefaults(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) {
    return value.map((item: unknown) => {
      const filled =
        (item === null || item === undefined) && schema.items ? (structuredClone(schema.items.default) ?? null) : item;
      return applyStructuralDefaults(filled, schema.items);
    });
  }
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  const properties = schema.properties ?? {};
  for (const [key, prop] of Object.entries(properties)) {
    if (prop.default === undefined) continue;
    if (!Object.hasOwn(out, key) || out[key] === null) out[key] = structuredClone(prop.default);
  }
  for (const key of Object.keys(out)) {
    const prop = properties[key];
    if (prop) out[key] = applyStructuralDefaults(out[key], prop);
    else if (schema.additionalProperties) {
      const ap = schema.additionalProperties;
      if (out[key] === null && ap.default !== undefined) out[key] = structuredClone(ap.default);
      out[key] = applyStructuralDefaults(out[key], ap);
    }
  }
  return out;
}

type Level = 'item' | 'field';

function isIntOrStringAnyOf(anyOf: readonly JSONSchemaProps[] | undefined): boolean {
  if (!anyOf || anyOf.length !== 2) return false;
  const only = (s: JSONSchemaProps, type: string) => Object.keys(s).length === 1 && s.type === type;
  return anyOf[0] !== undefined && anyOf[1] !== undefined && only(anyOf[0], 'integer') && only(anyOf[1], 'string');
}

function validatePattern(s: JSONSchemaProps, path: string): FieldError[] {
  if (!s.pattern) return [];
  const error = regexpSyntaxError(s.pattern);
  return error
    ? [
        fieldInvalid(
          childPath(path, 'pattern'),
          s.pattern,
          `must be a valid regular expression, but isn't: ${error.message}`,
        ),
      ]
    : [];
}

/** Rules for schemas nested in allOf/anyOf/oneOf/not: value validations only (validateNestedValueValidation). */
function validateNested(v: JSONSchemaProps | undefined, path: string, skipAnyOf: boolean): FieldError[] {
  if (!v) return [];
  const errors = validateValueValidation(v, path, skipAnyOf, false);
  errors.push(...validateNested(v.items, childPath(path, 'items'), false));
  for (const [key, fld] of Object.entries(v.properties ?? {})) {
    errors.push(...validateNested(fld, keyPath(childPath(path, 'properties'), key), false));
  }
  if (v.type) errors.push(fieldForbidden(childPath(path, 'type'), 'must be empty to be structural'));
  if (v.additionalProperties)
    errors.push(fieldForbidden(childPath(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (v.default !== undefined)
    errors.push(fieldForbidden(childPath(path, 'default'), 'must be undefined to be structural'));
  if (v.description) errors.push(fieldForbidden(childPath(path, 'description'), 'must be empty to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields']) {
    errors.push(
      fieldForbidden(childPath(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'),
    );
  }
  if (v['x-kubernetes-int-or-string']) {
    errors.push(fieldForbidden(childPath(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  }
  if ((v['x-kubernetes-validations'] ?? []).length > 0) {
    errors.push(fieldForbidden(childPath(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errors.push(
      fieldForbidden(keyPath(childPath(path, 'properties'), 'metadata'), 'must not be specified in a nested context'),
    );
  }
  return errors;
}

function validateValueValidation(
  s: JSONSchemaProps,
  path: string,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!skipAnyOf)
    (s.anyOf ?? []).forEach((v, i) => errors.push(...validateNested(v, indexPath(childPath(path, 'anyOf'), i), false)));
  (s.allOf ?? []).forEach((v, i) =>
    errors.push(...validateNested(v, indexPath(childPath(path, 'allOf'), i), skipFirstAllOfAnyOf && i === 0)),
  );
  (s.oneOf ?? []).forEach((v, i) => errors.push(...validateNested(v, indexPath(childPath(path, 'oneOf'), i), false)));
  errors.push(...validateNested(s.not, childPath(path, 'not'), false));
  errors.push(...validatePattern(s, path));
  return errors;
}

function validateInvariants(s: JSONSchemaProps, level: Level, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (s.type === 'array' && !s.items) errors.push(fieldRequired(childPath(path, 'items'), 'must be specified'));
  if (s.items) errors.push(...validateInvariants(s.items, 'item', childPath(path, 'items')));
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    errors.push(...validateInvariants(prop, 'field', keyPath(childPath(path, 'properties'), key)));
  }
  if (s.additionalProperties)
    errors.push(...validateInvariants(s.additionalProperties, 'field', childPath(path, 'additionalProperties')));
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-preserve-unknown-fields']) {
    errors.push(
      fieldInvalid(
        childPath(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = isIntOrStringAnyOf(s.allOf?.[0]?.anyOf);
  errors.push(...validateValueValidation(s, path, skipAnyOf, skipFirstAllOfAnyOf));
  if (!s.type && !s['x-kubernetes-int-or-string'] && !s['x-kubernetes-preserve-unknown-fields']) {
    const where =
      level === 'item'
        ? 'must not be empty for specified array items'
        : 'must not be empty for specified object fields';
    errors.push(fieldRequired(childPath(path, 'type'), where));
  }
  return errors;
}

/** Properties used in allOf/anyOf/oneOf/not must also be specified in the structural part (complete.go). */
function validateCompleteness(
  v: JSONSchemaProps | undefined,
  s: JSONSchemaProps | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (!v) return [];
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errors: FieldError[] = [];
  const nested = (list: readonly JSONSchemaProps[] | undefined, name: string) =>
    (list ?? []).forEach((n, i) =>
      errors.push(...validateNestedCompleteness(n, s, sPath, indexPath(childPath(vPath, name), i))),
    );
  errors.push(...validateNestedCompleteness(v.not, s, sPath, childPath(vPath, 'not')));
  nested(v.allOf, 'allOf');
  nested(v.anyOf, 'anyOf');
  nested(v.oneOf, 'oneOf');
  return errors;
}

function validateNestedCompleteness(
  v: JSONSchemaProps | undefined,
  s: JSONSchemaProps | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (!v) return [];
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errors = validateCompleteness(v, s, sPath, vPath);
  errors.push(...validateNestedCompleteness(v.items, s.items, childPath(sPath, 'items'), childPath(vPath, 'items')));
  for (const [key, vFld] of Object.entries(v.properties ?? {})) {
    const sFld = s.properties?.[key];
    const sKey = keyPath(childPath(sPath, 'properties'), key);
    const vKey = keyPath(childPath(vPath, 'properties'), key);
    if (!sFld) errors.push(fieldRequired(sKey, `because it is defined in ${vKey}`));
    else errors.push(...validateNestedCompleteness(vFld, sFld, sKey, vKey));
  }
  return errors;
}

/**
 * The structural-schema rules (apiextensions' ValidateStructural) for a variable schema at `path`. Upstream wraps the
 * variable schema as a property of an object, so the variable's root is checked as an object field. Errors are
 * sorted by message, as upstream sorts them.
 */
export function validateStructuralSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors = [...validateInvariants(schema, 'field', path), ...validateCompleteness(schema, schema, path, path)];
  const keyed = errors.map((error) => ({ error, text: formatFieldError(error) }));
  keyed.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return keyed.map((k) => k.error);
}
