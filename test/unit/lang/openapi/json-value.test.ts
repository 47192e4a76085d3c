import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, jsonEqual } from '#shared/lang/openapi/json-value.ts';

describe('JSON helpers', () => {
  test('compares objects regardless of key order', () =>
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })));
  test('tells arrays and objects apart', () => assert.ok(!jsonEqual([], {})));
  test('renders canonical JSON with sorted keys', () =>
    assert.equal(canonicalJson({ b: 1, a: { d: 1, c: 2 } }), '{"a":{"c":2,"d":1},"b":1}'));
});
