// fast-check arbitraries for ClusterClass variable schemas (the OpenAPI subset upstream allows) and for values that
// mostly fit them, so that validation and defaulting are exercised on valid, nearly valid and invalid input.
import fc from 'fast-check';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';

const shortString = fc.constantFrom(
  '',
  'a',
  'ab',
  'abc',
  'A1',
  'x-y',
  '10.0.0.1',
  '2024-01-02',
  'é😀',
  'https://x.io/a',
);
const number = fc.oneof(fc.integer({ min: -5, max: 12 }), fc.constantFrom(0.5, -1.5, 2.25, 1e10, 3.0));

/** A JSON value shaped like the schema most of the time, and anything else some of the time. */
export function valueFor(schema: JSONSchemaProps, depth = 0): fc.Arbitrary<unknown> {
  const any = anyJson(depth);
  let fitting: fc.Arbitrary<unknown>;
  if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
    const props = Object.entries(schema.properties ?? {});
    const extra = schema.additionalProperties;
    const fromProps = fc.record(Object.fromEntries(props.map(([k, s]) => [k, valueFor(s, depth + 1)])), {
      requiredKeys: [],
    });
    fitting =
      extra !== undefined && typeof extra === 'object'
        ? fc
            .tuple(fromProps, fc.dictionary(fc.constantFrom('p', 'q'), valueFor(extra, depth + 1), { maxKeys: 2 }))
            .map(([a, b]) => ({ ...b, ...a }))
        : fc
            .tuple(fromProps, fc.option(anyJson(depth + 1), { freq: 4 }))
            .map(([a, x]) => (x === null ? a : { ...a, zz: x }));
  } else if (schema.type === 'array') {
    fitting = fc.array(
      schema.items && !Array.isArray(schema.items) ? valueFor(schema.items as JSONSchemaProps, depth + 1) : any,
      { maxLength: 3 },
    );
  } else if (schema.type === 'string')
    fitting = schema.enum ? fc.constantFrom(...(schema.enum as unknown[])) : shortString;
  else if (schema.type === 'integer') fitting = fc.integer({ min: -5, max: 12 });
  else if (schema.type === 'number') fitting = number;
  else if (schema.type === 'boolean') fitting = fc.boolean();
  else fitting = any;
  return fc.oneof({ weight: 5, arbitrary: fitting }, { weight: 1, arbitrary: any });
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(shortString, number, fc.boolean(), fc.constant(null));
  if (depth > 2) return scalar;
  return fc.oneof(
    { weight: 4, arbitrary: scalar },
    fc.array(scalar, { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'zz'), scalar, { maxKeys: 2 }),
  );
}

const formats = fc.constantFrom(
  'date',
  'date-time',
  'ipv4',
  'ipv6',
  'cidr',
  'uri',
  'uuid',
  'hostname',
  'email',
  'byte',
  'duration',
  'bogus',
);
const patterns = fc.constantFrom('^a', '^[a-z0-9-]+$', '(?i)^A', '[[:digit:]]', '^\\d+$', '(', '^v?[0-9]+\\.', 'é$');

