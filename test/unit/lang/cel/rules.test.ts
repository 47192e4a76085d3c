import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import {
  formatFieldErrors,
  validateClusterClassVariables,
  validateClusterVariables,
} from '#shared/topology/variables/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

const P = 'spec.topology.variables[v].value';
const S = 'spec.variables[v].schema.openAPIV3Schema';

/** Validates `v` (and the old value, if any) against `schema` as variable "v"; the formatted messages. */
function check(schema: JSONSchemaProps, v: unknown, old?: unknown): string[] {
  const oldValues = old === undefined ? [] : [value('v', old)];
  return formatFieldErrors(
    validateClusterVariables([value('v', v)], [definition('v', deepFreeze(schema))], { oldValues }),
  );
}

function checkClass(schema: JSONSchemaProps): string[] {
  const variable: ClusterClassVariable = deepFreeze({
    name: 'v',
    required: false,
    schema: { openAPIV3Schema: schema },
  });
  return formatFieldErrors(validateClusterClassVariables([variable]));
}

type Case = { name: string; schema: JSONSchemaProps; value: unknown; old?: unknown; errors: string[] };

const int = (rule: string, extra: object = {}): JSONSchemaProps => ({
  type: 'integer',
  'x-kubernetes-validations': [{ rule, ...extra }],
});

const str = (rule: string): JSONSchemaProps => ({
  type: 'string',
  maxLength: 10,
  'x-kubernetes-validations': [{ rule }],
});

