// Go's time.Duration as text: time.ParseDuration, Duration.String and Duration.Round, in whole nanoseconds (a bigint
// holding Go's int64), the one home for every duration that upstream reads or writes as Go does (metav1.Duration
// fields, the operator's ManagerSpec, the OpenAPI `duration` format, a ClusterRollout's timeouts).

const maxDuration = (1n << 63n) - 1n;
const minDuration = -(1n << 63n);

const unitNanos: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5, the micro sign
  μs: 1_000n, // U+03BC, the Greek letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Go's `time.ParseDuration`: a signed sequence of decimal numbers, each with an optional fraction and a unit (`ns`,
 * `us`/`µs`, `ms`, `s`, `m`, `h`), as nanoseconds; undefined where Go returns an error (no unit, an unknown unit, a
 * value beyond int64). Fractions are truncated to the nanosecond as Go truncates them.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000_000_000n
 * parseDuration('1.5µs'); // 1_500n
 * parseDuration('10'); // undefined (missing unit)
 */
export function parseDuration(text: string): bigint | undefined {
  let s = text;
  const neg = s.startsWith('-');
  if (neg || s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return undefined;
    // The whole part: [0-9]*, an error beyond 1<<63 (Go's leadingInt).
    let i = 0;
    let whole = 0n;
    for (; isDigit(s[i]); i++) {
      whole = whole * 10n + BigInt(Number(s[i]));
      if (whole > 1n << 63n) return undefined;
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction: (\.[0-9]*)?, whose digits past what fits stop adding precision (Go's leadingFraction).
    let fraction = 0n;
    let scale = 1;
    let post = false;
    if (s.startsWith('.')) {
      s = s.slice(1);
      let overflow = false;
      for (i = 0; isDigit(s[i]); i++) {
        if (overflow) continue;
        const next = fraction * 10n + BigInt(Number(s[i]));
        if (fraction > maxDuration / 10n || next > 1n << 63n) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      post = i > 0;
      s = s.slice(i);
    }
    if (!pre && !post) return undefined;
    // The unit: everything up to the next digit or point.
    for (i = 0; i < s.length && !(s[i] === '.' || isDigit(s[i])); i++);
    const unit = unitNanos[s.slice(0, i)];
    if (i === 0 || unit === undefined) return undefined;
    s = s.slice(i);
    if (whole > (1n << 63n) / unit) return undefined;
    let v = whole * unit;
    if (fraction > 0n) {
      // NOTE: Go computes the fraction's share in float64 (exact to the nanosecond up to an hour), then truncates.
      v += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (v > 1n << 63n) return undefined;
    }
    total += v;
    if (total > 1n << 63n) return undefined;
  }
  if (neg) return -total;
  return total > maxDuration ? undefined : total;
}

function trimFraction(whole: bigint, frac: bigint, digits: number): string {
  if (frac === 0n) return whole.toString();
  return `${whole}.${frac.toString().padStart(digits, '0').replace(/0+$/u, '')}`;
}

/**
 * Go's `time.Duration.String()` of a duration in nanoseconds: `0s`, `1.5µs`, `300ms`, `1.5s`, `10m0s`, `1h0m0s`.
 *
 * @example
 * formatDuration(600_000_000_000n); // '10m0s'
 * formatDuration(-1_500n); // '-1.5µs'
 */
export function formatDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${trimFraction(u / 1_000n, u % 1_000n, 3)}µs`;
  if (u < 1_000_000_000n) return `${sign}${trimFraction(u / 1_000_000n, u % 1_000_000n, 6)}ms`;
  const h = u / 3_600_000_000_000n;
  const m = (u / 60_000_000_000n) % 60n;
  const s = trimFraction((u / 1_000_000_000n) % 60n, u % 1_000_000_000n, 9);
  if (h > 0n) return `${sign}${h}h${m}m${s}s`;
  if (m > 0n) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/**
 * Go's `Duration.Round(m)`: the nearest multiple of `m`, halves away from zero, clamped to int64 (unchanged for
 * `m <= 0`).
 *
 * @example
 * roundDuration(1_500_000_000n, 1_000_000_000n); // 2_000_000_000n
 * roundDuration(-1_499_999_999n, 1_000_000_000n); // -1_000_000_000n
 */
export function roundDuration(d: bigint, m: bigint): bigint {
  if (m <= 0n) return d;
  const r = d < 0n ? -(d % m) : d % m;
  const lessThanHalf = r + r < m;
  if (d < 0n) {
    if (lessThanHalf) return d + r;
    const down = d - m + r;
    return down < minDuration ? minDuration : down;
  }
  if (lessThanHalf) return d - r;
  const up = d + m - r;
  return up > maxDuration ? maxDuration : up;
}
