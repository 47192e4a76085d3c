// Go `time.ParseDuration` for the durations a ManagerSpec carries (`10m0s`, `1h30m`, `1.5s`), in seconds.

const unitSeconds: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/**
 * Parses a Go duration string into seconds; undefined when it is not one.
 *
 * @example
 * parseGoDuration('1m30s'); // 90
 */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)(.*)$/su.exec(text);
  const body = m?.[2] ?? '';
  if (body === '0') return 0;
  if (body === '') return undefined;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/uy;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const p = part.exec(body);
    if (!p) return undefined;
    total += Number(p[1]) * (unitSeconds[p[2] ?? ''] ?? 0);
    at = part.lastIndex;
  }
  return m?.[1] === '-' ? -total : total;
}

/** Go's `Duration.Round(time.Second).Seconds()` as an integer: halves round away from zero. */
export function roundGoSeconds(seconds: number): number {
  return Math.sign(seconds) * Math.round(Math.abs(seconds));
}
