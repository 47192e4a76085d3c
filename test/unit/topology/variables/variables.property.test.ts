import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { JSONSchemaProps as JSONSchemaPropsSchema } from '#shared/lang/openapi/jsonschema.ts';
import {
  defaultClusterVariables,
  formatFieldErrors,
  validateClusterClassVariables,
  validateClusterVariables,
} from '#shared/topology/variables/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

const scalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const leaf: fc.Arbitrary<JSONSchemaProps> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string' as const),
      maxLength: fc.nat(5),
      pattern: fc.constantFrom('^a', '(?i)b', '[[:digit:]]', '('),
      format: fc.constantFrom('date', 'ipv4', 'uri', 'bogus'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('integer' as const, 'number' as const),
      minimum: fc.integer(),
      maximum: fc.integer(),
      exclusiveMaximum: fc.boolean(),
      format: fc.constantFrom('int32', 'float'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('boolean' as const), default: fc.boolean() }, { requiredKeys: ['type'] }),
  fc.record({
    'x-kubernetes-int-or-string': fc.constant(true),
    default: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
  }),
);
const schemaArb: fc.Arbitrary<JSONSchemaProps> = fc.letrec<{ schema: JSONSchemaProps }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.record(
      {
        type: fc.constant('object' as const),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema'), { maxKeys: 3 }),
        required: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
        default: fc.constant({}),
        'x-kubernetes-preserve-unknown-fields': fc.boolean(),
        maxProperties: fc.nat(3),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('object' as const), additionalProperties: tie('schema') }),
    fc.record(
      { type: fc.constant('array' as const), items: tie('schema'), uniqueItems: fc.boolean(), maxItems: fc.nat(3) },
      { requiredKeys: ['type', 'items'] },
    ),
  ),
})).schema;

describe('variables: properties', () => {
  test('validation returns field errors and never throws, for any schema and value', () => {
    fc.assert(
      fc.property(schemaArb, json, (schema, v) => {
        const defs = [definition('v', schema)];
        const errors = validateClusterVariables([value('v', v)], defs);
        assert.ok(Array.isArray(errors));
        for (const message of formatFieldErrors(errors)) assert.match(message, /^spec\.topology\.variables/);
        const ccErrors = validateClusterClassVariables(
          deepFreeze([{ name: 'v', required: false, schema: { openAPIV3Schema: schema } }]),
        );
        for (const e of ccErrors) assert.match(e.field, /^spec\.variables\[v\]/);
      }),
      { numRuns: 300 },
    );
  });

  test('defaulting twice gives the same result as defaulting once', () => {
    fc.assert(
      fc.property(schemaArb, json, fc.boolean(), (schema, v, setValue) => {
        const defs = [definition('v', schema)];
        const once = defaultClusterVariables(setValue ? [value('v', v)] : [], defs);
        assert.ok(once.ok);
        const twice = defaultClusterVariables(deepFreeze(once.values), defs);
        assert.ok(twice.ok);
        assert.deepEqual(twice.values, once.values);
      }),
      { numRuns: 300 },
    );
  });

  test('generated schemas are accepted by the API schema, so the properties exercise real input', () => {
    fc.assert(
      fc.property(schemaArb, (schema) => assert.ok(JSONSchemaPropsSchema.safeParse(schema).success)),
      { numRuns: 100 },
    );
  });
});
