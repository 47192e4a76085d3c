import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import {
  formatFieldErrors,
  toValidationError,
  validateClusterVariables,
  validateControlPlaneVariables,
  validateMachineVariables,
} from '#shared/topology/variables/index.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

const P = 'spec.topology.variables[v].value';

/** Validates `v` against `schema` as variable "v" and returns the formatted messages. */
function check(schema: JSONSchemaProps, v: unknown): string[] {
  return formatFieldErrors(validateClusterVariables([value('v', v)], [definition('v', deepFreeze(schema))]));
}

type Case = { name: string; schema: JSONSchemaProps; value: unknown; errors: string[] };

const cases: Case[] = [
  { name: 'accepts an integer for type integer', schema: { type: 'integer' }, value: 3, errors: [] },
  {
    name: 'rejects a string for type integer',
    schema: { type: 'integer' },
    value: 'x',
    errors: [`${P}: Invalid value: "\\"x\\"": must be of type integer: "string"`],
  },
  {
    name: 'rejects a fraction for type integer (type and range check)',
    schema: { type: 'integer' },
    value: 1.5,
    errors: [
      `${P}: Invalid value: "1.5": must be of type integer: "number"`,
      `${P}: Invalid value: "1.5": Checked value must be of type integer (default format) in `,
    ],
  },
  { name: 'accepts an integer for type number', schema: { type: 'number' }, value: 2, errors: [] },
  {
    name: 'accepts a fraction that truncates to an integer enum value, as Go converts it (found by the Go oracle)',
    schema: { type: 'number', enum: [0] },
    value: 0.5,
    errors: [],
  },
  {
    name: 'accepts an integer whose character is a string enum value, as Go converts it (found by the Go oracle)',
    schema: { 'x-kubernetes-int-or-string': true, enum: ['a'] },
    value: 97,
    errors: [],
  },
  {
    name: 'rejects an integer whose character is not in a string enum',
    schema: { 'x-kubernetes-int-or-string': true, enum: ['a'] },
    value: 98,
    errors: [`spec.topology.variables[v].value: Unsupported value: "98": supported values: "a"`],
  },
  { name: 'accepts a fraction for type number', schema: { type: 'number' }, value: 2.5, errors: [] },
  {
    name: 'rejects a boolean for type number',
    schema: { type: 'number' },
    value: true,
    errors: [`${P}: Invalid value: "true": must be of type number: "boolean"`],
  },
  { name: 'accepts a boolean', schema: { type: 'boolean' }, value: false, errors: [] },
  {
    name: 'rejects null for a typed schema',
    schema: { type: 'string' },
    value: null,
    errors: [`${P}: Invalid value: "null": must be of type string: "null"`],
  },
  {
    name: 'rejects an integer outside int32 for format int32',
    schema: { type: 'integer', format: 'int32' },
    value: 2147483648,
    errors: [`${P}: Invalid value: "2147483648": Checked value must be of type integer with format int32 in `],
  },
  {
    name: 'accepts an int32 value for format int32',
    schema: { type: 'integer', format: 'int32' },
    value: -5,
    errors: [],
  },
  {
    name: 'accepts an int64 value for format int64',
    schema: { type: 'integer', format: 'int64' },
    value: 2 ** 40,
    errors: [],
  },
  {
    name: 'accepts a double for format double',
    schema: { type: 'number', format: 'double' },
    value: 1e300,
    errors: [],
  },
  {
    name: 'rejects a number beyond float32 for format float',
    schema: { type: 'number', format: 'float' },
    value: 1e300,
    errors: [`${P}: Invalid value: "1e+300": Checked value must be of type number with format float in `],
  },
  {
    name: 'rejects a value below minimum',
    schema: { type: 'integer', minimum: 2 },
    value: 1,
    errors: [`${P}: Invalid value: "1": should be greater than or equal to 2`],
  },
  {
    name: 'rejects a value equal to an exclusive minimum',
    schema: { type: 'integer', minimum: 2, exclusiveMinimum: true },
    value: 2,
    errors: [`${P}: Invalid value: "2": should be greater than 2`],
  },
  {
    name: 'accepts a value equal to an inclusive maximum',
    schema: { type: 'integer', maximum: 5 },
    value: 5,
    errors: [],
  },
  {
    name: 'rejects a value equal to an exclusive maximum',
    schema: { type: 'integer', maximum: 5, exclusiveMaximum: true },
    value: 5,
    errors: [`${P}: Invalid value: "5": should be less than 5`],
  },
  {
    name: 'prints a float maximum the way Go does for fractional values',
    schema: { type: 'number', maximum: 1000000 },
    value: 1000000.5,
    errors: [`${P}: Invalid value: "1000000.5": should be less than or equal to 1e+06`],
  },
  {
    name: 'counts runes, not UTF-16 units, for maxLength',
    schema: { type: 'string', maxLength: 2 },
    value: '😀😀',
    errors: [],
  },
  {
    name: 'rejects a string longer than maxLength',
    schema: { type: 'string', maxLength: 2 },
    value: 'abc',
    errors: [`${P}: Too long: may not be more than 2 bytes`],
  },
  {
    name: 'rejects a string shorter than minLength',
    schema: { type: 'string', minLength: 2 },
    value: 'é',
    errors: [`${P}: Invalid value: "\\"é\\"": should be at least 2 chars long`],
  },
  {
    name: 'rejects a string not matching pattern',
    schema: { type: 'string', pattern: '^[a-z]+$' },
    value: 'A1',
    errors: [`${P}: Invalid value: "\\"A1\\"": should match '^[a-z]+$'`],
  },
  {
    name: 'matches a pattern with RE2-only syntax',
    schema: { type: 'string', pattern: '(?i)^\\Qa.b\\E$' },
    value: 'A.B',
    errors: [],
  },
  { name: 'accepts an enum value', schema: { type: 'string', enum: ['a', 'b'] }, value: 'b', errors: [] },
  {
    name: 'rejects a value outside the enum',
    schema: { type: 'string', enum: ['a', 'b'] },
    value: 'c',
    errors: [`${P}: Unsupported value: "\\"c\\"": supported values: "a", "b"`],
  },
  {
    name: 'compares object enum values structurally',
    schema: { type: 'object', properties: { a: { type: 'integer' } }, enum: [{ a: 1 }] },
    value: { a: 2 },
    errors: [`${P}: Unsupported value: "{\\"a\\":2}": supported values: "{\\"a\\":1}"`],
  },
  {
    name: 'accepts an array within min/max items',
    schema: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
    value: ['a'],
    errors: [],
  },
  {
    name: 'rejects an array with too few items',
    schema: { type: 'array', items: { type: 'string' }, minItems: 2 },
    value: ['a'],
    errors: [`${P}: Invalid value: "[\\"a\\"]": should have at least 2 items`],
  },
  {
    name: 'rejects an array with too many items',
    schema: { type: 'array', items: { type: 'string' }, maxItems: 1 },
    value: ['a', 'b'],
    errors: [`${P}: Too many: "[\\"a\\",\\"b\\"]": must have at most 1 item`],
  },
  {
    name: 'rejects duplicate items when uniqueItems is set',
    schema: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } } }, uniqueItems: true },
    value: [{ a: 1 }, { a: 1 }],
    errors: [`${P}: Invalid value: "[{\\"a\\":1},{\\"a\\":1}]": shouldn't contain duplicates`],
  },
  {
    name: 'reports an invalid array item at its index',
    schema: { type: 'array', items: { type: 'string' } },
    value: ['a', 1],
    errors: [`${P}.[1]: Invalid value: "[\\"a\\",1]": [1] in body must be of type string: "integer"`],
  },
  {
    name: 'rejects an object with too few properties',
    schema: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
    value: {},
    errors: [`${P}: Invalid value: "{}": should have at least 1 properties`],
  },
  {
    name: 'rejects an object with too many properties',
    schema: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
    value: { a: 'x', b: 'y' },
    errors: [`${P}: Too many: "{\\"a\\":\\"x\\",\\"b\\":\\"y\\"}": must have at most 1 item`],
  },
  {
    name: 'rejects a missing required property',
    schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    value: {},
    errors: [`${P}.a: Required value`],
  },
  {
    name: 'validates nested properties three levels deep',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'integer' } } } } },
      },
    },
    value: { a: { b: { c: 'x' } } },
    errors: [
      `${P}.a.b.c: Invalid value: "{\\"a\\":{\\"b\\":{\\"c\\":\\"x\\"}}}": a.b.c in body must be of type integer: "string"`,
    ],
  },
  {
    name: 'validates map values against additionalProperties',
    schema: { type: 'object', additionalProperties: { type: 'integer' } },
    value: { k: 'x' },
    errors: [`${P}.k: Invalid value: "{\\"k\\":\\"x\\"}": .k in body must be of type integer: "string"`],
  },
  {
    name: 'rejects fields the schema does not specify',
    schema: { type: 'object', properties: { a: { type: 'boolean' } } },
    value: { a: true, b: 1, c: { d: 1 } },
    errors: [
      'spec.topology.variables[v]: Invalid value: "{\\"a\\":true,\\"b\\":1,\\"c\\":{\\"d\\":1}}": failed validation: "b,c" field(s) are not specified in the variable schema of variable "v"',
    ],
  },
  {
    name: 'keeps unknown fields under x-kubernetes-preserve-unknown-fields',
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'boolean' } } },
    value: { a: true, b: { c: 1 } },
    errors: [],
  },
  {
    name: 'rejects unknown fields below a specified property even when the parent preserves unknown fields',
    schema: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { a: { type: 'object', properties: { b: { type: 'boolean' } } } },
    },
    value: { a: { b: true, z: 1 } },
    errors: [
      'spec.topology.variables[v]: Invalid value: "{\\"a\\":{\\"b\\":true,\\"z\\":1}}": failed validation: "a.z" field(s) are not specified in the variable schema of variable "v"',
    ],
  },
  {
    name: 'accepts an integer for x-kubernetes-int-or-string',
    schema: { 'x-kubernetes-int-or-string': true },
    value: 3,
    errors: [],
  },
  {
    name: 'accepts a string for x-kubernetes-int-or-string',
    schema: { 'x-kubernetes-int-or-string': true },
    value: '50%',
    errors: [],
  },
  {
    name: 'rejects a boolean for x-kubernetes-int-or-string',
    schema: { 'x-kubernetes-int-or-string': true },
    value: true,
    errors: [`${P}: Invalid value: "true": must be of type integer,string: "boolean"`],
  },
  {
    name: 'reports anyOf when no alternative validates',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    value: {},
    errors: [`${P}: Invalid value: "{}": "" must validate at least one schema (anyOf)`, `${P}.a: Required value`],
  },
  {
    name: 'reports oneOf when two alternatives validate',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    value: { a: 'x', b: 'y' },
    errors: [
      `${P}: Invalid value: "{\\"a\\":\\"x\\",\\"b\\":\\"y\\"}": "" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
    ],
  },
  {
    name: 'reports not when the value validates the negated schema',
    schema: { type: 'string', not: { enum: ['forbidden'] } },
    value: 'forbidden',
    errors: [`${P}: Invalid value: "\\"forbidden\\"": "" must not validate the schema (not)`],
  },
];

describe('validateClusterVariables: schema keywords', () => {
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(check(c.schema, c.value), c.errors));
  }
});

const formatCases: { format: string; valid: string[]; invalid: string[] }[] = [
  { format: 'byte', valid: ['aGVsbG8='], invalid: ['not base64!'] },
  { format: 'date', valid: ['2024-02-29'], invalid: ['2023-02-29', '2024-1-01'] },
  {
    format: 'date-time',
    valid: ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.123+02:00'],
    invalid: ['2024-01-02', '2024-01-02T25:00:00Z'],
  },
  { format: 'uri', valid: ['https://example.com/a?b=c', '/abs/path'], invalid: ['relative/path', 'has space://x'] },
  { format: 'hostname', valid: ['example.com', 'localhost'], invalid: ['-bad-.com', 'a..b'] },
  { format: 'ipv4', valid: ['10.0.0.1'], invalid: ['10.0.0', '256.0.0.1', '::1'] },
  { format: 'ipv6', valid: ['::1', 'fe80::1:2', '::ffff:10.0.0.1'], invalid: ['10.0.0.1', '1::2::3'] },
  { format: 'cidr', valid: ['10.0.0.0/8', 'fd00::/64'], invalid: ['10.0.0.0/33', '10.0.0.0'] },
  { format: 'uuid', valid: ['123e4567-e89b-12d3-a456-426614174000'], invalid: ['123e4567'] },
  { format: 'email', valid: ['a@example.com', 'Jane <jane@example.com>'], invalid: ['not-an-email'] },
  { format: 'duration', valid: ['1h30m', '0', '3 days'], invalid: ['soon'] },
  { format: 'mac', valid: ['00:00:5e:00:53:01'], invalid: ['00:00:5e'] },
];

describe('validateClusterVariables: string formats', () => {
  for (const c of formatCases) {
    for (const v of c.valid)
      test(`accepts ${JSON.stringify(v)} as ${c.format}`, () =>
        assert.deepEqual(check({ type: 'string', format: c.format }, v), []));
    for (const v of c.invalid) {
      test(`rejects ${JSON.stringify(v)} as ${c.format}`, () =>
        assert.deepEqual(check({ type: 'string', format: c.format }, v), [
          `${P}: Invalid value: ${JSON.stringify(JSON.stringify(v))}: must be of type ${c.format}: ${JSON.stringify(v)}`,
        ]));
    }
  }
  test('ignores formats the API server does not know', () =>
    assert.deepEqual(check({ type: 'string', format: 'k8s-short-name' }, '!!'), []));
});

describe('validateClusterVariables: values and definitions', () => {
  const defs = deepFreeze([definition('cpu', { type: 'integer' }, true), definition('region', { type: 'string' })]);

  test('reports a required variable that is not set', () => {
    assert.deepEqual(formatFieldErrors(validateClusterVariables([value('region', 'eu')], defs)), [
      'spec.topology.variables: Required value: required variable "cpu" must be set',
    ]);
  });

  test('does not report missing required variables when validateRequired is false', () => {
    assert.deepEqual(validateClusterVariables([], defs, { validateRequired: false }), []);
  });

  test('rejects a variable the ClusterClass does not define', () => {
    assert.deepEqual(formatFieldErrors(validateClusterVariables([value('cpu', 1), value('zone', 'a')], defs)), [
      'spec.topology.variables[zone]: Invalid value: "\\"a\\"": variable is not defined',
    ]);
  });

  test('rejects a variable set twice', () => {
    assert.deepEqual(formatFieldErrors(validateClusterVariables([value('cpu', 1), value('cpu', 2)], defs)), [
      'spec.topology.variables[cpu]: Invalid value: "2": variable "cpu" is set more than once',
    ]);
  });

  test('rejects a value that sets the deprecated definitionFrom', () => {
    const values = deepFreeze([{ name: 'cpu', definitionFrom: 'inline', value: 1 }]);
    assert.deepEqual(formatFieldErrors(validateClusterVariables(values, defs)), [
      'spec.topology.variables[cpu]: Invalid value: "1": variable "cpu" has DefinitionFrom set. DefinitionFrom is deprecated, must not be set anymore and is going to be removed in the next apiVersion',
    ]);
  });

  test('rejects definitions with conflicts', () => {
    const conflicting = deepFreeze([{ ...definition('cpu', { type: 'integer' }), definitionsConflict: true }]);
    assert.deepEqual(formatFieldErrors(validateClusterVariables([value('cpu', 1)], conflicting)), [
      'spec.topology.variables: Invalid value: "[Name: cpu]": variable definitions in the ClusterClass not valid: variable "cpu" has conflicting definitions',
    ]);
  });

  test('validates MachineDeployment overrides under their own path without requiring variables', () => {
    const path = 'spec.topology.workers.machineDeployments[0].variables.overrides';
    assert.deepEqual(formatFieldErrors(validateMachineVariables([value('region', 3)], defs, path)), [
      `${path}[region].value: Invalid value: "3": must be of type string: "integer"`,
    ]);
  });

  test('validates control plane overrides without requiring variables', () => {
    assert.deepEqual(validateControlPlaneVariables([value('region', 'eu')], defs), []);
  });

  test('turns the errors into one ValidationError naming the object', () => {
    const errors = validateClusterVariables([value('zone', 'a')], defs);
    const err = toValidationError(errors, { kind: 'Cluster', namespace: 'default', name: 'c1' });
    assert.ok(err instanceof ValidationError);
    assert.equal(
      err.message,
      'invalid Cluster default/c1: spec.topology.variables: Required value: required variable "cpu" must be set; spec.topology.variables[zone]: Invalid value: "\\"a\\"": variable is not defined',
    );
    assert.equal(err.fieldPath, 'spec.topology.variables');
    assert.equal(err.reason, 'Invalid');
  });
});
