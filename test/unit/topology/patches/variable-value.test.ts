import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getVariableValue, VariableValueError } from '#shared/topology/patches/index.ts';
import { deepFreeze } from '#test/support/fixtures/topology/patches.ts';

const variables = deepFreeze(
  new Map<string, unknown>([
    ['region', 'us-east-1'],
    ['list', ['a', 'b']],
    ['cfg', { nested: { list: [{ x: 1 }, { x: 2 }], nil: null }, 'with.dot': 1 }],
    ['builtin', { cluster: { name: 'c1' } }],
  ]),
);

const found: [string, string, unknown][] = [
  ['returns a top-level variable', 'region', 'us-east-1'],
  ['returns a nested field', 'cfg.nested.list', [{ x: 1 }, { x: 2 }]],
  ['returns an array element of a nested field', 'cfg.nested.list[1]', { x: 2 }],
  ['returns a field of an array element', 'cfg.nested.list[0].x', 1],
  ['returns an element of a top-level array', 'list[1]', 'b'],
  ['indexes an array with a bare number segment like fastjson', 'cfg.nested.list.1.x', 2],
  ['returns an explicit null', 'cfg.nested.nil', null],
  ['returns a builtin field', 'builtin.cluster.name', 'c1'],
];

const failures: [string, string, RegExp, boolean][] = [
  ['fails for an unknown variable', 'nope', /^variable "nope" does not exist$/, true],
  [
    'fails for an unknown nested field',
    'cfg.nested.nope',
    /variable "cfg.nested.nope" does not exist: failed to lookup segment "nope"/,
    true,
  ],
  ['fails for a field below a string', 'region.x', /failed to lookup segment "x"/, true],
  ['fails for a key containing a dot (paths split on dots)', 'cfg.with.dot', /failed to lookup segment "with"/, true],
  ['fails for an index out of range', 'list[2]', /array does not have index 2/, false],
  ['fails for an index on a non-array', 'region[0]', /failed to get array "region"/, false],
  ['fails for a non-numeric index', 'list[a]', /failed to parse array index/, false],
  ['fails for a negative index', 'list[-1]', /invalid array index -1/, false],
  ['fails for an unclosed bracket', 'cfg.nested.list[0', /failed to parse path segment/, false],
];

describe('getVariableValue', () => {
  for (const [name, path, expected] of found) {
    test(name, () => assert.deepEqual(getVariableValue(variables, path), expected));
  }
  for (const [name, path, message, notFound] of failures) {
    test(name, () => {
      assert.throws(
        () => getVariableValue(variables, path),
        (err: unknown) => err instanceof VariableValueError && message.test(err.message) && err.notFound === notFound,
      );
    });
  }
});
