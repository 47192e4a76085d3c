import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration, roundDuration } from '#shared/lang/go/time.ts';

const second = 1_000_000_000n;
const hour = 3_600n * second;

describe('parseDuration (time.ParseDuration)', () => {
  const cases: readonly (readonly [string, string, bigint | undefined])[] = [
    ['reads a bare zero', '0', 0n],
    ['reads a signed zero', '-0', 0n],
    ['reads whole seconds', '30s', 30n * second],
    ['reads a sequence of units', '1h2m3s', hour + 2n * 60n * second + 3n * second],
    ['reads a fraction of a unit', '1.5h', hour + hour / 2n],
    ['reads a fraction without a whole part', '.5s', second / 2n],
    ['reads a whole part with a trailing point', '5.s', 5n * second],
    ['reads the micro sign and the Greek mu alike', '1µs1μs1us', 3_000n],
    ['truncates a fraction of a nanosecond', '1.9ns', 1n],
    ['reads a negative duration', '-1m30s', -90n * second],
    ['reads the largest duration', '2562047h47m16.854775807s', (1n << 63n) - 1n],
    ['reads the smallest duration', '-2562047h47m16.854775808s', -(1n << 63n)],
    ['keeps reading a fraction with more digits than fit', '1.0000000000000000000001s', second],
    ['refuses a number without a unit', '10', undefined],
    ['refuses an unknown unit', '1d', undefined],
    ['refuses the empty text', '', undefined],
    ['refuses a lone sign', '-', undefined],
    ['refuses a lone point', '.s', undefined],
    ['refuses text that is no duration', 'ten minutes', undefined],
    ['refuses a duration beyond int64', '2562047h47m16.854775808s', undefined],
    ['refuses a whole part beyond int64', '9999999999999999999ns', undefined],
  ];
  for (const [name, text, want] of cases) test(name, () => assert.equal(parseDuration(text), want));
});

describe('formatDuration (Duration.String)', () => {
  const cases: readonly (readonly [bigint, string])[] = [
    [0n, '0s'],
    [1n, '1ns'],
    [1_500n, '1.5µs'],
    [300_000_000n, '300ms'],
    [1_500_000_000n, '1.5s'],
    [600_000_000_000n, '10m0s'],
    [3_600_000_000_000n, '1h0m0s'],
    [5_430_000_000_000n, '1h30m30s'],
    [-90n * second, '-1m30s'],
    [-(1n << 63n), '-2562047h47m16.854775808s'],
  ];
  for (const [ns, want] of cases) test(`prints ${ns}ns as ${want}`, () => assert.equal(formatDuration(ns), want));

  test('prints what parses back to the same duration', () => {
    for (const ns of [1n, 999n, 1_001_000n, 59n * second + 1n, 25n * hour + 1n]) {
      assert.equal(parseDuration(formatDuration(ns)), ns);
    }
  });
});

describe('roundDuration (Duration.Round)', () => {
  const cases: readonly (readonly [string, bigint, bigint, bigint])[] = [
    ['rounds below the half down', 1_499_999_999n, second, second],
    ['rounds the half away from zero', 1_500_000_000n, second, 2n * second],
    ['rounds a negative half away from zero', -1_500_000_000n, second, -2n * second],
    ['rounds a negative value below the half toward zero', -1_499_999_999n, second, -second],
    ['leaves the duration as it is for a multiple of zero', 1_234n, 0n, 1_234n],
    ['clamps at the largest duration', (1n << 63n) - 1n, hour, (1n << 63n) - 1n],
  ];
  for (const [name, d, m, want] of cases) test(name, () => assert.equal(roundDuration(d, m), want));
});
