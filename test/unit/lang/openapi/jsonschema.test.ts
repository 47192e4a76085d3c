import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { JSONSchemaProps, JSONSchemaPropsCRD, SCHEMALESS_META_KEY } from '#shared/lang/openapi/jsonschema.ts';
import {
  ClusterClassStatusVariable,
  ClusterClassVariable,
  ClusterVariable,
  ClusterVariables,
  VariableDefinitionFrom,
} from '#shared/api/core/v1beta1/variables.ts';

describe('JSONSchemaProps', () => {
  test('parses a recursive schema at every level', () => {
    const raw = {
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'object', additionalProperties: { type: 'integer', maximum: 3 } } },
        b: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
      allOf: [{ required: ['a'] }],
      not: { required: ['c'] },
      exclusiveMaximum: false,
      'x-kubernetes-validations': [{ rule: 'has(self.a)', reason: 'FieldValueInvalid' }],
      'x-metadata': { labels: { a: 'b' } },
      default: { a: [] },
    };
    assert.deepEqual(JSONSchemaProps.parse(raw), raw);
  });

  test('strips fields upstream does not know, at nested levels too', () => {
    const parsed = JSONSchemaProps.parse({
      type: 'object',
      title: 'x',
      properties: { a: { type: 'string', nullable: true } },
    });
    assert.deepEqual(parsed, { type: 'object', properties: { a: { type: 'string' } } });
  });

  const invalid: { name: string; raw: unknown; path: (string | number)[] }[] = [
    {
      name: 'rejects an unsupported nested type',
      raw: { type: 'object', properties: { a: { type: 'null' } } },
      path: ['properties', 'a', 'type'],
    },
    {
      name: 'rejects a non-boolean exclusiveMinimum',
      raw: { type: 'integer', exclusiveMinimum: 3 },
      path: ['exclusiveMinimum'],
    },
    { name: 'rejects a fractional maximum (int64 upstream)', raw: { type: 'number', maximum: 1.5 }, path: ['maximum'] },
    {
      name: 'rejects an unknown CEL reason',
      raw: { type: 'string', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Nope' }] },
      path: ['x-kubernetes-validations', 0, 'reason'],
    },
    {
      name: 'rejects more than 100 enum values',
      raw: { type: 'integer', enum: Array.from({ length: 101 }, (_, i) => i) },
      path: ['enum'],
    },
  ];
  for (const c of invalid) {
    test(c.name, () => {
      const result = JSONSchemaProps.safeParse(c.raw);
      assert.equal(result.success, false);
      assert.deepEqual(result.error?.issues[0]?.path, c.path);
    });
  }

  test('marks the recursive fields schemaless for the CRD generator', () => {
    const shape = (JSONSchemaProps as unknown as z.ZodObject).shape;
    for (const field of JSONSchemaPropsCRD.schemalessFields) {
      const inner = (shape[field] as z.ZodOptional).unwrap();
      const meta = z.globalRegistry.get(inner);
      assert.equal(meta?.[SCHEMALESS_META_KEY], true, field);
      assert.equal(meta?.['x-kubernetes-preserve-unknown-fields'], true, field);
    }
  });
});

describe('variable API types', () => {
  test('requires a value on a ClusterVariable but accepts any JSON, null included', () => {
    assert.equal(ClusterVariable.safeParse({ name: 'a' }).success, false);
    assert.deepEqual(ClusterVariable.parse({ name: 'a', value: null }), { name: 'a', value: null });
    assert.deepEqual(ClusterVariable.parse({ name: 'a', value: { b: [1] } }), { name: 'a', value: { b: [1] } });
  });

  test('keys Cluster variables as a list map by name', () => {
    assert.deepEqual(z.globalRegistry.get(ClusterVariables)?.['x-kubernetes-list-map-keys'], ['name']);
  });

  test('parses a ClusterClass variable and a status variable', () => {
    const schema = { openAPIV3Schema: { type: 'string' as const } };
    assert.deepEqual(ClusterClassVariable.parse({ name: 'v', required: true, schema }), {
      name: 'v',
      required: true,
      schema,
    });
    const status = {
      name: 'v',
      definitionsConflict: false,
      definitions: [{ from: VariableDefinitionFrom.Inline, required: true, schema }],
    };
    assert.deepEqual(ClusterClassStatusVariable.parse(status), status);
    assert.equal(ClusterClassVariable.safeParse({ name: '', required: true, schema }).success, false);
  });
});
