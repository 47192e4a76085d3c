import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import {
  defaultClusterVariables,
  defaultMachineVariables,
  formatFieldErrors,
} from '#shared/topology/variables/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

const nested = definition('cfg', {
  type: 'object',
  properties: {
    a: {
      type: 'object',
      default: {},
      properties: {
        b: {
          type: 'object',
          default: {},
          properties: { c: { type: 'string', default: 'deep' }, d: { type: 'integer' } },
        },
      },
    },
    list: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer', default: 7 } } } },
    map: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { y: { type: 'boolean', default: true } } },
    },
  },
});

function values(result: ReturnType<typeof defaultClusterVariables>): ClusterVariable[] {
  assert.ok(result.ok, result.ok ? '' : formatFieldErrors(result.errors).join('\n'));
  return result.values;
}

type Case = { name: string; input: ClusterVariable[]; expected: unknown };

const nestedCases: Case[] = [
  {
    name: 'fills defaults three levels deep when the top-level object exists',
    input: [value('cfg', {})],
    expected: [{ name: 'cfg', value: { a: { b: { c: 'deep' } } } }],
  },
  {
    name: 'keeps a value the user set and fills its siblings',
    input: [value('cfg', { a: { b: { c: 'mine', d: 1 } } })],
    expected: [{ name: 'cfg', value: { a: { b: { c: 'mine', d: 1 } } } }],
  },
  {
    name: 'replaces a null property with its default',
    input: [value('cfg', { a: { b: { c: null } } })],
    expected: [{ name: 'cfg', value: { a: { b: { c: 'deep' } } } }],
  },
  {
    name: 'defaults inside array items and map values',
    input: [value('cfg', { list: [{}, { x: 1 }], map: { k: {} } })],
    expected: [
      { name: 'cfg', value: { a: { b: { c: 'deep' } }, list: [{ x: 7 }, { x: 1 }], map: { k: { y: true } } } },
    ],
  },
  {
    name: 'does not create a variable without a top-level default',
    input: [],
    expected: [],
  },
];

describe('defaultClusterVariables: nested defaults', () => {
  for (const c of nestedCases) {
    test(c.name, () => assert.deepEqual(values(defaultClusterVariables(deepFreeze(c.input), [nested])), c.expected));
  }
});

describe('defaultClusterVariables: top-level variables', () => {
  const defs = deepFreeze([
    definition('region', { type: 'string', default: 'us-east-1' }, true),
    definition('zone', { type: 'string' }),
    definition('obj', { type: 'object', default: {}, properties: { n: { type: 'integer', default: 3 } } }),
    definition('opt', { type: 'string', default: 'x' }, false),
  ]);

  test('creates missing variables that have a top-level default, required or not, in definition order', () => {
    assert.deepEqual(values(defaultClusterVariables([], defs)), [
      { name: 'region', value: 'us-east-1' },
      { name: 'obj', value: { n: 3 } },
      { name: 'opt', value: 'x' },
    ]);
  });

  test('keeps the user order and appends created variables', () => {
    assert.deepEqual(values(defaultClusterVariables(deepFreeze([value('zone', 'b'), value('opt', 'y')]), defs)), [
      { name: 'zone', value: 'b' },
      { name: 'opt', value: 'y' },
      { name: 'region', value: 'us-east-1' },
      { name: 'obj', value: { n: 3 } },
    ]);
  });

  test('replaces a null top-level value with the default', () => {
    assert.deepEqual(
      values(defaultClusterVariables(deepFreeze([value('opt', null)]), defs, { createVariables: false })),
      [{ name: 'opt', value: 'x' }],
    );
  });

  test('does not create variables when createVariables is false', () => {
    assert.deepEqual(values(defaultClusterVariables([], defs, { createVariables: false })), []);
  });

  test('defaultMachineVariables defaults overrides without creating any', () => {
    const path = 'spec.topology.workers.machineDeployments[0].variables.overrides';
    assert.deepEqual(values(defaultMachineVariables(deepFreeze([value('obj', {})]), defs, path)), [
      { name: 'obj', value: { n: 3 } },
    ]);
  });

  test('drops definitionFrom and sorts object keys in the output', () => {
    const input = deepFreeze([{ name: 'obj', value: { z: 1, n: 1 } as ClusterVariable['value'] }]);
    const out = values(defaultClusterVariables(input, defs, { createVariables: false }));
    assert.deepEqual(Object.keys(out[0]?.value ?? {}), ['n', 'z']);
  });

  test('rejects a value for an undefined variable', () => {
    const result = defaultClusterVariables(deepFreeze([value('nope', 1)]), defs);
    assert.equal(result.ok, false);
    assert.deepEqual(result.ok ? [] : formatFieldErrors(result.errors), [
      'spec.topology.variables[nope]: Invalid value: "1": variable is not defined',
    ]);
  });

  test('rejects a value set twice under the given path', () => {
    const path = 'spec.topology.controlPlane.variables.overrides';
    const result = defaultClusterVariables(deepFreeze([value('opt', 'a'), value('opt', 'b')]), defs, {
      fieldPath: path,
    });
    assert.deepEqual(result.ok ? [] : formatFieldErrors(result.errors), [
      `${path}[opt]: Invalid value: "\\"b\\"": variable "opt" is set more than once`,
    ]);
  });

  test('returns new objects and leaves the defaults in the definition untouched', () => {
    const out = values(defaultClusterVariables([], defs));
    const obj = out.find((v) => v.name === 'obj');
    assert.notEqual(obj?.value, defs[2]?.definitions[0]?.schema.openAPIV3Schema.default);
    assert.deepEqual(defs[2]?.definitions[0]?.schema.openAPIV3Schema.default, {});
  });
});