const stringSchema = fc.record(
  {
    type: fc.constant('string' as const),
    minLength: fc.nat(3),
    maxLength: fc.nat(5),
    pattern: patterns,
    format: formats,
    enum: fc.array(shortString, { minLength: 1, maxLength: 3 }),
    default: shortString,
    example: shortString,
  },
  { requiredKeys: ['type'] },
);
const numberSchema = fc.record(
  {
    type: fc.constantFrom('integer' as const, 'number' as const),
    minimum: fc.integer({ min: -3, max: 5 }),
    maximum: fc.integer({ min: -3, max: 10 }),
    exclusiveMinimum: fc.boolean(),
    exclusiveMaximum: fc.boolean(),
    format: fc.constantFrom('int32', 'int64', 'float', 'double'),
    default: number,
    enum: fc.array(number, { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: ['type'] },
);
const otherLeaf = fc.oneof(
  fc.record(
    { type: fc.constant('boolean' as const), default: fc.oneof(fc.boolean(), shortString) },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { 'x-kubernetes-int-or-string': fc.constant(true), default: fc.oneof(fc.integer({ min: 0, max: 9 }), shortString) },
    { requiredKeys: ['x-kubernetes-int-or-string'] },
  ),
  fc.record({ type: fc.constant('string' as const), 'x-kubernetes-preserve-unknown-fields': fc.constant(true) }),
);

/** A variable schema: nested objects, maps and arrays over the leaves, with defaults and constraints. */
export const schema: fc.Arbitrary<JSONSchemaProps> = fc.letrec<{ schema: JSONSchemaProps }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringSchema,
    numberSchema,
    otherLeaf,
    fc.record(
      {
        type: fc.constant('object' as const),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema'), { minKeys: 1, maxKeys: 3 }),
        required: fc.array(fc.constantFrom('a', 'b', 'x'), { maxLength: 2 }),
        default: fc.oneof(fc.constant({}), fc.constant({ a: 1 }), fc.constant({ b: 'x' })),
        'x-kubernetes-preserve-unknown-fields': fc.boolean(),
        maxProperties: fc.nat(3),
        minProperties: fc.nat(2),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    fc.record(
      { type: fc.constant('object' as const), additionalProperties: tie('schema'), default: fc.constant({}) },
      { requiredKeys: ['type', 'additionalProperties'] },
    ),
    fc.record(
      {
        type: fc.constant('array' as const),
        items: tie('schema'),
        uniqueItems: fc.boolean(),
        maxItems: fc.nat(3),
        minItems: fc.nat(2),
        default: fc.constant([]),
      },
      { requiredKeys: ['type', 'items'] },
    ),
  ),
})).schema;

/** A ClusterClass variable in capi-serverless's (v1beta1-shaped) API types. */
export type ClassVariable = { name: string; required: boolean; schema: { openAPIV3Schema: JSONSchemaProps } };

export const variableName = fc.constantFrom('cpu', 'region', 'x', 'builtin', 'my-var', 'a.b', 'Upper', '');

/** One to three variables, names mostly valid. */
export const classVariables: fc.Arbitrary<ClassVariable[]> = fc.array(
  fc.record({ name: variableName, required: fc.boolean(), schema: schema.map((s) => ({ openAPIV3Schema: s })) }),
  { minLength: 1, maxLength: 3 },
);

/**
 * The same schemas with the usual reasons for upstream to reject a ClusterClass taken out (enum and example
 * mismatches, a broken pattern, required fields that are not properties, min above max), so that most of them reach
 * Cluster value validation and defaulting.
 */
export function sanitizeSchema(s: JSONSchemaProps): JSONSchemaProps {
  const { enum: _enum, example: _example, pattern, required, properties, additionalProperties, items, ...rest } = s;
  const out: JSONSchemaProps = { ...rest };
  if (pattern !== undefined && pattern !== '(') out.pattern = pattern;
  if (properties) {
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, sanitizeSchema(v)]));
    const req = (required ?? []).filter((r) => r in properties);
    if (req.length > 0) out.required = [...new Set(req)];
  }
  if (additionalProperties !== undefined && typeof additionalProperties === 'object')
    out.additionalProperties = sanitizeSchema(additionalProperties);
  if (items !== undefined && !Array.isArray(items)) out.items = sanitizeSchema(items as JSONSchemaProps);
  for (const [lo, hi] of [
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
    ['minimum', 'maximum'],
  ] as const) {
    const a = out[lo];
    const b = out[hi];
    if (typeof a === 'number' && typeof b === 'number' && a > b) delete out[hi];
  }
  return out;
}

/** Class variables that upstream mostly accepts. */
export const mostlyValidClassVariables: fc.Arbitrary<ClassVariable[]> = classVariables.map((vars) =>
  vars.map((v) => ({ ...v, schema: { openAPIV3Schema: sanitizeSchema(v.schema.openAPIV3Schema) } })),
);
