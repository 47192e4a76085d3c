// The Clusters a ClusterResourceSet selects, and which of them can get add-ons now.
import * as z from 'zod';
import type { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { KubeObjectMeta, type ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { findHubObject, listHubObjects, type KubeClient } from '#shared/kube/index.ts';
import { OkToDeleteAnnotation } from '#shared/topology/desired/lifecycle-hooks.ts';

// NOTE: read in the v1beta2 hub shape: the server's v1beta2, or its v1beta1 converted at the edge (upstream <= v1.10).
const clusterApiVersion = 'cluster.x-k8s.io/v1beta2';

/** What the add-ons controller needs of a Cluster (parsed narrowly: it never writes Clusters). */
export const AddonsCluster = z.object({
  apiVersion: z.string(),
  kind: z.literal('Cluster'),
  metadata: KubeObjectMeta,
  spec: z.object({ topology: z.object({}).passthrough().optional() }).optional(),
  status: z
    .object({ initialization: z.object({ infrastructureProvisioned: z.boolean().optional() }).optional() })
    .optional(),
});
export type AddonsCluster = z.infer<typeof AddonsCluster>;

/** The key of a Cluster. */
export function clusterKeyOf(cluster: AddonsCluster): ObjectKey {
  return { namespace: cluster.metadata.namespace ?? '', name: cluster.metadata.name ?? '' };
}

/**
 * Whether add-ons can be applied to the Cluster now. Upstream v1.7 tries to connect to any selected Cluster; later
 * versions (ClusterCache, v1.9) wait for the infrastructure (v1beta2 `status.initialization.infrastructureProvisioned`,
 * v1beta1 `status.infrastructureReady`); so do we, and (as v1.14) a waiting Cluster
 * still gets its binding entry and a RemoteClusterClientFailed condition saying why. The `<cluster>-kubeconfig`
 * Secret is checked when a client is needed (see getWorkloadConnection), so a Cluster with nothing to apply costs no
 * read.
 */
export function isClusterInfrastructureReady(cluster: AddonsCluster): boolean {
  return cluster.status?.initialization?.infrastructureProvisioned === true;
}

/**
 * Whether a deleting Cluster's ClusterResourceSetBinding must stay: upstream's binding controller (with its
 * RuntimeSDK and ClusterTopology gates on, the installation capi-serverless stands in for) keeps it while a topology
 * Cluster waits for its BeforeClusterDelete hooks, i.e. until `runtime.cluster.x-k8s.io/ok-to-delete`.
 *
 * @example
 * isClusterWaitingForBeforeClusterDelete(deletingTopologyCluster); // true until the topology pass marks it
 */
export function isClusterWaitingForBeforeClusterDelete(cluster: AddonsCluster): boolean {
  return (
    cluster.metadata.deletionTimestamp !== undefined &&
    cluster.spec?.topology !== undefined &&
    cluster.metadata.annotations?.[OkToDeleteAnnotation] === undefined
  );
}

export type SelectedClusters =
  /** Clusters matching the selector, not being deleted, in name order; `waiting` lists those not ready yet. */
  | { readonly status: 'ok'; readonly ready: readonly AddonsCluster[]; readonly waiting: readonly AddonsCluster[] }
  /** The selector is invalid or the list failed: upstream's ClusterMatchFailed. */
  | { readonly status: 'error'; readonly message: string };

/**
 * The Clusters in the ClusterResourceSet's namespace its `clusterSelector` matches (an empty selector matches
 * nothing), without those being deleted, split into ready and waiting ({@link isClusterInfrastructureReady}).
 *
 * @example
 * const selected = await listSelectedClusters(kube, crs);
 * if (selected.status === 'ok') for (const cluster of selected.ready) { ... }
 */
export async function listSelectedClusters(kube: KubeClient, crs: ClusterResourceSet): Promise<SelectedClusters> {
  if (isEmptyLabelSelector(crs.spec.clusterSelector)) return { status: 'ok', ready: [], waiting: [] };
  let clusters: AddonsCluster[];
  try {
    const labelSelector = formatLabelSelector(crs.spec.clusterSelector);
    const list = await listHubObjects(kube, {
      apiVersion: clusterApiVersion,
      kind: 'Cluster',
      namespace: crs.metadata.namespace,
      labelSelector,
    });
    clusters = list.items.map((raw) => parseObject(AddonsCluster, 'Cluster', raw));
  } catch (err) {
    return { status: 'error', message: `failed to list clusters: ${errorMessage(err)}` };
  }
  const live = clusters
    .filter((c) => c.metadata.deletionTimestamp === undefined)
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  return {
    status: 'ok',
    ready: live.filter(isClusterInfrastructureReady),
    waiting: live.filter((c) => !isClusterInfrastructureReady(c)),
  };
}

/**
 * The Cluster `key`, or undefined when it does not exist.
 *
 * @example
 * const cluster = await getCluster(kube, { namespace: 'default', name: 'c1' });
 */
export async function getCluster(kube: KubeClient, key: ObjectKey): Promise<AddonsCluster | undefined> {
  const raw = await findHubObject(kube, { apiVersion: clusterApiVersion, kind: 'Cluster', ...key });
  return raw === undefined ? undefined : parseObject(AddonsCluster, 'Cluster', raw);
}
