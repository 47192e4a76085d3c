import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGoTestOutput } from '#test/upstream-envtest/run.ts';

const output = [
  '=== RUN   TestA',
  'I1127 22:49:16.625939   23424 warning_handler.go:64] "unknown field"',
  '--- PASS: TestA (1.20s)',
  '=== RUN   TestB',
  '    feature_gate.go:170: Updated featureGates',
  '    cluster_controller_test.go:360: ',
  '        Timed out after 5.001s.',
  '        number of MachinePools 0 does not match number expected 2',
  '--- FAIL: TestB (20.75s)',
  '=== RUN   TestC',
  '=== RUN   TestC/sub',
  '    --- SKIP: TestC/sub (0.00s)',
  '--- SKIP: TestC (0.01s)',
  'FAIL',
].join('\n');

test('reads one result per top-level test, with the first failure location and its message', () => {
  assert.deepEqual(parseGoTestOutput(output), [
    { name: 'TestA', result: 'pass', seconds: 1.2, failure: '' },
    {
      name: 'TestB',
      result: 'fail',
      seconds: 20.75,
      failure:
        'cluster_controller_test.go:360: Timed out after 5.001s. number of MachinePools 0 does not match number expected 2',
    },
    { name: 'TestC', result: 'skip', seconds: 0.01, failure: '' },
  ]);
});
