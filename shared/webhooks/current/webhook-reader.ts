// The only reads the admission webhooks make: the ClusterClass of a Cluster, the Clusters using a ClusterClass and
// the provider objects of a kind. Injectable, so rules are tested with in-memory fakes.
import { Cluster } from '#shared/api/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { operatorApiVersion, providerSchemas, type Provider, type ProviderKind } from '#shared/api/operator.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, listObjects, type KubeClient } from '#shared/kube/index.ts';

const coreApiVersion = 'cluster.x-k8s.io/v1beta2';

/** Lookups a rule may need; each is called only when a rule needs it. */
export type WebhookReader = {
  /** The ClusterClass, or undefined when it does not exist. */
  getClusterClass(key: ObjectKey): Promise<ClusterClass | undefined>;
  /** Clusters in the class's namespace whose `spec.topology.class` names it. */
  listClustersUsingClass(key: ObjectKey): Promise<Cluster[]>;
  /** Every provider object of a kind, in all namespaces. */
  listProviders(kind: ProviderKind): Promise<Provider[]>;
};

/**
 * A reader backed by the management cluster.
 *
 * @example
 * const reader = createWebhookReader(kube);
 * const cc = await reader.getClusterClass({ namespace: 'default', name: 'quick-start' });
 */
export function createWebhookReader(kube: KubeClient): WebhookReader {
  return {
    async getClusterClass(key) {
      const raw = await findObject(kube, { apiVersion: coreApiVersion, kind: 'ClusterClass', ...key });
      return raw === undefined ? undefined : parseObject(ClusterClass, 'ClusterClass', raw);
    },
    async listClustersUsingClass(key) {
      // NOTE: a Cluster may use a ClusterClass of another namespace (classRef.namespace), so all namespaces are listed.
      const list = await listObjects(kube, { apiVersion: coreApiVersion, kind: 'Cluster' });
      return list.items
        .map((raw) => parseObject(Cluster, 'Cluster', raw))
        .filter((cluster) => {
          const ref = cluster.spec?.topology?.classRef;
          const namespace = ref?.namespace || (cluster.metadata.namespace ?? '');
          return ref?.name === key.name && namespace === key.namespace;
        });
    },
    async listProviders(kind) {
      const list = await listObjects(kube, { apiVersion: operatorApiVersion, kind });
      return list.items.map((raw) => parseObject(providerSchemas[kind], kind, raw) as Provider);
    },
  };
}
