// Property test: x-kubernetes-validations (CEL) rules of variable schemas against upstream Cluster API's own code
// (internal/topology/variables v1.14, which runs apiextensions' CEL validator), run by the Go oracle: the same field
// errors for ClusterClass definitions (rules compiled; defaults, examples and enum values checked) and for Cluster
// values, on create and on update (transition rules).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta1/variables.ts';
import {
  canonicalJson,
  formatFieldError,
  validateClusterClassVariables,
  validateClusterVariables,
} from '#shared/topology/variables/index.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoFieldError, GoOracle } from '#test/support/oracles/go-oracle.ts';
import { celSchemaValueAndOld, celSchemaWithSamples } from '#test/support/oracles/cel-arbitraries.ts';

/**
 * Messages as a sorted set. NOTE: the text after `compilation failed:` is the CEL compiler's own wording (cel-go's
 * or cel-js's), which is not ours to copy (docs/differences.md, "CEL rules"), and so is the text after `error parsing regexp:`;
 * whether a rule compiles, and where, is checked.
 */
function messages(errors: readonly string[]): string[] {
  return [
    ...new Set(
      errors.map((m) =>
        m
          .replace(/compilation failed: [\s\S]*$/, 'compilation failed: …')
          .replace(/error parsing regexp: [\s\S]*$/, 'error parsing regexp: …'),
      ),
    ),
  ].sort();
}
const goMessages = (errors: readonly GoFieldError[] | undefined) => messages((errors ?? []).map((e) => e.message));
const tsMessages = (errors: readonly FieldError[]) => messages(errors.map(formatFieldError));

const classVariable = (schema: JSONSchemaProps) => ({
  name: 'v',
  required: false,
  schema: { openAPIV3Schema: schema },
});

function definitions(schema: JSONSchemaProps): ClusterClassStatusVariable[] {
  return [{ name: 'v', definitions: [{ from: 'inline', required: false, schema: { openAPIV3Schema: schema } }] }];
}

/** A value as the API server re-encodes it (sorted keys), as upstream prints the raw JSON. */
function clusterValue(value: unknown): ClusterVariable {
  return { name: 'v', value: JSON.parse(canonicalJson(value)) as ClusterVariable['value'] };
}

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

describe('CEL rules oracle (upstream internal/topology/variables)', () => {
  test('ClusterClass variables with rules: the same field errors as upstream', async () => {
    await fc.assert(
      fc.asyncProperty(celSchemaWithSamples, async (schema) => {
        const vars = [classVariable(schema)];
        const want = await go.ask({ op: 'validateClusterClassVariables', classVariables: vars });
        assert.deepEqual(tsMessages(validateClusterClassVariables(vars)), goMessages(want.fieldErrors));
      }),
      oracleRunSettings(300),
    );
  });

  test('Cluster values (created and updated): the same field errors as upstream', async () => {
    await fc.assert(
      fc.asyncProperty(celSchemaValueAndOld, async ([schema, value, old]) => {
        const accepted = await go.ask({ op: 'validateClusterClassVariables', classVariables: [classVariable(schema)] });
        fc.pre((accepted.fieldErrors ?? []).length === 0);
        const values = [clusterValue(value)];
        const oldValues = old === null ? [] : [clusterValue(old)];
        const want = await go.ask({
          op: 'validateClusterVariables',
          values,
          oldValues,
          definitions: definitions(schema),
        });
        const got = validateClusterVariables(values, definitions(schema), { oldValues });
        assert.deepEqual(tsMessages(got), goMessages(want.fieldErrors));
      }),
      oracleRunSettings(300),
    );
  });

  test('rules typed against scalar, list and map schemas: the same compile errors as upstream', async () => {
    const schemas: JSONSchemaProps[] = [
      { type: 'number' },
      { type: 'boolean' },
      { type: 'integer' },
      { type: 'string', maxLength: 5 },
      { type: 'string', maxLength: 40, format: 'uuid' },
      { type: 'array', maxItems: 3, items: { type: 'number' } },
      { type: 'object', maxProperties: 3, additionalProperties: { type: 'boolean' } },
      { type: 'array', maxItems: 2, items: { type: 'array', maxItems: 2, items: { type: 'integer' } } },
    ];
    const rules = [
      ...['self > 2', 'self == 2', 'self == 2.0', 'self + 1 > 0', 'self + 1.0 > 0', 'self < 1u', 'int(self) > 1'],
      ...['self', '!self', 'self == true', 'self || false', 'self.all(x, x > 1)', 'self.all(x, x)', 'self.sum() > 1.0'],
      ...['self.sum() > 1', 'self.exists(k, self[k])', 'self.max() < 3.5', 'self.isSorted()', 'self.size() > 0'],
      ...['string(self) == "a"', 'self == "a"', 'self.matches("^a")', 'type(self) == double', 'type(self) == int'],
      ...['self == oldSelf', 'self != null', 'self in [1.0, 2.0]', 'self in [1, 2]', 'self.all(x, x.all(y, y > 0))'],
      ...['self[0][0] > 0', 'self.map(x, x.size()).sum() > 0', 'dyn(self) == "a"', 'self % 2 == 0', 'self / 2 > 1'],
      ...[
        'self.lowerAscii() == self',
        'self.transformList(i, v, v).size() > 0',
        'self.all(k, v, v)',
        '[self, 1] != []',
      ],
      ...[
        'self.sortBy(x, x)[0] > 0',
        'self.exists(x, x == "a")',
        '{"a": self}.size() == 1',
        'self.first() == self.last()',
      ],
    ];
    for (const schema of schemas) {
      for (const rule of rules) {
        const vars = [classVariable({ ...schema, 'x-kubernetes-validations': [{ rule }] })];
        const want = await go.ask({ op: 'validateClusterClassVariables', classVariables: vars });
        assert.deepEqual(
          { rule, schema, errors: tsMessages(validateClusterClassVariables(vars)) },
          { rule, schema, errors: goMessages(want.fieldErrors) },
        );
      }
    }
  });
});
