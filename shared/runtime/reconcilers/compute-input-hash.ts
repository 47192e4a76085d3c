// The input hash of a pass's facts: sha256 over JSON with sorted keys, so equal inputs hash equally whatever the
// order the API server returned them in.
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level and undefined members dropped.
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

/**
 * `sha256:<hex>` of the inputs of a pass (pure; `inputs` is read, never changed).
 *
 * @example
 * computeInputHash({ kind: 'ClusterResourceSet', resources: [] }); // 'sha256:…'
 */
export function computeInputHash(inputs: unknown): string {
  return `sha256:${createHash('sha256').update(computeStableJson(inputs)).digest('hex')}`;
}
