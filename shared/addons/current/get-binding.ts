// Reads ClusterResourceSetBindings (one per Cluster, named after it) from the management cluster.
import { AddonsApiVersion, ClusterResourceSetBinding } from '#shared/api/addons.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, listObjects, type KubeClient } from '#shared/kube/index.ts';

/**
 * The ClusterResourceSetBinding of the Cluster `cluster` (same namespace and name), or undefined.
 *
 * @example
 * const binding = await getBinding(kube, { namespace: 'default', name: 'c1' });
 */
export async function getBinding(kube: KubeClient, cluster: ObjectKey): Promise<ClusterResourceSetBinding | undefined> {
  const raw = await findObject(kube, { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSetBinding', ...cluster });
  return raw === undefined ? undefined : parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', raw);
}

/**
 * The bindings in `namespace` that mention the ClusterResourceSet `crsName`, in an entry or an owner reference.
 *
 * @example
 * const bindings = await listBindingsOf(kube, 'default', 'calico');
 */
export async function listBindingsOf(
  kube: KubeClient,
  namespace: string,
  crsName: string,
): Promise<ClusterResourceSetBinding[]> {
  const list = await listObjects(kube, { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSetBinding', namespace });
  return list.items
    .map((raw) => parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', raw))
    .filter(
      (b) =>
        (b.spec?.bindings ?? []).some((entry) => entry.clusterResourceSetName === crsName) ||
        (b.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'ClusterResourceSet' && ref.name === crsName),
    );
}
