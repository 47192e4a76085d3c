// The design changes of issue 32 are modelled by the cost model itself: each saves on B's lines it names and none
// touches A.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  awsPrices,
  computeMarginalCost,
  defaultChangeMix,
  measuredProfile,
  readDeployedStack,
  type CostInputs,
} from '#shared/pricing/index.ts';
import { computeDesignOutcome, designChanges } from '#shared/pricing/design-changes.ts';
import { synthesizeStack } from '#shared/pricing/synthesize-stack.ts';

const inputs: CostInputs = Object.freeze({
  deployed: readDeployedStack(synthesizeStack('public')),
  profile: measuredProfile,
  clusters: 1_000,
  mix: defaultChangeMix,
  userType: 'operator' as const,
  forwarderRequests: { cpu: 0.02, memoryMiB: 64 },
  prices: awsPrices,
});
const lineOf = (i: CostInputs, item: string) =>
  computeMarginalCost(i).lines.find((l) => l.item.startsWith(item))?.usd ?? NaN;
const change = (name: string) => {
  const c = designChanges.find((d) => d.name === name);
  if (!c) throw new Error(`no design change ${name}`);
  return c.apply(inputs);
};

describe('design changes', () => {
  test('the deployed ones (one alarm, no Secrets Manager, X-Ray off) are no longer modelled as changes', () => {
    const names = designChanges.map((d) => d.name);
    for (const gone of [
      'one alarm instead of nine',
      'no Secrets Manager',
      'X-Ray sampled, none on ticks',
      'hourly sweep plus one-time schedules',
    ])
      assert.ok(!names.includes(gone), gone);
  });

  test('batching bursts lowers its line', () => {
    assert.ok(lineOf(change('batched event bursts'), 'Lambda: controller') < lineOf(inputs, 'Lambda: controller'));
  });

  test('every change saves on B, none changes A, and all together cost B less than any alone', () => {
    const outcome = computeDesignOutcome(inputs);
    const base = computeMarginalCost(inputs);
    assert.equal(outcome.savings.length, designChanges.length);
    for (const s of outcome.savings) assert.ok(s.savedB > 0, s.name);
    assert.equal(outcome.totalA, base.totalA);
    for (const s of outcome.savings) assert.ok(outcome.totalB < base.totalB - s.savedB + 1e-9, s.name);
  });
});
