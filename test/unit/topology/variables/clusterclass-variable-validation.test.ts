import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import { formatFieldErrors, validateClusterClassVariables } from '#shared/topology/variables/index.ts';
import { deepFreeze } from '#test/support/fixtures/topology/variables.ts';

function variable(
  name: string,
  schema: JSONSchemaProps,
  extra: Partial<ClusterClassVariable> = {},
): ClusterClassVariable {
  return { name, required: false, schema: { openAPIV3Schema: schema }, ...extra };
}

function check(...variables: ClusterClassVariable[]): string[] {
  return formatFieldErrors(validateClusterClassVariables(deepFreeze(variables)));
}

const S = 'spec.variables[v].schema.openAPIV3Schema';

type Case = { name: string; variables: ClusterClassVariable[]; errors: string[] };

const cases: Case[] = [
  {
    name: 'checks a default against an unknown string format too, as ValidateDefaults does (found by the Go oracle)',
    variables: [
      variable('v', { type: 'object', properties: { a: { type: 'string', format: 'bogus' } }, default: { a: 1 } }),
    ],
    errors: [`${S}.default.a: Invalid value: "int64": a in body must be of type bogus: "int64"`],
  },
  {
    name: 'checks a default against the unstripped format, as ValidateDefaults does (found by the Go oracle)',
    variables: [variable('v', { type: 'integer', format: 'double', default: 0.5 })],
    errors: [
      `${S}.default: Invalid value: "float64":  in body must be of type double: "float64"`,
      `${S}.default: Invalid value: "": Checked value must be of type integer (default format) in `,
    ],
  },
  {
    name: 'accepts a complete valid schema',
    variables: [
      variable('v', {
        type: 'object',
        required: ['a'],
        properties: {
          a: { type: 'string', pattern: '^[a-z]+$', default: 'abc', example: 'xyz', enum: ['abc', 'xyz'] },
          b: { type: 'array', items: { type: 'integer', minimum: 1 }, default: [1, 2] },
          c: { type: 'object', additionalProperties: { type: 'string' }, 'x-metadata': { labels: { tier: 'gold' } } },
          d: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
        'x-kubernetes-validations': [{ rule: 'self.a != ""', message: 'a must be set' }],
      }),
    ],
    errors: [],
  },
  {
    name: 'rejects duplicate variable names',
    variables: [variable('v', { type: 'string' }), variable('v', { type: 'string' })],
    errors: [
      'spec.variables[v].name: Invalid value: "v": variable name must be unique. Variable with name "v" is defined more than once',
    ],
  },
  {
    name: 'rejects the reserved name builtin',
    variables: [variable('builtin', { type: 'string' })],
    errors: ['spec.variables[builtin].name: Invalid value: "builtin": "builtin" is a reserved variable name'],
  },
  {
    name: 'rejects a dot in the name',
    variables: [variable('a.b', { type: 'string' })],
    errors: ['spec.variables[a.b].name: Invalid value: "a.b": variable name cannot contain "."'],
  },
  {
    name: 'rejects an invalid label key in deprecatedV1Beta1Metadata',
    variables: [variable('v', { type: 'string' }, { deprecatedV1Beta1Metadata: { labels: { 'bad key': 'x' } } })],
    errors: [
      `spec.variables[v].deprecatedV1Beta1Metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  },
  {
    name: 'rejects an invalid label value in nested x-metadata',
    variables: [
      variable('v', { type: 'object', properties: { a: { type: 'string', 'x-metadata': { labels: { k: '-x-' } } } } }),
    ],
    errors: [
      `${S}.properties[a].x-metadata.labels: Invalid value: "-x-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
  },
  {
    name: 'requires a type on nested properties',
    variables: [variable('v', { type: 'object', properties: { a: {} } })],
    errors: [`${S}.properties[a].type: Required value: must not be empty for specified object fields`],
  },
  {
    name: 'requires a type on the root unless unknown fields are preserved',
    variables: [variable('v', {}), variable('w', { 'x-kubernetes-preserve-unknown-fields': true })],
    errors: [`${S}.type: Required value: must not be empty for specified object fields`],
  },
  {
    name: 'requires items on arrays',
    variables: [variable('v', { type: 'array' })],
    errors: [`${S}.items: Required value: must be specified`],
  },
  {
    name: 'rejects preserve-unknown-fields together with int-or-string',
    variables: [variable('v', { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true })],
    errors: [
      `${S}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ],
  },
  {
    name: 'rejects a type inside allOf',
    variables: [variable('v', { type: 'string', allOf: [{ type: 'string' }] })],
    errors: [`${S}.allOf[0].type: Forbidden: must be empty to be structural`],
  },
  {
    name: 'requires properties used in anyOf to be specified',
    variables: [variable('v', { type: 'object', anyOf: [{ required: ['a'], properties: { a: { minLength: 1 } } }] })],
    errors: [`${S}.properties[a]: Required value: because it is defined in ${S}.anyOf[0].properties[a]`],
  },
  {
    name: 'rejects a pattern that RE2 does not compile',
    variables: [variable('v', { type: 'string', pattern: '(a)\\1' })],
    errors: [
      `${S}.pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
    ],
  },
  {
    name: 'rejects a default of the wrong type',
    variables: [variable('v', { type: 'integer', default: 'x' })],
    errors: [`${S}.default: Invalid value: "string":  in body must be of type integer: "string"`],
  },
  {
    name: 'rejects a nested default that has unknown fields',
    variables: [
      variable('v', { type: 'object', properties: { a: { type: 'object', properties: {}, default: { z: 1 } } } }),
    ],
    errors: [`${S}.properties[a].default: Invalid value: {"z":1}: must not have unknown fields`],
  },
  {
    name: 'rejects an example that does not match the schema',
    variables: [variable('v', { type: 'string', maxLength: 2, example: 'long' })],
    errors: [`${S}.example: Too long: may not be more than 2 bytes`],
  },
  {
    name: 'rejects enum values that do not match the schema',
    variables: [variable('v', { type: 'string', enum: ['a', 1] })],
    errors: [`${S}.enum[1]: Invalid value: "integer":  in body must be of type string: "integer"`],
  },
  {
    name: 'rejects properties together with additionalProperties',
    variables: [
      variable('v', {
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'string' },
      }),
    ],
    errors: [`${S}: Forbidden: additionalProperties and properties are mutually exclusive`],
  },
  {
    name: 'rejects a rule with line breaks but no message',
    variables: [variable('v', { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() > 1\n&& true' }] })],
    errors: [
      `${S}.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`,
    ],
  },
  {
    name: 'rejects a blank rule',
    variables: [variable('v', { type: 'string', 'x-kubernetes-validations': [{ rule: '  ' }] })],
    errors: [`${S}.x-kubernetes-validations[0].rule: Required value: rule is not specified`],
  },
];

describe('validateClusterClassVariables', () => {
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(check(...c.variables), c.errors));
  }

  test('uses the given field path', () => {
    const errors = validateClusterClassVariables(
      deepFreeze([variable('builtin', { type: 'string' })]),
      'spec.variables',
    );
    assert.equal(errors[0]?.field, 'spec.variables[builtin].name');
    assert.equal(errors[0]?.type, 'Invalid');
  });
});
