import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { controllerMemoryMb } from '../../../infra/controller-function.ts';
import {
  computeControllerMemory,
  controllerMemoryBounds,
  measuredProfile,
  type MeasuredProfile,
} from '#shared/pricing/index.ts';

type Passes = NonNullable<MeasuredProfile['passMs']>;
const passes: Passes = Object.freeze({
  change: { billedMs: 600, cpuMs: 60 },
  create: { billedMs: 1_200, cpuMs: 70 },
  skip: { billedMs: 90, cpuMs: 10 },
  coldCpuMs: 700,
  maxRssMiB: 150,
  functions: ['topology', 'addons'],
  source: 'test',
});

describe('computeControllerMemory', () => {
  test("the template's topology and addons memory is the size chosen from the committed measured passes", () => {
    assert.ok(measuredProfile.passMs, 'the profile has the passes measured in the Lambda runtime emulator');
    const { memoryMb } = computeControllerMemory(measuredProfile.passMs);
    assert.equal(controllerMemoryMb.topology, memoryMb);
    assert.equal(controllerMemoryMb.addons, memoryMb);
  });

  test("the profile's passes are the passes bench's committed result", () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../bench/results/passes-rie.json', import.meta.url), 'utf8'),
    ) as { functions: Record<string, { maxRssMiB: number; passes: Record<string, { billedMs: number }> }> };
    assert.deepEqual(measuredProfile.passMs?.functions, Object.keys(committed.functions));
    assert.equal(measuredProfile.passMs?.create.billedMs, committed.functions['topology']?.passes['create']?.billedMs);
    assert.equal(
      measuredProfile.passMs?.maxRssMiB,
      Math.max(...Object.values(committed.functions).map((f) => f.maxRssMiB)),
    );
  });

  test('chooses the smallest size within the bounds; the next smaller one is outside them', () => {
    const { memoryMb, candidates } = computeControllerMemory(passes);
    const i = candidates.findIndex((c) => c.memoryMb === memoryMb);
    assert.ok(candidates[i]?.withinBounds);
    assert.equal(candidates[i - 1]?.withinBounds, false);
    assert.ok((candidates[i]?.slowdown ?? Infinity) <= controllerMemoryBounds.maxSlowdown);
  });

  test('a smaller size never bills more GB-ms for any kind of pass', () => {
    const { candidates } = computeControllerMemory(passes);
    for (const [smaller, larger] of candidates.slice(0, -1).map((c, i) => [c, candidates[i + 1]] as const))
      for (const kind of ['change', 'create', 'skip'] as const)
        assert.ok(smaller.gbMs[kind] <= (larger?.gbMs[kind] ?? Infinity), `${kind} at ${smaller.memoryMb} MB`);
  });

  test('a CPU-heavier pass needs a larger size for the same slowdown bound', () => {
    const heavy = { ...passes, skip: { billedMs: 90, cpuMs: 40 } };
    assert.ok(computeControllerMemory(heavy).memoryMb > computeControllerMemory(passes).memoryMb);
  });

  test('a peak RSS above the share allowed rules a size out', () => {
    const big = { ...passes, maxRssMiB: 300 };
    assert.ok(computeControllerMemory(big).memoryMb >= 300 / controllerMemoryBounds.maxRssShare);
  });
});
