import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, jsonEqual } from '#shared/topology/variables/json-value.ts';
import { applyStructuralDefaults, findUnknownFields } from '#shared/topology/variables/structural.ts';

describe('JSON helpers', () => {
  test('compares objects regardless of key order', () =>
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })));
  test('tells arrays and objects apart', () => assert.ok(!jsonEqual([], {})));
  test('renders canonical JSON with sorted keys', () =>
    assert.equal(canonicalJson({ b: 1, a: { d: 1, c: 2 } }), '{"a":{"c":2,"d":1},"b":1}'));
});

describe('structural algorithms', () => {
  test('finds unknown fields inside arrays with their index', () => {
    const schema = {
      type: 'array' as const,
      items: { type: 'object' as const, properties: { a: { type: 'string' as const } } },
    };
    assert.deepEqual(findUnknownFields([{ a: 'x' }, { b: 1 }], schema), ['[1].b']);
  });

  test('keeps unknown fields of array items under a preserving parent', () => {
    const schema = {
      type: 'object' as const,
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { l: { type: 'array' as const, items: { type: 'object' as const } } },
    };
    assert.deepEqual(findUnknownFields({ l: [{ z: 1 }] }, schema), ['l[0].z']);
  });

  test('fills null array items with the items default', () => {
    assert.deepEqual(applyStructuralDefaults([null, 'a'], { type: 'array', items: { type: 'string', default: 'd' } }), [
      'd',
      'a',
    ]);
  });
});
