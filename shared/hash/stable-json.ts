// Canonical JSON: object keys sorted at every level, undefined members dropped, so equal values serialise (and hash)
// equally whatever order an API server or a YAML file gave them in. The one implementation every hash uses.

/**
 * JSON with object keys sorted at every level and undefined members dropped (undefined array items become null).
 *
 * @example
 * computeStableJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function computeStableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : computeStableJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${computeStableJson(v)}`).join(',')}}`;
}
