import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  computeThrottleRetry,
  type ThrottleRetryInput,
  maxThrottleRetries,
  parseRetryAfterMs,
  throttleRetryReserveMs,
} from '#shared/kube/compute-throttle-retry.ts';

const base: ThrottleRetryInput = { throttles: 1, retryAfter: '1', random: 0, remainingMs: 60_000, nowMs: 0 };

describe('computeThrottleRetry', () => {
  const cases: [string, Partial<ThrottleRetryInput>, number | string][] = [
    ['waits the Retry-After of the first refusal', {}, 1_000],
    ['stretches the wait by up to half again at random', { random: 0.999 }, 1_500],
    ['waits 1 s when the server sends no Retry-After', { retryAfter: undefined }, 1_000],
    ['honours a longer Retry-After', { retryAfter: '5' }, 5_000],
    ['waits longer after each refusal (the third: 2 s)', { throttles: 3 }, 2_000],
    ['caps the growing wait at 8 s', { throttles: 9 }, 8_000],
    ['gives up when the wait would pass the deadline', { remainingMs: 1_200 }, 'would pass the deadline'],
    ['gives up after the last retry', { throttles: maxThrottleRetries + 1 }, `after ${maxThrottleRetries} retries`],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => {
      const decision = computeThrottleRetry({ ...base, ...input });
      if (typeof expected === 'number') assert.deepEqual(decision.retry && decision.delayMs, expected);
      else assert.match(decision.retry ? '' : decision.why, new RegExp(expected));
    });
  }

  test('never waits less than Retry-After, and never past the deadline', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 120_000 }),
        (throttles, seconds, random, remainingMs) => {
          const d = computeThrottleRetry({ throttles, retryAfter: String(seconds), random, remainingMs, nowMs: 0 });
          if (!d.retry) return true;
          return d.delayMs >= seconds * 1_000 && d.delayMs + throttleRetryReserveMs <= remainingMs;
        },
      ),
    );
  });
});

describe('parseRetryAfterMs', () => {
  const cases: [string, string | undefined, number | undefined][] = [
    ['reads delay-seconds', '3', 3_000],
    ['reads an HTTP date', 'Thu, 01 Jan 1970 00:00:05 GMT', 5_000],
    ['ignores garbage', 'soon', undefined],
    ['ignores a missing header', undefined, undefined],
  ];
  for (const [name, header, expected] of cases) test(name, () => assert.equal(parseRetryAfterMs(header, 0), expected));
});
