// The only reads the admission webhooks make: the ClusterClass of a Cluster, the Clusters using a ClusterClass, the
// provider objects of a kind and the live objects of a Cluster whose topology version changes. Injectable, so rules are tested with in-memory fakes.
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import {
  operatorApiVersion,
  providerSchemas,
  type Provider,
  type ProviderKind,
} from '#shared/api/operator/v1alpha2/provider.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, getWorkloadClusterClient, listObjects, type KubeClient } from '#shared/kube/index.ts';
import { computeCrdName } from '#shared/topology/contract/contract-version.ts';
import { createContractResolver } from '#shared/topology/current/get-contracts.ts';
import { createKubeReader } from '#shared/topology/current/kube-reader.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import type { MachinePoolUpgradeState, TopologyUpgradeState } from '#shared/webhooks/rules/topology-upgrade-rules.ts';

const coreApiVersion = 'cluster.x-k8s.io/v1beta2';

/** Lookups a rule may need; each is called only when a rule needs it. */
export type WebhookReader = {
  /** The ClusterClass, or undefined when it does not exist. */
  getClusterClass(key: ObjectKey): Promise<ClusterClass | undefined>;
  /** A write of the ClusterClass is being admitted: a reader that keeps classes must not answer from its copy. */
  forgetClusterClass?(key: ObjectKey): void;
  /** Clusters in the class's namespace whose `spec.topology.class` names it. */
  listClustersUsingClass(key: ObjectKey): Promise<Cluster[]>;
  /** Clusters of a namespace matching a label selector (`labelSelector` query syntax). */
  listClusters(namespace: string, labelSelector: string): Promise<Cluster[]>;
  /** Every provider object of a kind, in all namespaces. */
  listProviders(kind: ProviderKind): Promise<Provider[]>;
  /**
   * The live objects upstream checks before a topology version change: the Cluster's control plane (from its
   * spec.controlPlaneRef), its topology-owned MachineDeployments with their Machines, and its topology-owned
   * MachinePools with the kubelet versions of their Nodes (read from the workload cluster, as upstream's webhook does).
   */
  getTopologyUpgradeState(cluster: Cluster): Promise<TopologyUpgradeState>;
};

const cpPrefix = 'failed to check if control plane is upgrading: failed to get control plane object';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function getControlPlane(kube: KubeClient, cluster: Cluster): Promise<TopologyUpgradeState['controlPlane']> {
  const ref = cluster.spec?.controlPlaneRef;
  const namespace = cluster.metadata.namespace ?? '';
  if (!ref?.apiGroup || !ref.kind || !ref.name)
    return { error: `${cpPrefix}: cannot get object - object reference not set` };
  try {
    const apiVersion = await createContractResolver(createKubeReader(kube)).apiVersionOf(ref.apiGroup, ref.kind);
    const raw = await findObject(kube, { apiVersion, kind: ref.kind, namespace, name: ref.name });
    if (raw === undefined)
      return {
        error: `${cpPrefix}: failed to retrieve ${ref.kind} ${namespace}/${ref.name}: ${computeCrdName(ref.apiGroup, ref.kind)} "${ref.name}" not found`,
      };
    return { object: raw as Unstructured };
  } catch (err) {
    return { error: `${cpPrefix}: failed to get object from ref: ${messageOf(err)}` };
  }
}

