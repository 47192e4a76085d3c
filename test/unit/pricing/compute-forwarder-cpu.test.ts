import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeForwarderCpu, type IdleCpuPoint } from '#shared/pricing/compute-forwarder-cpu.ts';

const points: readonly IdleCpuPoint[] = Object.freeze([
  Object.freeze({ watchedObjects: 10_000, cpuSecondsPerHour: 8 }),
  Object.freeze({ watchedObjects: 800, cpuSecondsPerHour: 4 }),
]);
const measured = Object.freeze({ idleCpu: points, cpuMsPerEntry: 0.5 });

describe('computeForwarderCpu', () => {
  const cases: [string, { watchedObjects: number; entries: number; hours: number }, number, string][] = [
    [
      'idle at a measured count is its measured CPU',
      { watchedObjects: 800, entries: 0, hours: 730 },
      4 / 3600,
      'measured',
    ],
    ['idle between two counts is linear', { watchedObjects: 5_400, entries: 0, hours: 730 }, 6 / 3600, 'interpolated'],
    [
      "entries add their CPU to the month's",
      { watchedObjects: 800, entries: 730 * 3600, hours: 730 },
      4 / 3600 + 0.5 / 1000,
      'measured',
    ],
    [
      'beyond the last count it follows the last segment',
      { watchedObjects: 80_000, entries: 0, hours: 730 },
      (8 + (4 / 9_200) * 70_000) / 3600,
      'extrapolated',
    ],
  ];
  for (const [name, month, vcpu, basis] of cases)
    test(name, () => {
      const cpu = computeForwarderCpu(measured, month);
      assert.ok(Math.abs(cpu.vcpu - vcpu) < 1e-12, `${cpu.vcpu} ≠ ${vcpu}`);
      assert.equal(cpu.basis, basis);
    });

  test('no measured point is an error, not a zero', () =>
    assert.throws(() =>
      computeForwarderCpu({ idleCpu: [], cpuMsPerEntry: 1 }, { watchedObjects: 1, entries: 0, hours: 1 }),
    ));
});
