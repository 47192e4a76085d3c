// Times in status: RFC 3339 at second precision, as Kubernetes writes metav1.Time.

/** `2026-11-27T13:00:00Z` for an epoch ms (rounded down to the second). */
export function formatTime(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The epoch ms of a status time; `fallback` when absent or unreadable. */
export function parseTime(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? fallback : ms;
}
