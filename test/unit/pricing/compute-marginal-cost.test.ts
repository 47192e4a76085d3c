import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  awsPrices,
  computeMarginalCost,
  costAssumptions,
  networkPaths,
  type MeasuredProfile,
  type NetworkPath,
} from '#shared/pricing/index.ts';

const profile: MeasuredProfile = Object.freeze({
  basis: 'test profile',
  idleInvocationsPerClusterHour: 0.5,
  invocationsPerChange: 4,
  eventsPerChange: 3,
  idleEventsPerClusterHour: 0.5,
  passesRunPerChange: 2,
  passesSkippedPerChange: 2,
  invocationMs: 100,
  tickMs: 20,
  functionRequestsPerChange: 20,
  forwarderRssMiB: 40,
  forwarderRssMiBPerObject: 0.005,
  forwarderCpuSecondsPerHour: 10,
  replacedRssMiB: 20,
  replacedCpuSecondsPerHour: 5,
  replacedCpuSecondsPerChange: 0.05,
});
const cost = (clusters: number, network: NetworkPath = 'public', changesPerClusterMonth = 10) =>
  computeMarginalCost(profile, { clusters, changesPerClusterMonth, network }, awsPrices);
const line = (c: ReturnType<typeof cost>, item: string) => c.lines.find((l) => l.item.startsWith(item))?.usd ?? NaN;

describe('computeMarginalCost', () => {
  test('every line says whether it is measured or modelled, and the totals are their sums', () => {
    const c = cost(1_000);
    for (const l of c.lines) assert.ok(['measured', 'modelled'].includes(l.basis), l.item);
    const sum = (side: 'A' | 'B') => c.lines.filter((l) => l.side === side).reduce((s, l) => s + l.usd, 0);
    assert.equal(c.totalB, sum('B'));
    assert.equal(c.totalA, sum('A'));
  });

  test('usage-priced lines grow with the fleet; the fixed ones do not', () => {
    const [small, large] = [cost(100), cost(10_000)];
    assert.ok(line(large, 'Lambda requests') > line(small, 'Lambda requests'));
    assert.ok(line(large, 'DynamoDB') > line(small, 'DynamoDB'));
    assert.equal(line(large, 'EventBridge Scheduler'), line(small, 'EventBridge Scheduler'));
    assert.equal(line(large, 'Cluster API Operator'), line(small, 'Cluster API Operator'));
  });

  test('the network path: nothing fixed for public and the private variant, NAT above interface endpoints', () => {
    const byPath = Object.fromEntries(networkPaths.map((p) => [p, line(cost(100, p), 'network path')]));
    assert.equal(byPath['public'], 0);
    assert.equal(byPath['vpc-private'], 0);
    assert.ok((byPath['vpc-nat'] ?? 0) > (byPath['vpc-endpoints'] ?? 0));
    assert.ok((byPath['vpc-endpoints'] ?? 0) > 0);
  });

  test('the private variant turns tracing off and keeps one secret', () => {
    assert.equal(line(cost(100, 'vpc-private'), 'X-Ray'), 0);
    assert.ok(line(cost(100, 'vpc-private'), 'CloudWatch alarms') < line(cost(100), 'CloudWatch alarms'));
  });

  test('Lambda duration prices ticks at their own measured duration, event invocations at theirs', () => {
    const fleet = { clusters: 1_000, changesPerClusterMonth: 10, network: 'public' } as const;
    const at = (p: Partial<MeasuredProfile>) =>
      line(computeMarginalCost({ ...profile, ...p }, fleet, awsPrices), 'Lambda duration');
    const h = awsPrices.hoursPerMonth;
    const perGbSecond = costAssumptions.functionMemoryGb * awsPrices.lambdaArmPerGbSecond;
    // One more ms per tick costs the month's ticks; one more ms per event invocation costs the month's event invocations.
    const ticks = costAssumptions.tickInvocationsPerHour * h;
    const events = 1_000 * profile.idleInvocationsPerClusterHour * h + 1_000 * 10 * profile.invocationsPerChange;
    assert.ok(Math.abs(at({ tickMs: 1_020 }) - at({}) - ticks * 1 * perGbSecond) < 1e-9);
    assert.ok(Math.abs(at({ invocationMs: 1_100 }) - at({}) - events * 1 * perGbSecond) < 1e-9);
  });

  test('the forwarder is charged at least its Deployment request', () => {
    const tiny = computeMarginalCost(
      { ...profile, forwarderRssMiB: 1, forwarderCpuSecondsPerHour: 0 },
      { clusters: 1, changesPerClusterMonth: 0, network: 'public' },
      awsPrices,
    );
    assert.ok(line(tiny, "forwarder pod's node share") > 0);
  });
});
