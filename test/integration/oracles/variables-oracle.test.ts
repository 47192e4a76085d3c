// Property test: our ClusterClass variable validation and defaulting against upstream Cluster API's own code
// (sigs.k8s.io/cluster-api/internal/topology/variables, v1.14), run by the Go oracle. Same field errors, message for
// message, and the same defaulted values.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta1/variables.ts';
import {
  canonicalJson,
  defaultClusterVariables,
  formatFieldError,
  validateClusterClassVariables,
  validateClusterVariables,
} from '#shared/topology/variables/index.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoFieldError, GoOracle } from '#test/support/oracles/go-oracle.ts';
import { classVariables, mostlyValidClassVariables, valueFor } from '#test/support/oracles/variables-arbitraries.ts';
import type { ClassVariable } from '#test/support/oracles/variables-arbitraries.ts';

/**
 * Messages as a sorted set. NOTE: the text after `error parsing regexp:` is the regexp engine's own wording, which
 * is not ours to copy (docs/differences.md); whether a pattern compiles is checked, the wording is not.
 */
function messages(errors: readonly string[]): string[] {
  return [...new Set(errors.map((m) => m.replace(/error parsing regexp: .*$/, 'error parsing regexp: …')))].sort();
}
const goMessages = (errors: readonly GoFieldError[] | undefined) => messages((errors ?? []).map((e) => e.message));
const tsMessages = (errors: readonly FieldError[]) => messages(errors.map(formatFieldError));

/** Cluster variables (one value per distinct variable, some left unset) for a set of class variables. */
const classAndValues = mostlyValidClassVariables.chain((vars) =>
  fc.tuple(fc.constant(vars), fc.tuple(...vars.map((v) => fc.option(valueFor(v.schema.openAPIV3Schema), { freq: 4 })))),
);

function statusVariables(vars: readonly ClassVariable[]): ClusterClassStatusVariable[] {
  const unique = vars.filter((v, i) => vars.findIndex((w) => w.name === v.name) === i);
  return unique.map((v) => ({
    name: v.name,
    definitions: [{ from: 'inline', required: v.required, schema: v.schema }],
  }));
}

/**
 * Values as the controllers read them from the API server, which re-encodes them with sorted keys (upstream prints
 * the raw JSON in messages, so key order shows).
 */
function clusterValues(vars: readonly ClassVariable[], values: readonly unknown[]): ClusterVariable[] {
  const out: ClusterVariable[] = [];
  vars.forEach((v, i) => {
    if (values[i] !== null && !out.some((o) => o.name === v.name))
      out.push({ name: v.name, value: JSON.parse(canonicalJson(values[i])) as ClusterVariable['value'] });
  });
  return out;
}

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

/** Only ClusterClasses upstream accepts get Cluster values validated and defaulted against them. */
async function validClass(vars: ClassVariable[]): Promise<boolean> {
  const answer = await go.ask({ op: 'validateClusterClassVariables', classVariables: vars });
  return (answer.fieldErrors ?? []).length === 0;
}

