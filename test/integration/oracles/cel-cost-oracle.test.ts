// The CEL cost limits against upstream Cluster API's own code (internal/topology/variables v1.14 over apiextensions'
// validator, run by the Go oracle): rules that upstream stops at its per-call limit or cost budget are stopped here
// with the same field errors, and rules upstream runs to the end run to the end here. The cost is counted by a model
// of cel-go's (shared/lang/cel/cost.ts), so the cases keep clear of the limits' edges. NOTE: a
// replace that squares a string is left out on purpose: cel-go prices it by its input and builds it (400 MB for a
// 20,000-character string), this model prices what it builds and stops it (docs/differences.md, "CEL rules of
// variable schemas").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { formatFieldError, validateClusterVariables } from '#shared/topology/variables/index.ts';
import { startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle } from '#test/support/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

const definitions = (schema: JSONSchemaProps) => [
  { name: 'v', definitions: [{ from: 'inline', required: false, schema: { openAPIV3Schema: schema } }] },
];

type Case = { name: string; schema: JSONSchemaProps; value: unknown };

const ints = (n: number) => Array.from({ length: n }, (_, i) => i);
const listRule = (rule: string): JSONSchemaProps => ({
  type: 'array',
  items: { type: 'integer' },
  'x-kubernetes-validations': [{ rule }],
});

const cases: Case[] = [
  {
    name: 'a quadratic rule over 3,000 elements',
    schema: listRule('self.all(x, self.exists(y, y == x))'),
    value: ints(3000),
  },
  { name: 'a linear rule over 20,000 elements', schema: listRule('self.all(x, x >= 0)'), value: ints(20_000) },
  {
    name: 'a quadratic rule over 100 elements',
    schema: listRule('self.all(x, self.exists(y, y == x))'),
    value: ints(100),
  },
  { name: 'lists.range of a billion', schema: listRule('lists.range(1000000000).size() > 0'), value: [1] },
  { name: 'lists.range of a million', schema: listRule('lists.range(1000000).size() > 0'), value: [1] },
  { name: 'lists.range of a thousand', schema: listRule('lists.range(1000).size() > 0'), value: [1] },
  { name: 'sets.contains of a list with itself', schema: listRule('sets.contains(self, self)'), value: ints(5_000) },
  {
    name: 'a cheap transformList over 10,000 elements',
    schema: listRule('self.transformList(i, v, v + 1).size() == self.size()'),
    value: ints(10_000),
  },
  {
    name: 'item rules that use up the budget',
    schema: {
      type: 'array',
      items: { type: 'string', 'x-kubernetes-validations': [{ rule: `!self.contains('${'x'.repeat(9_990)}')` }] },
    },
    value: Array.from({ length: 200 }, () => 'y'.repeat(999)),
  },
  {
    name: 'item rules well within the budget',
    schema: {
      type: 'array',
      items: { type: 'string', 'x-kubernetes-validations': [{ rule: `!self.contains('${'x'.repeat(9_990)}')` }] },
    },
    value: Array.from({ length: 50 }, () => 'y'.repeat(999)),
  },
];

describe('CEL cost oracle (upstream internal/topology/variables)', () => {
  for (const c of cases) {
    test(`${c.name}: the same field errors as upstream`, async () => {
      const values = [{ name: 'v', value: c.value }];
      const want = await go.ask({ op: 'validateClusterVariables', values, definitions: definitions(c.schema) });
      const got = validateClusterVariables(values as never, definitions(c.schema) as never);
      assert.deepEqual(
        got.map(formatFieldError).map((m) => m.slice(0, 400)),
        (want.fieldErrors ?? []).map((e) => e.message.slice(0, 400)),
      );
    });
  }
});
