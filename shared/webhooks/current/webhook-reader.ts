// The only reads the admission webhooks make: the ClusterClass of a Cluster, the Clusters using a ClusterClass and
// the provider objects of a kind. Injectable, so rules are tested with in-memory fakes.
import { Cluster } from '#shared/api/cluster.ts';
import { ClusterClass } from '#shared/api/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { operatorApiVersion, providerSchemas, type Provider, type ProviderKind } from '#shared/api/operator.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, listObjects, type KubeClient } from '#shared/kube/index.ts';

const coreApiVersion = 'cluster.x-k8s.io/v1beta1';

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
      const list = await listObjects(kube, { apiVersion: coreApiVersion, kind: 'Cluster', namespace: key.namespace });
      return list.items
        .map((raw) => parseObject(Cluster, 'Cluster', raw))
        .filter((cluster) => cluster.spec?.topology?.class === key.name);
    },
    async listProviders(kind) {
      const list = await listObjects(kube, { apiVersion: operatorApiVersion, kind });
      return list.items.map((raw) => parseObject(providerSchemas[kind], kind, raw) as Provider);
    },
  };
}
