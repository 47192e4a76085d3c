// The Clusters of a rollout: those its selector matches (one LIST in its namespace), plus the ones its status lists
// as Pending or Changing that the LIST no longer returns (one GET each, rare: unlabelled or deleted meanwhile); and
// the MachineDeployments and MachinePools their topologies own (one LIST each in the namespace), for the gate.
import * as z from 'zod';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ClusterRolloutState, type ClusterRollout } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { findObject, listObjects, UnknownKindError, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { getClusterHealth, type WorkerSource } from '#shared/rollout/current/get-cluster-health.ts';
import type { RolloutClusterFacts } from '#shared/rollout/types.ts';

export const clusterApiVersion = 'cluster.x-k8s.io/v1beta2';

const RolloutCondition = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().default(''),
  message: z.string().optional(),
  observedGeneration: z.number().int().optional(),
});

/** What the rollout reads of a Cluster (parsed narrowly: a field it does not use never fails the pass). */
export const RolloutCluster = z.object({
  apiVersion: z.string(),
  kind: z.literal('Cluster'),
  metadata: KubeObjectMeta,
  spec: z
    .object({
      topology: z
        .object({
          classRef: z.object({ name: z.string(), namespace: z.string().optional() }).optional(),
          version: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  status: z
    .object({ observedGeneration: z.number().int().optional(), conditions: z.array(RolloutCondition).optional() })
    .optional(),
});
export type RolloutCluster = z.infer<typeof RolloutCluster>;

/** What the gate reads of a topology-owned MachineDeployment or MachinePool. */
const RolloutWorker = z.object({
  kind: z.string(),
  metadata: KubeObjectMeta,
  status: z
    .object({ observedGeneration: z.number().int().optional(), conditions: z.array(RolloutCondition).optional() })
    .optional(),
});

const clusterNameLabel = 'cluster.x-k8s.io/cluster-name';
const topologyOwnedLabel = 'topology.cluster.x-k8s.io/owned';

/** The facts of one Cluster read from the server, with the workers its topology owns. */
export function computeClusterFacts(
  raw: KubeObject,
  selected: boolean,
  workers: readonly WorkerSource[] = [],
): RolloutClusterFacts {
  const cluster = parseObject(RolloutCluster, 'Cluster', raw);
  const topology = cluster.spec?.topology;
  return {
    name: cluster.metadata.name ?? '',
    uid: cluster.metadata.uid ?? '',
    resourceVersion: cluster.metadata.resourceVersion ?? '',
    generation: cluster.metadata.generation ?? 0,
    selected,
    deleting: cluster.metadata.deletionTimestamp !== undefined,
    topology:
      topology === undefined
        ? undefined
        : {
            ...(topology.classRef ? { classRef: topology.classRef } : {}),
            ...(topology.version !== undefined ? { version: topology.version } : {}),
          },
    health: getClusterHealth(cluster, workers),
  };
}

/** The topology-owned MachineDeployments and MachinePools of a namespace, by Cluster name. */
async function listWorkers(kube: KubeClient, namespace: string): Promise<Map<string, WorkerSource[]>> {
  const byCluster = new Map<string, WorkerSource[]>();
  for (const kind of ['MachineDeployment', 'MachinePool']) {
    let items: KubeObject[];
    try {
      items = (
        await listObjects(kube, { apiVersion: clusterApiVersion, kind, namespace, labelSelector: topologyOwnedLabel })
      ).items;
    } catch (err) {
      // NOTE: a server without MachinePools (the CRD not installed) has none to wait for.
      if (err instanceof UnknownKindError) continue;
      throw err;
    }
    for (const raw of items) {
      const worker = parseObject(RolloutWorker, kind, raw);
      const cluster = worker.metadata.labels?.[clusterNameLabel];
      if (cluster === undefined) continue;
      byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), worker]);
    }
  }
  return byCluster;
}

const tracked = new Set<string>([ClusterRolloutState.Pending, ClusterRolloutState.Changing]);

/**
 * The facts of every Cluster the rollout selects, and of those it still tracks that the selector no longer returns.
 * An empty selector selects nothing.
 *
 * @example
 * const clusters = await listRolloutClusters(kube, rollout); // [{ name: 'c01', selected: true, topology: {...}, health: {...} }, ...]
 */
export async function listRolloutClusters(kube: KubeClient, rollout: ClusterRollout): Promise<RolloutClusterFacts[]> {
  const namespace = rollout.metadata.namespace ?? '';
  const selector = rollout.spec.clusterSelector;
  const listed = isEmptyLabelSelector(selector)
    ? []
    : (
        await listObjects(kube, {
          apiVersion: clusterApiVersion,
          kind: 'Cluster',
          namespace,
          labelSelector: formatLabelSelector(selector),
        })
      ).items;
  const missing = (rollout.status?.clusters ?? []).filter(
    (e) => tracked.has(e.state) && !listed.some((raw) => raw.metadata.name === e.name),
  );
  const workers = listed.length + missing.length === 0 ? new Map() : await listWorkers(kube, namespace);
  const workersOf = (raw: KubeObject) => workers.get(raw.metadata.name ?? '') ?? [];
  const facts = listed.map((raw) => computeClusterFacts(raw, true, workersOf(raw)));
  for (const entry of missing) {
    const raw = await findObject(kube, { apiVersion: clusterApiVersion, kind: 'Cluster', namespace, name: entry.name });
    if (raw !== undefined) facts.push(computeClusterFacts(raw, false, workersOf(raw)));
  }
  return facts;
}
