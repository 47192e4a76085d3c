// The input hash of a pass's facts: sha256 over JSON with sorted keys, so equal inputs hash equally whatever the
// order the API server returned them in.
import { createHash } from 'node:crypto';
import { computeStableJson } from '#shared/hash/stable-json.ts';

export { computeStableJson };

/**
 * `sha256:<hex>` of the inputs of a pass (pure; `inputs` is read, never changed).
 *
 * @example
 * computeInputHash({ kind: 'ClusterResourceSet', resources: [] }); // 'sha256:…'
 */
export function computeInputHash(inputs: unknown): string {
  return `sha256:${createHash('sha256').update(computeStableJson(inputs)).digest('hex')}`;
}