const cases: Case[] = [
  { name: 'accepts a value its rule holds for', schema: int('self > 5'), value: 6, errors: [] },
  {
    name: 'reports a failed rule by its text when it has no message',
    schema: int('self > 5'),
    value: 3,
    errors: [`${P}: Invalid value: "3": failed rule: self > 5`],
  },
  {
    name: 'reports the trimmed message of a failed rule',
    schema: int('self > 5', { message: ' too small ' }),
    value: 3,
    errors: [`${P}: Invalid value: "3": too small`],
  },
  {
    name: 'reports the result of the messageExpression',
    schema: int('self > 5', { message: 'm', messageExpression: '"got " + string(self)' }),
    value: 3,
    errors: [`${P}: Invalid value: "3": got 3`],
  },
  {
    name: 'falls back to the message when the messageExpression gives an empty string',
    schema: int('self > 5', { message: 'm', messageExpression: '""' }),
    value: 3,
    errors: [`${P}: Invalid value: "3": m`],
  },
  {
    name: 'reports a Forbidden error for reason FieldValueForbidden',
    schema: int('self > 5', { reason: 'FieldValueForbidden', message: 'no' }),
    value: 3,
    errors: [`${P}: Forbidden: no`],
  },
  {
    name: 'reports a Required error for reason FieldValueRequired',
    schema: int('self > 5', { reason: 'FieldValueRequired', message: 'no' }),
    value: 3,
    errors: [`${P}: Required value: no`],
  },
  {
    name: 'reports a Duplicate error for reason FieldValueDuplicate',
    schema: int('self > 5', { reason: 'FieldValueDuplicate' }),
    value: 3,
    errors: [`${P}: Duplicate value: "3"`],
  },
  {
    name: 'runs the rules of nested properties with self at that property',
    schema: {
      type: 'object',
      properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.startsWith("x")' }] } },
    },
    value: { a: 'y' },
    errors: [`${P}.a: Invalid value: "{\\"a\\":\\"y\\"}": failed rule: self.startsWith("x")`],
  },
  {
    name: 'names array items and map entries by index and key',
    schema: {
      type: 'object',
      properties: {
        l: { type: 'array', items: int('self < 3') },
        m: { type: 'object', additionalProperties: int('self < 3') },
      },
    },
    value: { l: [1, 5], m: { k: 4 } },
    errors: [
      `${P}.l[1]: Invalid value: "{\\"l\\":[1,5],\\"m\\":{\\"k\\":4}}": failed rule: self < 3`,
      `${P}.m[k]: Invalid value: "{\\"l\\":[1,5],\\"m\\":{\\"k\\":4}}": failed rule: self < 3`,
    ],
  },
  {
    name: 'appends the rule fieldPath to the path of the error',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.a > 1', fieldPath: '.a', message: 'a too small' }],
    },
    value: { a: 1 },
    errors: [`${P}.a: Invalid value: "{\\"a\\":1}": a too small`],
  },
  {
    name: 'uses has() to check optional fields',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'has(self.a) == has(self.b)', message: 'a and b together' }],
    },
    value: { a: 1 },
    errors: [`${P}: Invalid value: "{\\"a\\":1}": a and b together`],
  },
  {
    name: 'reports a missing key as an evaluation error',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.a > 1' }],
    },
    value: {},
    errors: [`${P}: Invalid value: "{}": no such key: a evaluating rule: self.a > 1`],
  },
  {
    name: 'skips a transition rule on create (no old value)',
    schema: int('self >= oldSelf', { message: 'may not decrease' }),
    value: 1,
    errors: [],
  },
  {
    name: 'runs a transition rule against the old value on update',
    schema: int('self >= oldSelf', { message: 'may not decrease' }),
    value: 1,
    old: 2,
    errors: [`${P}: Invalid value: "1": may not decrease`],
  },
  {
    name: 'passes a transition rule the update satisfies',
    schema: int('self >= oldSelf'),
    value: 3,
    old: 2,
    errors: [],
  },
  {
    name: 'does not run the rules of a property that is not set',
    schema: { type: 'object', properties: { a: int('self > 1'), b: { type: 'integer' } } },
    value: { b: 0 },
    errors: [],
  },
  {
    name: 'supports the Kubernetes strings, lists and regex libraries',
    schema: {
      type: 'object',
      properties: { s: { type: 'string' }, l: { type: 'array', items: { type: 'integer' } } },
      'x-kubernetes-validations': [
        { rule: 'self.s.lowerAscii().replace("-", "") == "ab"' },
        { rule: 'self.l.isSorted() && self.l.sum() == 6 && self.l.max() == 3' },
        { rule: 'self.s.find("[a-z]+") == "A"', message: 'find' },
        { rule: 'self.s.matches("^[A-Z]-[a-z]$") && self.s.matches("(?i)^a-B$") && matches(self.s, "[[:alpha:]]")' },
        { rule: '"matches(".size() == 8' },
      ],
    },
    value: { s: 'A-b', l: [1, 2, 3] },
    errors: [`${P}: Invalid value: "{\\"l\\":[1,2,3],\\"s\\":\\"A-b\\"}": find`],
  },
  {
    name: 'treats integers as CEL ints and numbers as doubles',
    schema: {
      type: 'object',
      properties: { i: { type: 'integer' }, d: { type: 'number' } },
      'x-kubernetes-validations': [{ rule: 'type(self.i) == int && type(self.d) == double' }],
    },
    value: { i: 1, d: 2 },
    errors: [],
  },
];

describe('x-kubernetes-validations on Cluster variable values', () => {
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(check(c.schema, c.value, c.old), c.errors);
    });
  }
});

type ClassCase = { name: string; schema: JSONSchemaProps; errors: (string | RegExp)[] };

