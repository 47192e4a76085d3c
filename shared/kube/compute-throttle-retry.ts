// When to send a request again after the API server throttled it (429): not before its Retry-After, later with each
// refusal, jittered so that throttled clients do not come back in step, and never past the time the caller has.

/** At most this many retries of one throttled request (client-go's rest client allows 10). */
export const maxThrottleRetries = 10;
/** Retry-After when the server sends none (API priority and fairness and max-in-flight both send 1 s). */
const defaultRetryAfterMs = 1_000;
/** The backoff floor after the n-th refusal: 0.5 s doubled each time, at most 8 s. */
const backoffBaseMs = 500;
const backoffCapMs = 8_000;
/** A retry must leave the request itself this long before the deadline; closer than that it could not answer. */
export const throttleRetryReserveMs = 500;

export type ThrottleRetryInput = {
  /** How many times this request was refused so far (1 after the first 429). */
  readonly throttles: number;
  /** The response's `Retry-After` header, as sent (seconds, or an HTTP date). */
  readonly retryAfter: string | undefined;
  /** A number in [0, 1), e.g. `Math.random()`. */
  readonly random: number;
  /** Milliseconds left before the deadline the request runs under. */
  readonly remainingMs: number;
  /** Now, for a `Retry-After` given as a date. */
  readonly nowMs: number;
};

export type ThrottleRetry =
  | { readonly retry: true; readonly delayMs: number; readonly retryAfterMs: number }
  | { readonly retry: false; readonly retryAfterMs: number; readonly why: string };

/**
 * Parses `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) into milliseconds from now: pure.
 *
 * @example
 * parseRetryAfterMs('2', 0); // 2000
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Decides whether and when to retry a throttled request: pure. The delay is the larger of the server's Retry-After
 * and a doubling backoff floor, stretched by up to half again at random (never earlier than Retry-After); no retry when that would leave less than
 * {@link throttleRetryReserveMs} before the deadline, or after {@link maxThrottleRetries}.
 *
 * @example
 * computeThrottleRetry({ throttles: 1, retryAfter: '1', random: 0.5, remainingMs: 10_000, nowMs: 0 });
 * // { retry: true, delayMs: 1250, retryAfterMs: 1000 }
 */
export function computeThrottleRetry(input: ThrottleRetryInput): ThrottleRetry {
  const retryAfterMs = parseRetryAfterMs(input.retryAfter, input.nowMs) ?? defaultRetryAfterMs;
  if (input.throttles > maxThrottleRetries) {
    return { retry: false, retryAfterMs, why: `after ${maxThrottleRetries} retries` };
  }
  const floorMs = Math.min(backoffCapMs, backoffBaseMs * 2 ** Math.max(0, input.throttles - 1));
  const baseMs = Math.max(retryAfterMs, floorMs);
  const delayMs = Math.round(baseMs * (1 + 0.5 * Math.min(Math.max(input.random, 0), 1)));
  if (delayMs + throttleRetryReserveMs > input.remainingMs) {
    const left = Math.max(0, Math.round(input.remainingMs));
    return {
      retry: false,
      retryAfterMs,
      why: `as waiting ${(delayMs / 1000).toFixed(1)} s would pass the deadline (${(left / 1000).toFixed(1)} s left)`,
    };
  }
  return { retry: true, delayMs, retryAfterMs };
}