async function getMachineDeployments(
  kube: KubeClient,
  cluster: Cluster,
): Promise<TopologyUpgradeState['machineDeployments']> {
  const namespace = cluster.metadata.namespace ?? '';
  const labelSelector = `cluster.x-k8s.io/cluster-name=${cluster.metadata.name},topology.cluster.x-k8s.io/owned`;
  const mds = await listObjects(kube, {
    apiVersion: coreApiVersion,
    kind: 'MachineDeployment',
    namespace,
    labelSelector,
  });
  return Promise.all(
    mds.items.map(async (md) => {
      const matchLabels = getPath(md, ['spec', 'selector', 'matchLabels']) as Record<string, string> | undefined;
      const selector = Object.entries(matchLabels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const machines = await listObjects(kube, {
        apiVersion: coreApiVersion,
        kind: 'Machine',
        namespace,
        labelSelector: selector,
      });
      return { object: md as Unstructured, machines: machines.items as Unstructured[] };
    }),
  );
}

const mpPrefix = 'failed to check if MachinePools are upgrading';

/** How long the webhook waits for the workload cluster's API server (well within the webhook's own timeout). */
const workloadTimeoutMs = 5_000;

async function getMachinePools(
  kube: KubeClient,
  cluster: Cluster,
  workloadClient: (cluster: ObjectKey) => Promise<KubeClient>,
): Promise<TopologyUpgradeState['machinePools']> {
  const namespace = cluster.metadata.namespace ?? '';
  const labelSelector = `cluster.x-k8s.io/cluster-name=${cluster.metadata.name},topology.cluster.x-k8s.io/owned`;
  let mps: Unstructured[];
  try {
    mps = (await listObjects(kube, { apiVersion: coreApiVersion, kind: 'MachinePool', namespace, labelSelector }))
      .items as Unstructured[];
  } catch (err) {
    return { error: `${mpPrefix}: failed to get MachinePools: ${messageOf(err)}` };
  }
  if (mps.length === 0) return undefined;
  // NOTE: as upstream (its ClusterCacheReader), the workload cluster is asked once any MachinePool exists, and a
  // Cluster whose workload cluster cannot be reached cannot change its version.
  let workload: KubeClient;
  try {
    workload = await workloadClient({ namespace, name: cluster.metadata.name ?? '' });
  } catch (err) {
    return { error: `${mpPrefix}: unable to get client for workload cluster: ${messageOf(err)}` };
  }
  try {
    const out: MachinePoolUpgradeState[] = [];
    for (const mp of mps) {
      const refs = (getPath(mp, ['status', 'nodeRefs']) ?? []) as { name?: string }[];
      const nodes: { name: string; kubeletVersion: string }[] = [];
      let failed: { error: string } | undefined;
      for (const ref of refs) {
        const name = ref.name ?? '';
        try {
          const node = await findObject(workload, { apiVersion: 'v1', kind: 'Node', name });
          if (node === undefined) throw new Error('not found');
          const kubeletVersion = getPath(node, ['status', 'nodeInfo', 'kubeletVersion']);
          nodes.push({ name, kubeletVersion: typeof kubeletVersion === 'string' ? kubeletVersion : '' });
        } catch {
          failed = {
            error: `failed to check if MachinePool ${mp.metadata.name} is upgrading: failed to get Node ${name}`,
          };
          break;
        }
      }
      out.push({ object: mp, nodes: failed ?? nodes });
    }
    return out;
  } finally {
    workload.close();
  }
}

/**
 * A reader backed by the management cluster.
 *
 * @example
 * const reader = createWebhookReader(kube);
 * const cc = await reader.getClusterClass({ namespace: 'default', name: 'quick-start' });
 */
export function createWebhookReader(
  kube: KubeClient,
  workloadClient: (cluster: ObjectKey) => Promise<KubeClient> = (cluster) =>
    getWorkloadClusterClient(kube, cluster, { timeoutMs: workloadTimeoutMs }),
): WebhookReader {
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
    async listClusters(namespace, labelSelector) {
      const list = await listObjects(kube, { apiVersion: coreApiVersion, kind: 'Cluster', namespace, labelSelector });
      return list.items.map((raw) => parseObject(Cluster, 'Cluster', raw));
    },
    async listProviders(kind) {
      const list = await listObjects(kube, { apiVersion: operatorApiVersion, kind });
      return list.items.map((raw) => parseObject(providerSchemas[kind], kind, raw) as Provider);
    },
    async getTopologyUpgradeState(cluster) {
      const [controlPlane, machineDeployments, machinePools] = await Promise.all([
        getControlPlane(kube, cluster),
        getMachineDeployments(kube, cluster),
        getMachinePools(kube, cluster, workloadClient),
      ]);
      return { controlPlane, machineDeployments, ...(machinePools ? { machinePools } : {}) };
    },
  };
}
