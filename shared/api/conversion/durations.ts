// Durations between v1beta1 (`metav1.Duration`, a Go duration string) and v1beta2 (`*Seconds`, an int32), the way
// upstream's `ConvertToSeconds`/`ConvertFromSeconds` do it.
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';

const MaxInt32 = 2_147_483_647;

const nanosPerUnit: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/**
 * Parses a Go duration string (`1h2m3.5s`, `-90s`, `0`) into seconds, as `time.ParseDuration` does.
 *
 * @example
 * parseGoDuration('10m0s'); // 600
 */
export function parseGoDuration(text: string): number {
  const match = /^([-+]?)(.*)$/.exec(text);
  const sign = match?.[1] === '-' ? -1 : 1;
  let rest = match?.[2] ?? '';
  if (rest === '0') return 0;
  if (rest === '') throw new ConversionError(`invalid duration "${text}"`);
  let nanos = 0;
  while (rest !== '') {
    const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    const unit = part?.[2];
    if (part === null || unit === undefined) throw new ConversionError(`invalid duration "${text}"`);
    nanos += Number(part[1]) * (nanosPerUnit[unit] ?? 0);
    rest = rest.slice(part[0].length);
  }
  return (sign * nanos) / 1e9;
}

/**
 * A v1beta1 duration as v1beta2 whole seconds: truncated toward zero, capped at the int32 maximum
 * (upstream's `ConvertToSeconds`). Undefined stays undefined.
 *
 * @example
 * convertToSeconds('1m30.9s'); // 90
 */
export function convertToSeconds(duration: unknown): number | undefined {
  if (typeof duration !== 'string') return undefined;
  const seconds = Math.trunc(parseGoDuration(duration));
  return Math.min(seconds, MaxInt32) + 0;
}

/**
 * v1beta2 whole seconds as a v1beta1 duration string, written the way Go's `time.Duration.String` writes it
 * (upstream's `ConvertFromSeconds`). Undefined stays undefined.
 *
 * @example
 * convertFromSeconds(3600); // '1h0m0s'
 */
export function convertFromSeconds(seconds: unknown): string | undefined {
  if (typeof seconds !== 'number') return undefined;
  return formatGoDuration(seconds);
}

/** Whole seconds written as Go's `time.Duration.String` writes them (`0s`, `45s`, `2m5s`, `1h0m0s`). */
export function formatGoDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const sign = seconds < 0 ? '-' : '';
  const total = Math.abs(Math.trunc(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (hours > 0) return `${sign}${hours}h${minutes}m${secs}s`;
  if (minutes > 0) return `${sign}${minutes}m${secs}s`;
  return `${sign}${secs}s`;
}
