import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeCompatibleContracts } from '#shared/providers/desired/compute-compatible-contracts.ts';

// Cluster API internal/contract.GetCompatibleVersions, which clusterctl applies to a management cluster's providers.
describe('computeCompatibleContracts', () => {
  const table: [string, string[]][] = [
    ['v1beta2', ['v1beta2', 'v1beta1']],
    ['v1beta1', ['v1beta1']],
    ['v1alpha4', ['v1alpha4']],
  ];
  for (const [contract, want] of table)
    test(`a ${contract} core provider accepts ${want.join(' and ')}`, () =>
      assert.deepEqual(computeCompatibleContracts(contract), want));
});
