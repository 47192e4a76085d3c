import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { convertFromSeconds, convertToSeconds } from '#shared/api/conversion/durations.ts';
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';

describe('convertToSeconds (upstream ConvertToSeconds)', () => {
  const cases: [string, unknown, number | undefined][] = [
    ['leaves an unset duration unset', undefined, undefined],
    ['reads whole seconds', '30s', 30],
    ['reads minutes and seconds as Go writes them', '10m0s', 600],
    ['reads hours', '1h0m0s', 3600],
    ['truncates fractions of a second toward zero', '1m30.9s', 90],
    ['truncates sub-second durations to zero', '500ms', 0],
    ['reads a bare zero', '0', 0],
    ['reads negative durations', '-90s', -90],
    ['caps at the int32 maximum', '1000000h', 2_147_483_647],
  ];
  for (const [name, input, want] of cases) test(name, () => assert.equal(convertToSeconds(input), want));

  test('rejects text that is not a Go duration with a ConversionError', () => {
    assert.throws(() => convertToSeconds('ten minutes'), ConversionError);
  });
});

describe('convertFromSeconds (upstream ConvertFromSeconds, written as time.Duration.String)', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['leaves unset seconds unset', undefined, undefined],
    ['writes zero as 0s', 0, '0s'],
    ['writes seconds below a minute', 45, '45s'],
    ['writes minutes with their seconds', 125, '2m5s'],
    ['writes hours with minutes and seconds', 3600, '1h0m0s'],
    ['writes negative durations with a sign', -90, '-1m30s'],
  ];
  for (const [name, input, want] of cases) test(name, () => assert.equal(convertFromSeconds(input), want));

  test('formats and parses back to the same whole seconds', () => {
    for (const seconds of [0, 1, 59, 60, 61, 3599, 3600, 86_400, 2_147_483_647]) {
      assert.equal(convertToSeconds(convertFromSeconds(seconds)), seconds);
    }
  });
});
