// The static cost estimate of CEL rules against upstream Cluster API's own code (internal/topology/variables v1.14,
// which compiles the rules with apiextensions and checks StaticEstimatedCostLimit per rule and
// StaticEstimatedCRDCostLimit per schema), run by the Go oracle: ClusterClass variable schemas whose rules are cheap
// are accepted by both, and those whose rules are too expensive are refused with the same field errors. Factors under
// 1.5 are printed with six decimals, so those cases check the estimate to the unit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { formatFieldError, validateClusterClassVariables } from '#shared/topology/variables/index.ts';
import { startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle } from '#test/support/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

const object = (properties: Record<string, JSONSchemaProps>, rules: string[] = []): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...(rules.length > 0 && { 'x-kubernetes-validations': rules.map((rule) => ({ rule })) }),
});
const ints = (maxItems?: number): JSONSchemaProps => ({
  type: 'array',
  ...(maxItems !== undefined && { maxItems }),
  items: { type: 'integer' },
});
const strings = (maxItems: number | undefined, maxLength?: number, itemRule?: string): JSONSchemaProps => ({
  type: 'array',
  ...(maxItems !== undefined && { maxItems }),
  items: {
    type: 'string',
    ...(maxLength !== undefined && { maxLength }),
    ...(itemRule !== undefined && { 'x-kubernetes-validations': [{ rule: itemRule }] }),
  },
});

type Case = { name: string; schema: JSONSchemaProps; refused: boolean };

const quadratic = 'self.ids.all(x, self.ids.exists(y, y == x))';
const names = "self.names.all(x, x.matches('^[a-z0-9]+$'))";

const cases: Case[] = [
  { name: 'a quadratic rule over 100 items', schema: object({ ids: ints(100) }, [quadratic]), refused: false },
  { name: 'a quadratic rule over an unbounded list', schema: object({ ids: ints() }, [quadratic]), refused: true },
  {
    name: 'a linear rule over an unbounded list',
    schema: object({ ids: ints() }, ['self.ids.all(x, x > 0)']),
    refused: false,
  },
  { name: 'a regexp over 1,000 names', schema: object({ names: strings(1000, 1000) }, [names]), refused: false },
  {
    name: 'a regexp over 9,000 names (factor under 1.5)',
    schema: object({ names: strings(9000, 1000) }, [names]),
    refused: true,
  },
  { name: 'a regexp over 10,000 names', schema: object({ names: strings(10_000, 1000) }, [names]), refused: true },
  {
    name: 'an item rule under an unbounded list (its cardinality from the request size)',
    schema: object({ l: strings(undefined, 64, "self.matches('^a+$')") }),
    refused: true,
  },
  {
    name: 'an item rule under a list of 100',
    schema: object({ l: strings(100, 64, "self.matches('^a+$')") }),
    refused: false,
  },
  {
    name: 'string functions over unbounded strings',
    schema: object({ a: { type: 'string' }, l: strings(undefined, 10) }, ['self.l.all(x, x.contains(self.a))']),
    refused: true,
  },
  {
    name: 'map values without maxProperties',
    schema: {
      type: 'object',
      additionalProperties: { type: 'string' },
      'x-kubernetes-validations': [{ rule: 'self.all(k, self.exists(j, self[j].startsWith(self[k])))' }],
    },
    refused: true,
  },
  {
    name: 'map values with maxProperties and maxLength',
    schema: {
      type: 'object',
      maxProperties: 20,
      additionalProperties: { type: 'string', maxLength: 63 },
      'x-kubernetes-validations': [{ rule: 'self.all(k, self.exists(j, self[j].startsWith(self[k])))' }],
    },
    refused: false,
  },
  {
    name: 'an expensive messageExpression',
    schema: {
      type: 'object',
      properties: { l: strings(undefined, 1000) },
      'x-kubernetes-validations': [
        { rule: 'self.l.size() < 10', messageExpression: "self.l.map(x, x + 'a').join(', ')" },
      ],
    },
    refused: true,
  },
  {
    name: 'twelve rules each under the per-rule limit, together over the schema limit',
    schema: object(
      Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`p${i}`, strings(350_000 + i * 1000, 64, "self.matches('^a+$')")]),
      ),
    ),
    refused: true,
  },
  {
    name: 'list functions and two-variable comprehensions over bounded lists',
    schema: object({ ids: ints(500), names: strings(50, 253) }, [
      'self.ids.all(i, v, v >= i) && self.ids.distinct().size() == self.ids.size()',
      "self.names.join('/').size() < 16384 && sets.contains(self.names, ['a'])",
      'self.names.transformList(i, v, v.lowerAscii()).exists(x, x.startsWith("kube-"))',
    ]),
    refused: false,
  },
  {
    name: 'a sorted list joined (its elements no longer bounded by the schema)',
    schema: object({ names: strings(50, 253) }, ["self.names.sort().join('/').size() < 4096"]),
    refused: true,
  },
];

describe('CEL static cost oracle (upstream internal/topology/variables)', () => {
  for (const c of cases) {
    test(`${c.name}: ${c.refused ? 'refused' : 'accepted'} with the same field errors as upstream`, async () => {
      const classVariables = [{ name: 'v', required: false, schema: { openAPIV3Schema: c.schema } }];
      const want = await go.ask({ op: 'validateClusterClassVariables', classVariables });
      const got = validateClusterClassVariables(classVariables as never).map(formatFieldError);
      assert.deepEqual(
        got,
        (want.fieldErrors ?? []).map((e) => e.message),
      );
      assert.equal(got.length > 0, c.refused, got.join('\n'));
    });
  }
});
