import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRawSnapshot, freezeRaw } from '#test/support/builders/diff-snapshot.ts';
import { knownDifferences } from '#test/diff/known-differences.ts';
import { computeNormalizedSnapshot } from '#test/diff/normalize.ts';
import { computeDiffReport, computeRunFailures } from '#test/diff/report.ts';
import type { SideResult, StepResult } from '#test/diff/run-side.ts';
import type { Scenario } from '#test/diff/scenarios.ts';

const scenario = { name: 'd01-base-variables', steps: [{ name: 'create' }] } as unknown as Scenario;

function sideWith(side: 'upstream' | 'capi-serverless', settled: boolean): SideResult {
  const step: StepResult = {
    step: 'create',
    settled,
    waitedMs: 1,
    snapshot: computeNormalizedSnapshot(freezeRaw(buildRawSnapshot(side, { namespace: scenario.name }))),
    settledWrites: [],
    quietWindowMs: 1,
  };
  return {
    side,
    startMs: 0,
    durationMs: 0,
    concurrency: 1,
    scenarios: { [scenario.name]: { durationMs: 1, steps: [step] } },
  };
}

describe('computeRunFailures', () => {
  test('a settled run where every rule matched something passes', () => {
    const report = computeDiffReport([scenario], sideWith('upstream', true), sideWith('capi-serverless', true), [
      knownDifferences[0]!,
    ]);
    assert.deepEqual(report.ruleMatches, { R1: 1 });
    assert.deepEqual(computeRunFailures(report, { fullRun: true }), []);
  });

  test('a step that hit the time limit on one side fails the run', () => {
    const report = computeDiffReport([scenario], sideWith('upstream', false), sideWith('capi-serverless', true), [
      knownDifferences[0]!,
    ]);
    assert.deepEqual(computeRunFailures(report, { fullRun: false }), [
      'step did not settle: d01-base-variables / create (upstream)',
    ]);
  });

  test('a rule that matched nothing fails a whole-corpus run, not a subset', () => {
    const report = computeDiffReport(
      [scenario],
      sideWith('upstream', true),
      sideWith('capi-serverless', true),
      knownDifferences,
    );
    assert.equal(report.ruleMatches['R2a'], 0);
    assert.equal(report.ruleMatches['T1'], 0, 'a trajectory rule is counted like the others');
    const failures = computeRunFailures(report, { fullRun: true });
    assert.ok(failures.includes('known difference R2a matched nothing in the whole corpus'));
    // T1's states last about as long as a poll: a run where no poll saw them is no sign that T1 is stale.
    assert.ok(report.rulesThatMayMatchNothing?.['T1']);
    assert.ok(!failures.some((f) => f.includes('T1')));
    assert.deepEqual(computeRunFailures(report, { fullRun: false }), []);
  });

  test('only a rule that says why may match nothing; every field rule must match', () => {
    const optional = knownDifferences.filter((k) => 'mayMatchNothing' in k && k.mayMatchNothing !== undefined);
    assert.deepEqual(
      optional.map((k) => k.id),
      ['T1'],
    );
  });
});
