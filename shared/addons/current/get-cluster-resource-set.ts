// Reads ClusterResourceSets from the management cluster in the v1beta2 shape (the server's v1beta2, or its v1beta1
// converted at the edge), parsed once at the boundary.
import { ClusterResourceSet, AddonsApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findHubObject, listHubObjects, type KubeClient } from '#shared/kube/index.ts';

/**
 * The ClusterResourceSet `key`, or undefined when it does not exist.
 *
 * @example
 * const crs = await getClusterResourceSet(kube, { namespace: 'default', name: 'calico' });
 */
export async function getClusterResourceSet(kube: KubeClient, key: ObjectKey): Promise<ClusterResourceSet | undefined> {
  const raw = await findHubObject(kube, { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSet', ...key });
  return raw === undefined ? undefined : parseObject(ClusterResourceSet, 'ClusterResourceSet', raw);
}

/**
 * Every ClusterResourceSet in `namespace`, in name order.
 *
 * @example
 * const sets = await listClusterResourceSets(kube, 'default');
 */
export async function listClusterResourceSets(kube: KubeClient, namespace: string): Promise<ClusterResourceSet[]> {
  const list = await listHubObjects(kube, { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSet', namespace });
  return list.items
    .map((raw) => parseObject(ClusterResourceSet, 'ClusterResourceSet', raw))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
}
