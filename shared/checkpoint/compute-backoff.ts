// How long to wait before retrying a pass that failed: exponential in the attempts, capped, with jitter.
import { ValidationError } from '#shared/errors/index.ts';

export type BackoffOptions = {
  /** Delay after the first failure, before jitter. */
  readonly baseMs: number;
  /** Upper bound of any delay. */
  readonly maxMs: number;
  /** A number in [0, 1); pass `Math.random` at the edge and a constant in tests. */
  readonly jitter: () => number;
};

/**
 * The delay before the next attempt after `attempts` consecutive failures: `baseMs * 2^(attempts - 1)` capped at
 * `maxMs`, of which the upper half is jittered ("equal jitter"), so retries of many objects spread out while each
 * delay stays at least half the exponential one. Zero attempts means no delay.
 *
 * @example
 * computeBackoff(3, { baseMs: 1_000, maxMs: 300_000, jitter: () => 0.5 }); // 3000 (4000 / 2 + 0.5 * 4000 / 2)
 */
export function computeBackoff(attempts: number, options: BackoffOptions): number {
  const { baseMs, maxMs } = options;
  if (!Number.isInteger(attempts) || attempts < 0) {
    throw new ValidationError(`backoff attempts must be a non-negative integer, got ${attempts}`, {
      fieldPath: 'attempts',
    });
  }
  if (!(baseMs > 0) || !(maxMs >= baseMs) || !Number.isFinite(maxMs)) {
    throw new ValidationError(`backoff needs 0 < baseMs <= maxMs, got baseMs=${baseMs} maxMs=${maxMs}`, {
      fieldPath: 'baseMs',
    });
  }
  if (attempts === 0) return 0;
  // NOTE: 2 ** 1100 is Infinity, which Math.min caps, so large attempt counts need no special case.
  const exponential = Math.min(maxMs, baseMs * 2 ** (attempts - 1));
  const jitter = Math.min(Math.max(options.jitter(), 0), 1);
  return Math.floor(exponential / 2 + (jitter * exponential) / 2);
}
