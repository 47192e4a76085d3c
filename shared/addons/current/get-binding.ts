// Reads ClusterResourceSetBindings (one per Cluster, named after it) from the management cluster, in the v1beta2
// shape whatever version the server serves.
import { AddonsApiVersion, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findHubObject, listHubObjects, type KubeClient } from '#shared/kube/index.ts';

/**
 * The ClusterResourceSetBinding of the Cluster `cluster` (same namespace and name), or undefined.
 *
 * @example
 * const binding = await getBinding(kube, { namespace: 'default', name: 'c1' });
 */
export async function getBinding(kube: KubeClient, cluster: ObjectKey): Promise<ClusterResourceSetBinding | undefined> {
  const raw = await findHubObject(kube, {
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSetBinding',
    ...cluster,
  });
  return raw === undefined ? undefined : parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', raw);
}

/** Reads bindings by Cluster name from one LIST of a namespace; each is parsed when asked for. */
export type BindingLookup = (cluster: ObjectKey) => ClusterResourceSetBinding | undefined;

/**
 * Every binding of `namespace` in one LIST, looked up by Cluster name: a pass over a ClusterResourceSet selecting
 * N Clusters reads their bindings with one request instead of N. A binding that does not parse throws when its
 * Cluster is looked up (naming it), so one bad binding fails one Cluster, not the pass.
 *
 * @example
 * const bindingOf = await listBindings(kube, 'default');
 * const binding = bindingOf({ namespace: 'default', name: 'c1' });
 */
export async function listBindings(kube: KubeClient, namespace: string): Promise<BindingLookup> {
  const list = await listHubObjects(kube, {
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSetBinding',
    namespace,
  });
  const byName = new Map(list.items.map((raw) => [raw.metadata.name ?? '', raw]));
  return (cluster) => {
    const raw = cluster.namespace === namespace ? byName.get(cluster.name) : undefined;
    return raw === undefined ? undefined : parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', raw);
  };
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
  const list = await listHubObjects(kube, {
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSetBinding',
    namespace,
  });
  return list.items
    .map((raw) => parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', raw))
    .filter(
      (b) =>
        (b.spec.bindings ?? []).some((entry) => entry.clusterResourceSetName === crsName) ||
        (b.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'ClusterResourceSet' && ref.name === crsName),
    );
}
