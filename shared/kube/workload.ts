// Clients for workload clusters, built from the `<cluster>-kubeconfig` Secret Cluster API writes in the
// management cluster (data key `value`).
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { CapiError } from '#shared/errors/index.ts';
import { createKubeClient, type KubeClient, type KubeClientOptions } from '#shared/kube/client.ts';
import { getObject } from '#shared/kube/objects.ts';

export class WorkloadKubeconfigError extends CapiError {}

/** Name of the kubeconfig Secret of a Cluster. */
export function kubeconfigSecretName(clusterName: string): string {
  return `${clusterName}-kubeconfig`;
}

/**
 * Reads `<cluster>-kubeconfig` and returns a client for the workload cluster.
 *
 * @example
 * const workload = await getWorkloadClusterClient(mgmt, { namespace: 'default', name: 'c1' });
 */
export async function getWorkloadClusterClient(
  mgmt: KubeClient,
  cluster: ObjectKey,
  options: KubeClientOptions = {},
): Promise<KubeClient> {
  const name = kubeconfigSecretName(cluster.name);
  const secret = await getObject(mgmt, { apiVersion: 'v1', kind: 'Secret', namespace: cluster.namespace, name });
  const data = (secret['data'] ?? {}) as Record<string, string>;
  const encoded = data['value'];
  if (!encoded) {
    throw new WorkloadKubeconfigError(`Secret ${cluster.namespace}/${name} has no data.value kubeconfig`, {
      kind: 'Secret',
      namespace: cluster.namespace,
      name,
      fieldPath: 'data.value',
      reason: 'InvalidKubeconfig',
    });
  }
  try {
    return await createKubeClient({ kubeconfig: Buffer.from(encoded, 'base64').toString('utf8') }, options);
  } catch (err) {
    throw new WorkloadKubeconfigError(
      `failed to load kubeconfig from Secret ${cluster.namespace}/${name}: ${(err as Error).message}`,
      {
        kind: 'Secret',
        namespace: cluster.namespace,
        name,
        fieldPath: 'data.value',
        reason: 'InvalidKubeconfig',
      },
      { cause: err },
    );
  }
}
