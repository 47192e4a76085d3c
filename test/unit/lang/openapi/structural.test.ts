import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStructuralDefaults, findUnknownFields } from '#shared/lang/openapi/structural.ts';

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
