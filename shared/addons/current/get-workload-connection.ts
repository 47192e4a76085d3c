// A client for a workload cluster, checked the way upstream does before applying (the `kubernetes` Service in
// `default` must be readable), or why there is none.
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { getObject, kubeconfigSecretName, KubeNotFoundError, type KubeClient } from '#shared/kube/index.ts';

export type WorkloadConnection =
  | { readonly status: 'connected'; readonly client: KubeClient }
  /** The `<cluster>-kubeconfig` Secret does not exist yet: the Cluster is not eligible, nothing to report. */
  | { readonly status: 'waiting'; readonly reason: string }
  /** A client could not be had or the cluster did not answer: upstream's RemoteClusterClientFailed. */
  | { readonly status: 'failed'; readonly message: string };

/**
 * Gets a client through `workloadClient` and probes it with one GET of Service `default/kubernetes` (upstream's
 * `ensureKubernetesServiceCreated`). The caller closes the client.
 *
 * @example
 * const conn = await getWorkloadConnection((key) => getWorkloadClusterClient(kube, key), { namespace: 'ns', name: 'c1' });
 */
export async function getWorkloadConnection(
  workloadClient: (cluster: ObjectKey) => Promise<KubeClient>,
  cluster: ObjectKey,
): Promise<WorkloadConnection> {
  let client: KubeClient;
  try {
    client = await workloadClient(cluster);
  } catch (err) {
    if (
      err instanceof KubeNotFoundError &&
      err.kind === 'Secret' &&
      err.objectName === kubeconfigSecretName(cluster.name)
    ) {
      return { status: 'waiting', reason: `Secret ${cluster.namespace}/${err.objectName} does not exist yet` };
    }
    return { status: 'failed', message: errorMessage(err) };
  }
  try {
    await getObject(client, { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'kubernetes' });
    return { status: 'connected', client };
  } catch (err) {
    client.close();
    return { status: 'failed', message: errorMessage(err) };
  }
}
