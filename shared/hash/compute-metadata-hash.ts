// A short hash of an object's labels and annotations: what the forwarder sends with a change of an object a topology
// owns and what the topology pass records after its own writes, so that an edit by someone else of a label or an
// annotation (which moves no generation) is told from the pass's own write. One implementation for both ends.
import { createHash } from 'node:crypto';
import { computeStableJson } from '#shared/hash/stable-json.ts';

/** kubectl's copy of the last applied object: written with every `kubectl apply`, read by no pass. */
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * 16 base64url characters of the SHA-256 of the labels and annotations (not kubectl's last-applied copy), equal for
 * equal maps whatever their order.
 *
 * @example
 * computeMetadataHash({ labels: { a: '1' } }) === computeMetadataHash({ labels: { a: '1' }, annotations: {} }); // true
 */
export function computeMetadataHash(metadata: {
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}): string {
  const annotations = Object.fromEntries(Object.entries(metadata.annotations ?? {}).filter(([k]) => k !== lastApplied));
  const material = computeStableJson({ labels: metadata.labels ?? {}, annotations });
  return createHash('sha256').update(material).digest('base64url').slice(0, 16);
}
