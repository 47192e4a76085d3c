// The hash a ClusterResourceSetBinding records per resource, byte-for-byte as upstream's `computeHash`, so bindings
// written by an in-cluster Cluster API are adopted without re-applying anything.
import type { ResourceContent } from '#shared/addons/desired/resource-data.ts';
import { normalizeResourceData } from '#shared/addons/desired/resource-data.ts';
import { sha256Hex } from '#shared/hash/sha256.ts';

/**
 * `sha256:<hex>` over the resource's data values concatenated with no separator, in sorted key order, Secret values
 * base64-decoded first (upstream `computeHash(normalizeData(resource))`). Keys do not enter the hash. Throws
 * ResourceParseError when the resource has no data or a Secret value is not base64.
 *
 * @example
 * computeResourceHash({ kind: 'ConfigMap', namespace: 'ns', name: 'cm', data: { b: 'world', a: 'hello ' } });
 * // 'sha256:' + sha256('hello world')
 */
export function computeResourceHash(content: ResourceContent): string {
  return `sha256:${sha256Hex(normalizeResourceData(content).map((value) => value.bytes))}`;
}