describe('ClusterClass variables oracle (upstream internal/topology/variables)', () => {
  test('ClusterClass variable definitions: the same field errors as upstream', async () => {
    await fc.assert(
      fc.asyncProperty(classVariables, async (vars) => {
        const want = await go.ask({ op: 'validateClusterClassVariables', classVariables: vars });
        assert.deepEqual(tsMessages(validateClusterClassVariables(vars)), goMessages(want.fieldErrors));
      }),
      oracleRunSettings(300),
    );
  });

  test('x-metadata labels and annotations: the same messages as apimachinery', async () => {
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'B', '0', '-', '.', '_', '/', 'é', ' '), maxLength: 8 }),
      fc
        .tuple(fc.constantFrom('a', 'é', 'a.', '-', 'example.com/a'), fc.integer({ min: 20, max: 140 }))
        .map(([c, n]) => c.repeat(n)),
    );
    const metadata = fc.dictionary(text, text, { maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(metadata, metadata, async (labels, annotations) => {
        const vars = [
          {
            name: 'v',
            required: false,
            schema: { openAPIV3Schema: { type: 'string' as const, 'x-metadata': { labels, annotations } } },
          },
        ];
        const want = await go.ask({ op: 'validateClusterClassVariables', classVariables: vars });
        assert.deepEqual(tsMessages(validateClusterClassVariables(vars)), goMessages(want.fieldErrors));
      }),
      oracleRunSettings(150),
    );
  });

  test('Cluster variable values: the same field errors as upstream', async () => {
    await fc.assert(
      fc.asyncProperty(classAndValues, fc.boolean(), async ([vars, vals], overrides) => {
        fc.pre(await validClass(vars));
        const definitions = statusVariables(vars);
        const values = clusterValues(vars, vals);
        const want = await go.ask({ op: 'validateClusterVariables', values, definitions, overrides });
        const got = validateClusterVariables(values, definitions, { validateRequired: !overrides });
        assert.deepEqual(tsMessages(got), goMessages(want.fieldErrors));
      }),
      oracleRunSettings(300),
    );
  });

  test('defaulting: the same values (or the same errors) as upstream', async () => {
    await fc.assert(
      fc.asyncProperty(classAndValues, fc.boolean(), async ([vars, vals], overrides) => {
        fc.pre(await validClass(vars));
        const definitions = statusVariables(vars);
        const values = clusterValues(vars, vals);
        const want = await go.ask({ op: 'defaultClusterVariables', values, definitions, overrides });
        const got = defaultClusterVariables(values, definitions, { createVariables: !overrides });
        const wantErrors = goMessages(want.fieldErrors);
        assert.deepEqual(got.ok ? [] : tsMessages(got.errors), wantErrors);
        if (got.ok && wantErrors.length === 0)
          assert.equal(canonicalJson(got.values), canonicalJson(want.defaulted ?? []));
      }),
      oracleRunSettings(300),
    );
  });

  // Issue 17: nested defaults, for top-level values and for MachineDeployment overrides (`overrides`: nothing is
  // created, only given values are defaulted), on fixed inputs whose result depends on the order defaults apply in.
  const nestedSchema = {
    type: 'object',
    properties: {
      a: {
        type: 'object',
        default: { b: { d: 1 } },
        properties: {
          b: {
            type: 'object',
            default: { c: 'from-b' },
            properties: { c: { type: 'string', default: 'deep' }, d: { type: 'integer' } },
          },
          e: { type: 'string', default: 'sibling' },
        },
      },
      list: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer', default: 7 } } } },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { y: { type: 'boolean', default: true } } },
      },
    },
  };
  const nestedDefinitions: ClusterClassStatusVariable[] = [
    {
      name: 'cfg',
      definitions: [
        {
          from: 'inline',
          required: false,
          schema: { openAPIV3Schema: { ...nestedSchema, default: { a: { b: {} } } } },
        },
      ],
    },
  ] as ClusterClassStatusVariable[];
  const nestedCases: { name: string; values: ClusterVariable[] }[] = [
    { name: 'no value: the variable default, then the defaults inside it', values: [] },
    { name: 'an empty object: parent defaults before child defaults', values: [{ name: 'cfg', value: {} }] },
    { name: 'a parent set without its child', values: [{ name: 'cfg', value: { a: {} } }] },
    { name: 'a child set to null', values: [{ name: 'cfg', value: { a: { b: null } } }] },
    {
      name: 'array items and map values',
      values: [{ name: 'cfg', value: { list: [{}, { x: 1 }], map: { k: {}, l: { y: false } } } }],
    },
  ];
  for (const c of nestedCases)
    for (const overrides of [false, true])
      test(`nested defaults (${overrides ? 'overrides' : 'top-level values'}): ${c.name}, as upstream`, async () => {
        const want = await go.ask({
          op: 'defaultClusterVariables',
          values: c.values,
          definitions: nestedDefinitions,
          overrides,
        });
        const got = defaultClusterVariables(c.values, nestedDefinitions, { createVariables: !overrides });
        assert.deepEqual(got.ok ? [] : tsMessages(got.errors), goMessages(want.fieldErrors));
        assert.ok(got.ok);
        assert.equal(canonicalJson(got.values), canonicalJson(want.defaulted ?? []));
      });
});
