import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterClassStatusVariable } from '#shared/api/core/v1beta2/variables.ts';
import { computeStoredStatusVariables } from '#shared/topology/validation/compute-stored-status-variables.ts';
import { deepFreeze } from '#test/support/builders/topology.ts';

const variable = (openAPIV3Schema: Record<string, unknown>): ClusterClassStatusVariable =>
  deepFreeze({
    name: 'v',
    definitionsConflict: false,
    definitions: [{ from: 'test-patch', required: false, schema: { openAPIV3Schema } }],
  }) as ClusterClassStatusVariable;

const schemaOf = (variables: readonly ClusterClassStatusVariable[]) =>
  variables[0]?.definitions[0]?.schema.openAPIV3Schema;

describe('computeStoredStatusVariables', () => {
  const cases: { name: string; schema: Record<string, unknown>; stored: Record<string, unknown> }[] = [
    {
      name: 'gives a top-level CEL rule without a reason the CRD default',
      schema: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] },
      stored: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', reason: 'FieldValueInvalid' }] },
    },
    {
      name: 'keeps a reason the rule names',
      schema: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', reason: 'FieldValueRequired' }] },
      stored: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', reason: 'FieldValueRequired' }] },
    },
    {
      name: 'leaves nested schemas alone (the CRD preserves them as unknown fields)',
      schema: {
        type: 'object',
        properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] } },
      },
      stored: {
        type: 'object',
        properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] } },
      },
    },
    { name: 'leaves a schema without rules alone', schema: { type: 'string' }, stored: { type: 'string' } },
  ];
  for (const c of cases)
    test(c.name, () => {
      assert.deepEqual(schemaOf(computeStoredStatusVariables([variable(c.schema)])), c.stored);
    });
});
