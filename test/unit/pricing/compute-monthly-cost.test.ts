import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { awsPrices, computeAlwaysOnAlternatives, computeMonthlyCost, type HourlyUsage } from '#shared/pricing/index.ts';

const zero: HourlyUsage = Object.freeze({
  lambdaInvocations: 0,
  lambdaGbSeconds: 0,
  schedulerInvocations: 0,
  eventBridgeEvents: 0,
  dynamoDbReadUnits: 0,
  dynamoDbWriteUnits: 0,
});
const noFixed = Object.freeze({ cloudWatchAlarms: 0, secrets: 0 });
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);

describe('computeMonthlyCost', () => {
  const cases = [
    { name: 'charges nothing for no usage and no fixed items', usage: zero, fixed: noFixed, usd: 0 },
    {
      name: 'charges a million Lambda requests a month at the per-million price',
      usage: { ...zero, lambdaInvocations: 1_000_000 / 730 },
      fixed: noFixed,
      usd: 0.2,
    },
    {
      name: 'charges GB-seconds at the Arm price',
      usage: { ...zero, lambdaGbSeconds: 1 },
      fixed: noFixed,
      usd: 730 * 0.0000133334,
    },
    {
      name: 'charges DynamoDB reads and writes per request unit',
      usage: { ...zero, dynamoDbReadUnits: 1_000_000 / 730, dynamoDbWriteUnits: 2_000_000 / 730 },
      fixed: noFixed,
      usd: 0.125 + 2 * 0.625,
    },
    {
      name: 'charges Scheduler invocations and events per million',
      usage: { ...zero, schedulerInvocations: 3_000_000 / 730, eventBridgeEvents: 1_000_000 / 730 },
      fixed: noFixed,
      usd: 4,
    },
    {
      name: 'adds alarms and secrets as fixed monthly items',
      usage: zero,
      fixed: { cloudWatchAlarms: 6, secrets: 1 },
      usd: 0.6 + 0.4,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const cost = computeMonthlyCost(Object.freeze(c.usage), c.fixed, awsPrices);
      close(cost.totalUsd, c.usd);
      close(
        cost.lines.reduce((s, l) => s + l.usd, 0),
        cost.totalUsd,
      );
    });
  }
});

describe('computeAlwaysOnAlternatives', () => {
  test('prices a dedicated management cluster at about $109.77 and Fargate controllers at about $36.04', () => {
    const [cluster, fargate] = computeAlwaysOnAlternatives(awsPrices);
    assert.equal(cluster?.usdPerMonth.toFixed(2), '109.77');
    assert.equal(fargate?.usdPerMonth.toFixed(2), '36.04');
  });
});
