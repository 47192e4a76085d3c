import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeBackoff } from '#shared/checkpoint/compute-backoff.ts';
import { ValidationError } from '#shared/errors/index.ts';

const base = { baseMs: 1_000, maxMs: 60_000 };

describe('computeBackoff', () => {
  const cases = [
    { name: 'waits nothing before any failure', attempts: 0, jitter: 0.9, want: 0 },
    { name: 'waits half the base after the first failure with no jitter', attempts: 1, jitter: 0, want: 500 },
    { name: 'waits the full base after the first failure with the most jitter', attempts: 1, jitter: 1, want: 1_000 },
    { name: 'doubles with each further failure', attempts: 3, jitter: 0, want: 2_000 },
    { name: 'spreads the upper half with the jitter', attempts: 3, jitter: 0.5, want: 3_000 },
    { name: 'caps the exponential part at maxMs', attempts: 10, jitter: 0, want: 30_000 },
    { name: 'never exceeds maxMs', attempts: 10, jitter: 1, want: 60_000 },
    { name: 'stays capped for absurd attempt counts', attempts: 5_000, jitter: 0.5, want: 45_000 },
    { name: 'clamps a jitter source that returns more than one', attempts: 2, jitter: 7, want: 2_000 },
    { name: 'clamps a jitter source that returns less than zero', attempts: 2, jitter: -3, want: 1_000 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(computeBackoff(c.attempts, { ...base, jitter: () => c.jitter }), c.want);
    });
  }

  const invalid = [
    { name: 'rejects negative attempts', attempts: -1, opts: base },
    { name: 'rejects fractional attempts', attempts: 1.5, opts: base },
    { name: 'rejects a zero base', attempts: 1, opts: { baseMs: 0, maxMs: 10 } },
    { name: 'rejects a max below the base', attempts: 1, opts: { baseMs: 10, maxMs: 5 } },
    { name: 'rejects an infinite max', attempts: 1, opts: { baseMs: 10, maxMs: Infinity } },
  ];
  for (const c of invalid) {
    test(c.name, () => {
      assert.throws(() => computeBackoff(c.attempts, { ...c.opts, jitter: () => 0 }), ValidationError);
    });
  }

  test('always lies between half the capped exponential delay and maxMs, and never shrinks with more attempts at fixed jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempts, baseMs, extra, jitter) => {
          const opts = { baseMs, maxMs: baseMs + extra, jitter: () => jitter };
          const delay = computeBackoff(attempts, opts);
          const exponential = Math.min(opts.maxMs, baseMs * 2 ** (attempts - 1));
          assert.ok(delay >= Math.floor(exponential / 2));
          assert.ok(delay <= opts.maxMs);
          assert.ok(computeBackoff(attempts + 1, opts) >= delay);
        },
      ),
    );
  });
});
