// A short hash of an object's labels and annotations and of whether the topology's field manager still has its apply
// entry: what the forwarder sends with a change of an object a topology owns and what the topology pass records after
// its own writes, so that an edit by someone else of a label or an annotation (which moves no generation), or a write
// that dropped the topology's managed fields, is told from the pass's own write. One implementation for both ends.
import { createHash } from 'node:crypto';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import { hasApplyEntry } from '#shared/kube/managed-fields.ts';
import { TopologyManagerName } from '#shared/topology/labels.ts';

/** kubectl's copy of the last applied object: written with every `kubectl apply`, read by no pass. */
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * 16 base64url characters of the SHA-256 of the labels and annotations (not kubectl's last-applied copy), equal for
 * equal maps whatever their order, and of a mark when `metadata.managedFields` has no apply entry of the topology's
 * field manager (`capi-topology`): someone purged the object's managed fields (upstream's envtest does, to test its
 * mitigation of kubernetes/kubernetes#136919), and the pass must apply again. Other managers' writes leave the entry,
 * so they move no hash; an object with the entry hashes as it did before the mark existed.
 *
 * @example
 * computeMetadataHash({ labels: { a: '1' }, managedFields: entries }) ===
 *   computeMetadataHash({ labels: { a: '1' }, annotations: {}, managedFields: entries }); // true
 */
export function computeMetadataHash(metadata: {
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly managedFields?: unknown;
}): string {
  const annotations = Object.fromEntries(Object.entries(metadata.annotations ?? {}).filter(([k]) => k !== lastApplied));
  const lost = hasApplyEntry(metadata, TopologyManagerName) ? {} : { topologyFieldsLost: true };
  const material = computeStableJson({ labels: metadata.labels ?? {}, annotations, ...lost });
  return createHash('sha256').update(material).digest('base64url').slice(0, 16);
}

/**
 * The hash a Cluster's change carries and its pass records for the Cluster: {@link computeMetadataHash} of its managed
 * fields alone. Its labels and annotations are its own pass's facts already (and the pass writes some of them itself
 * after recording), so only the topology's lost apply entry tells a change its facts do not show.
 *
 * @example
 * computeClusterMetadataHash(purgedCluster.metadata) !== computeClusterMetadataHash(appliedCluster.metadata); // true
 */
export function computeClusterMetadataHash(metadata: object & { readonly managedFields?: unknown }): string {
  return computeMetadataHash({ managedFields: metadata.managedFields });
}