const classCases: ClassCase[] = [
  { name: 'accepts rules that compile', schema: int('self > 1 && "A".lowerAscii() == "a" || true'), errors: [] },
  {
    name: "rejects a rule that does not type-check with self typed from the schema, as upstream's compiler does",
    schema: {
      type: 'integer',
      'x-kubernetes-validations': [
        { rule: 'self.lowerAscii() == "a"' },
        { rule: 'size(self) > 0' },
        { rule: 'self > "a"' },
      ],
    },
    errors: [
      /\[0\]\.rule: Invalid value: .*: compilation failed: found no matching overload for 'int\.lowerAscii\(\)'/,
      /\[1\]\.rule: Invalid value: .*: compilation failed: /,
      /\[2\]\.rule: Invalid value: .*: compilation failed: /,
    ],
  },
  {
    name: 'types list items and map values too, and a rule that is not a bool once typed',
    schema: {
      type: 'object',
      properties: {
        l: {
          type: 'array',
          maxItems: 2,
          items: { type: 'string', maxLength: 3 },
          'x-kubernetes-validations': [{ rule: 'self.all(x, x > 1)' }],
        },
        m: {
          type: 'object',
          maxProperties: 2,
          additionalProperties: { type: 'boolean' },
          'x-kubernetes-validations': [{ rule: 'self.p' }],
        },
        b: { type: 'boolean', 'x-kubernetes-validations': [{ rule: 'self' }] },
        i: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self' }] },
      },
    },
    errors: [
      /properties\[i\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*: cel expression must evaluate to a bool$/,
      /properties\[l\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: /,
    ],
  },
  {
    name: 'keeps self dynamic where upstream does (int-or-string) or where it is an object',
    schema: {
      type: 'object',
      properties: {
        a: {
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-validations': [{ rule: 'self == 1 || self.startsWith("a")' }],
        },
      },
      'x-kubernetes-validations': [{ rule: 'has(self.a)' }],
    },
    errors: [],
  },
  {
    name: 'rejects a rule with a syntax error, naming the variable and the rule',
    schema: int('self >'),
    errors: [
      /^spec\.variables\[v\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self \\u003e","Message":"",.*\}: compilation failed: /,
    ],
  },
  {
    name: 'rejects a rule that names an undeclared variable',
    schema: int('other > 1'),
    errors: [
      /^spec\.variables\[v\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: /,
    ],
  },
  {
    name: 'rejects a rule that calls an unknown function',
    schema: int('self.frobnicate()'),
    errors: [/x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: /],
  },
  {
    name: 'rejects a rule that does not evaluate to a bool',
    schema: int('"a"'),
    errors: [/x-kubernetes-validations\[0\]\.rule: Invalid value: .*: cel expression must evaluate to a bool$/],
  },
  {
    name: 'rejects a messageExpression that does not compile',
    schema: int('self > 1', { messageExpression: '"a" +' }),
    errors: [
      /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: .*: messageExpression compilation failed: /,
    ],
  },
  {
    name: 'rejects an invalid regexp literal given to matches, as cel-go validates it when compiling',
    schema: str('self.matches("[")'),
    errors: [/x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: invalid matches argument$/],
  },
  {
    name: "rejects an invalid regexp literal given to find, as upstream's program instantiation does",
    schema: str('self.find("a(") == ""'),
    errors: [/\.rule: Invalid value: .*: program instantiation failed: error parsing regexp: /],
  },
  {
    name: 'rejects a messageExpression whose findAll regexp literal is invalid',
    schema: int('self > 1', { messageExpression: '"a".findAll("[").join("")' }),
    errors: [/\.messageExpression: Invalid value: .*: messageExpression instantiation failed: error parsing regexp: /],
  },
  {
    name: 'rejects invalid duration and timestamp literals',
    schema: {
      type: 'integer',
      'x-kubernetes-validations': [
        { rule: 'duration("1x") > duration("0s")' },
        { rule: 'timestamp("2020-13-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")' },
      ],
    },
    errors: [
      /x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: invalid duration argument$/,
      /x-kubernetes-validations\[1\]\.rule: Invalid value: .*: compilation failed: invalid timestamp argument$/,
    ],
  },
  {
    name: 'rejects list and map literals that mix types, nested too',
    schema: {
      type: 'integer',
      'x-kubernetes-validations': [
        { rule: '[1, "a"].size() > 0' },
        { rule: 'size({"a": 1, "b": 2.5}) > 0' },
        { rule: '[[1], ["a"]].size() > 0' },
      ],
    },
    errors: [
      /\[0\]\.rule: Invalid value: .*: compilation failed: expected type 'int' but found 'string'$/,
      /\[1\]\.rule: Invalid value: .*: compilation failed: expected type 'int' but found 'double'$/,
      /\[2\]\.rule: Invalid value: .*: compilation failed: expected type 'list\(int\)' but found 'list\(string\)'$/,
    ],
  },
  {
    name: 'accepts mixed literals inside format, and literals whose other elements depend on self',
    schema: int('[self, 1].size() == 2 && [[], [1]].size() == 2', { messageExpression: '"%s".format([[1, "a"]])' }),
    errors: [],
  },
  {
    name: 'rejects oldSelf under array items',
    schema: { type: 'array', items: int('self >= oldSelf') },
    errors: [
      `${S}.items.x-kubernetes-validations[0].rule: Invalid value: "self >= oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${S}.items`,
    ],
  },
  {
    name: 'accepts oldSelf on a property',
    schema: { type: 'object', properties: { a: int('self >= oldSelf') } },
    errors: [],
  },
  {
    name: 'rejects an example that fails a rule',
    schema: { ...int('self > 5'), example: 3 },
    errors: [`${S}.example: Invalid value: 3: failed rule: self > 5`],
  },
  {
    name: 'rejects an enum value that fails a rule',
    schema: {
      type: 'string',
      enum: ['a', 'b'],
      'x-kubernetes-validations': [{ rule: 'self != "b"', message: 'no b' }],
    },
    errors: [`${S}.enum[1]: Invalid value: "b": no b`],
  },
  {
    name: 'rejects a default that fails a rule, showing the value (omitted for objects and arrays)',
    schema: { type: 'object', properties: { a: { ...int('self > 5'), default: 3 } } },
    errors: [`${S}.properties[a].default: Invalid value: 3: failed rule: self > 5`],
  },
];

describe('x-kubernetes-validations on ClusterClass variable definitions', () => {
  for (const c of classCases) {
    test(c.name, () => {
      const got = checkClass(c.schema);
      assert.equal(got.length, c.errors.length, got.join('\n'));
      c.errors.forEach((want, i) => {
        if (typeof want === 'string') assert.equal(got[i], want);
        else assert.match(got[i] ?? '', want);
      });
    });
  }
});

describe("the Kubernetes strings library's format, as upstream's own e2e ClusterClass uses it", () => {
  // NOTE: the test extension's kubeadmControlPlaneMaxSurge variable (upstream v1.14.2 e2e data).
  const upstreamRule = {
    rule: 'self == "" || self != ""',
    messageExpression: "'just a test expression, got %s'.format([self])",
  };

  test('a messageExpression calling format compiles on the ClusterClass', () => {
    assert.deepEqual(checkClass({ type: 'string', 'x-kubernetes-validations': [upstreamRule] }), []);
  });

  test('its message is formatted when the rule fails: %s, %d, %.2f, %x and %%', () => {
    const rule = { rule: 'self < 0', messageExpression: "'%s: %d is %.2f%% of %x'.format(['v', self, 12.5, 255])" };
    assert.deepEqual(check({ type: 'integer', 'x-kubernetes-validations': [rule] }, 7), [
      `${P}: Invalid value: "7": v: 7 is 12.50% of ff`,
    ]);
  });

  test('%f and %e round the double as Go does: halves to even, on the binary value', () => {
    const rule = {
      rule: 'self < 0',
      messageExpression: "'%.0f %.0f %.2f %.1f %f %.3e'.format([2.5, 3.5, 1.005, -0.0, 1e21, 1234.5])",
    };
    assert.deepEqual(check({ type: 'integer', 'x-kubernetes-validations': [rule] }, 7), [
      `${P}: Invalid value: "7": 2 4 1.00 0.0 1000000000000000000000.000000 1.234e+03`,
    ]);
  });

  test('%s prints the members of lists and maps as CEL literals, as cel-go does', () => {
    const rule = { rule: 'self < 0', messageExpression: '"%s".format([["a", 1.5, {"k": "v"}, duration("1s")]])' };
    assert.deepEqual(check({ type: 'integer', 'x-kubernetes-validations': [rule] }, 7), [
      `${P}: Invalid value: "7": ["a", 1.500000, {"k":"v"}, duration("1s")]`,
    ]);
  });
});

describe('the Kubernetes format library', () => {
  const named = (
    messageExpression: string,
    rule = '!format.dns1123Label().validate(self).hasValue()',
  ): JSONSchemaProps => ({
    type: 'string',
    maxLength: 300,
    'x-kubernetes-validations': [{ rule, messageExpression }],
  });
  const invalid = (value: string) => `${P}: Invalid value: ${JSON.stringify(JSON.stringify(value))}`;
  const cases: { name: string; schema: JSONSchemaProps; value: string; errors: string[] }[] = [
    {
      name: 'accepts a value a named format validates',
      schema: named('"bad"'),
      value: 'my-name',
      errors: [],
    },
    {
      name: "reports apimachinery's message for a label with dots",
      schema: named('format.dns1123Label().validate(self).value().join("; ")'),
      value: 'a.b',
      errors: [`${invalid('a.b')}: must not contain dots`],
    },
    {
      name: 'counts bytes and reports each failure of a qualified name',
      schema: named(
        'format.qualifiedName().validate(self).value().join("; ")',
        '!format.qualifiedName().validate(self).hasValue()',
      ),
      value: `/${'é'.repeat(32)}`,
      errors: [
        `${invalid(`/${'é'.repeat(32)}`)}: prefix part must be non-empty; name part must be no more than 63 bytes; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    },
    {
      name: 'finds formats by name, and none for an unknown name',
      schema: named(
        '"unknown"',
        'format.named("uri").value().validate(self) == optional.none() && !format.named("URI").hasValue()',
      ),
      value: 'a b',
      errors: [`${invalid('a b')}: unknown`],
    },
    {
      name: 'accepts a prefix ending with a dash, as a generated name',
      schema: named('"bad"', '!format.dns1123LabelPrefix().validate(self).hasValue()'),
      value: 'my-name-',
      errors: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(check(c.schema, c.value), c.errors);
    });
  }
});

describe('two-variable comprehensions, sortBy and optMap in rules', () => {
  const ints = (rule: string, message: string): JSONSchemaProps => ({
    type: 'array',
    maxItems: 5,
    items: { type: 'integer' },
    'x-kubernetes-validations': [{ rule, message }],
  });
  const invalid = (value: unknown, message: string) =>
    `${P}: Invalid value: ${JSON.stringify(JSON.stringify(value))}: ${message}`;
  const cases: { name: string; schema: JSONSchemaProps; value: unknown; errors: string[] }[] = [
    {
      name: 'all(i, v, …) binds the index and the element',
      schema: ints('self.all(i, v, i == 0 || self[i - 1] <= v)', 'not sorted'),
      value: [1, 3, 2],
      errors: [invalid([1, 3, 2], 'not sorted')],
    },
    {
      name: 'existsOne(i, v, …) counts the elements that hold',
      schema: ints('self.existsOne(i, v, v == i)', 'one fixed point'),
      value: [0, 1],
      errors: [invalid([0, 1], 'one fixed point')],
    },
    {
      name: 'transformList and transformMap with a filter',
      schema: ints('self.transformList(i, v, i > 0, v).sum() < 5 && self.transformMap(i, v, v * 2)[0] < 5', 'too big'),
      value: [9, 2, 3],
      errors: [invalid([9, 2, 3], 'too big')],
    },
    {
      name: 'transformMapEntry over a map, keyed by its values',
      schema: {
        type: 'object',
        maxProperties: 3,
        additionalProperties: { type: 'string', maxLength: 5 },
        'x-kubernetes-validations': [
          { rule: 'self.transformMapEntry(k, v, {v: k}).exists(k, v, k == "x" && v == "a")', message: 'no x' },
        ],
      },
      value: { a: 'x' },
      errors: [],
    },
    {
      name: 'sortBy orders by the key expression',
      schema: ints('self.sortBy(x, -x) == self', 'not descending'),
      value: [1, 2],
      errors: [invalid([1, 2], 'not descending')],
    },
    {
      name: 'optMap maps a present optional, and none stays none',
      schema: ints('self.first().optMap(x, x > 0).orValue(true)', 'first not positive'),
      value: [0, 1],
      errors: [invalid([0, 1], 'first not positive')],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(check(c.schema, c.value), c.errors);
    });
  }

  test('a comprehension naming the same variable twice does not compile', () => {
    const got = checkClass(int('[1].all(i, i, true)'));
    assert.equal(got.length, 1);
    assert.match(got[0] ?? '', /\.rule: Invalid value: .*: compilation failed: duplicate variable name: i/);
  });
});
