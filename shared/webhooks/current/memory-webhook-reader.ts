// The webhook reader over objects held in memory: `plan` runs the Cluster webhook's rules (version moves, class
// rebases) against a snapshot of the fleet, read once, so the forecast makes no request per rule.
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { parseObject } from '#shared/api/parse.ts';
import { computeCrdName } from '#shared/topology/contract/contract-version.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const hasLabels = (o: Unstructured, labels: Readonly<Record<string, string>>) =>
  Object.entries(labels).every(([k, v]) => o.metadata.labels?.[k] === v);

/**
 * A WebhookReader answering from `objects` (Clusters, ClusterClasses, control planes, MachineDeployments and their
 * Machines), with the same answers (and upstream's wording for a missing control plane) as the live reader.
 *
 * @example
 * const reader = createMemoryWebhookReader(snapshot);
 * await validateClusterAdmission(request, reader);
 */
export function createMemoryWebhookReader(objects: readonly Unstructured[]): WebhookReader {
  const of = (kind: string) => objects.filter((o) => o.kind === kind && groupOf(o.apiVersion) === 'cluster.x-k8s.io');
  const clusters = () => of('Cluster').map((raw) => parseObject(Cluster, 'Cluster', raw));
  return {
    async getClusterClass(key) {
      const raw = of('ClusterClass').find(
        (o) => o.metadata.name === key.name && (o.metadata.namespace ?? '') === (key.namespace ?? ''),
      );
      return raw === undefined ? undefined : parseObject(ClusterClass, 'ClusterClass', raw);
    },
    async listClustersUsingClass(key) {
      return clusters().filter((cluster) => {
        const ref = cluster.spec?.topology?.classRef;
        return ref?.name === key.name && (ref.namespace || cluster.metadata.namespace) === key.namespace;
      });
    },
    async listClusters() {
      throw new Error('listClusters is not served from a snapshot');
    },
    async listProviders() {
      return [];
    },
    async getTopologyUpgradeState(cluster) {
      const namespace = cluster.metadata.namespace ?? '';
      const ref = cluster.spec?.controlPlaneRef;
      const prefix = 'failed to check if control plane is upgrading: failed to get control plane object';
      const cp =
        ref?.apiGroup && ref.kind && ref.name
          ? objects.find(
              (o) =>
                o.kind === ref.kind &&
                groupOf(o.apiVersion) === ref.apiGroup &&
                o.metadata.name === ref.name &&
                o.metadata.namespace === namespace,
            )
          : undefined;
      const controlPlane = cp
        ? { object: cp }
        : {
            error:
              ref?.apiGroup && ref.kind && ref.name
                ? `${prefix}: failed to retrieve ${ref.kind} ${namespace}/${ref.name}: ${computeCrdName(ref.apiGroup, ref.kind)} "${ref.name}" not found`
                : `${prefix}: cannot get object - object reference not set`,
          };
      const isOwned = (md: Unstructured) =>
        md.metadata.namespace === namespace &&
        md.metadata.labels?.['cluster.x-k8s.io/cluster-name'] === cluster.metadata.name &&
        md.metadata.labels?.['topology.cluster.x-k8s.io/owned'] !== undefined;
      const machineDeployments = of('MachineDeployment')
        .filter(isOwned)
        .map((md) => {
          const matchLabels = (getPath(md, ['spec', 'selector', 'matchLabels']) ?? {}) as Record<string, string>;
          const machines = of('Machine').filter((m) => m.metadata.namespace === namespace && hasLabels(m, matchLabels));
          return { object: md, machines };
        });
      return { controlPlane, machineDeployments };
    },
  };
}
