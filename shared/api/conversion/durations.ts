// Durations between v1beta1 (`metav1.Duration`, a Go duration string) and v1beta2 (`*Seconds`, an int32), the way
// upstream's `ConvertToSeconds`/`ConvertFromSeconds` do it.
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';
import { formatDuration, parseDuration } from '#shared/lang/go/time.ts';

const MaxInt32 = 2_147_483_647;
const nanosPerSecond = 1_000_000_000n;

/**
 * A v1beta1 duration as v1beta2 whole seconds: truncated toward zero, capped at the int32 maximum
 * (upstream's `ConvertToSeconds`). Undefined stays undefined.
 *
 * @example
 * convertToSeconds('1m30.9s'); // 90
 */
export function convertToSeconds(duration: unknown): number | undefined {
  if (typeof duration !== 'string') return undefined;
  const nanos = parseDuration(duration);
  if (nanos === undefined) throw new ConversionError(`invalid duration "${duration}"`);
  return Math.min(Number(nanos / nanosPerSecond), MaxInt32) + 0;
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
  return formatDuration(BigInt(Math.trunc(seconds)) * nanosPerSecond);
}
