import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJSONPatch, ApplyJSONPatchError } from '#shared/topology/patches/index.ts';
import type { JSONPatchOperation } from '#shared/topology/patches/index.ts';
import { deepFreeze } from '#test/support/fixtures/topology/patches.ts';

const doc = deepFreeze({ spec: { a: 1, list: ['x', 'y'], obj: { 'k/1': 'slash', 'k~0': 'tilde' }, nil: null } });

const applies: [string, JSONPatchOperation[], unknown][] = [
  ['adds a new key', [{ op: 'add', path: '/spec/b', value: 2 }], { ...doc.spec, b: 2 }],
  ['overwrites an existing key with add', [{ op: 'add', path: '/spec/a', value: 3 }], { ...doc.spec, a: 3 }],
  [
    'prepends to an array with index 0',
    [{ op: 'add', path: '/spec/list/0', value: 'w' }],
    { ...doc.spec, list: ['w', 'x', 'y'] },
  ],
  [
    'appends to an array with -',
    [{ op: 'add', path: '/spec/list/-', value: 'z' }],
    { ...doc.spec, list: ['x', 'y', 'z'] },
  ],
  ['replaces an existing key', [{ op: 'replace', path: '/spec/a', value: { n: 1 } }], { ...doc.spec, a: { n: 1 } }],
  ['replaces a null value', [{ op: 'replace', path: '/spec/nil', value: 0 }], { ...doc.spec, nil: 0 }],
  ['removes a key', [{ op: 'remove', path: '/spec/a' }], { list: ['x', 'y'], obj: doc.spec.obj, nil: null }],
  ['removes an array element', [{ op: 'remove', path: '/spec/list/0' }], { ...doc.spec, list: ['y'] }],
  [
    'decodes ~1 and ~0 in keys',
    [
      { op: 'replace', path: '/spec/obj/k~11', value: 's' },
      { op: 'remove', path: '/spec/obj/k~00' },
    ],
    { ...doc.spec, obj: { 'k/1': 's' } },
  ],
  [
    'adds a value and patches inside it afterwards',
    [
      { op: 'add', path: '/spec/n', value: {} },
      { op: 'add', path: '/spec/n/m', value: 1 },
    ],
    { ...doc.spec, n: { m: 1 } },
  ],
];

const fails: [string, JSONPatchOperation[], number, RegExp][] = [
  [
    'fails to replace a missing key',
    [{ op: 'replace', path: '/spec/nope', value: 1 }],
    0,
    /replace operation does not apply: doc is missing key/,
  ],
  [
    'fails to remove a missing key',
    [
      { op: 'add', path: '/spec/b', value: 1 },
      { op: 'remove', path: '/spec/nope' },
    ],
    1,
    /remove operation does not apply/,
  ],
  [
    'fails to add below a missing parent',
    [{ op: 'add', path: '/spec/x/y', value: 1 }],
    0,
    /add operation does not apply: doc is missing path/,
  ],
  ['fails to add below a scalar', [{ op: 'add', path: '/spec/a/y', value: 1 }], 0, /doc is missing path/],
  ['fails to add below null', [{ op: 'add', path: '/spec/nil/y', value: 1 }], 0, /doc is missing path/],
  ['fails to add past the end of an array', [{ op: 'add', path: '/spec/list/5', value: 1 }], 0, /invalid array index/],
  [
    'fails to replace an array element with -',
    [{ op: 'replace', path: '/spec/list/-', value: 1 }],
    0,
    /doc is missing key/,
  ],
];

describe('applyJSONPatch', () => {
  for (const [name, ops, expectedSpec] of applies) {
    test(name, () => assert.deepEqual(applyJSONPatch(doc, ops), { spec: expectedSpec }));
  }
  for (const [name, ops, index, message] of fails) {
    test(name, () => {
      assert.throws(
        () => applyJSONPatch(doc, ops),
        (err: unknown) =>
          err instanceof ApplyJSONPatchError && err.operationIndex === index && message.test(err.message),
      );
    });
  }
  test('never shares values with the patch operations', () => {
    const value = { deep: { v: 1 } };
    const result = applyJSONPatch(doc, [{ op: 'add', path: '/spec/v', value }]);
    value.deep.v = 2;
    assert.deepEqual((result.spec as Record<string, unknown>)['v'], { deep: { v: 1 } });
  });
});
