// The Clusters of a rollout: those its selector matches (one LIST in its namespace), plus the ones its status lists
// as Pending or Changing that the LIST no longer returns (one GET each, rare: unlabelled or deleted meanwhile).
import * as z from 'zod';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ClusterRolloutState, type ClusterRollout } from '#shared/api/rollout.ts';
import { findObject, listObjects, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { getClusterHealth } from '#shared/rollout/current/get-cluster-health.ts';
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

/** The facts of one Cluster read from the server. */
export function computeClusterFacts(raw: KubeObject, selected: boolean): RolloutClusterFacts {
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
    health: getClusterHealth(cluster),
  };
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
  const facts = listed.map((raw) => computeClusterFacts(raw, true));
  const seen = new Set(facts.map((f) => f.name));
  for (const entry of rollout.status?.clusters ?? []) {
    if (seen.has(entry.name) || !tracked.has(entry.state)) continue;
    const raw = await findObject(kube, { apiVersion: clusterApiVersion, kind: 'Cluster', namespace, name: entry.name });
    if (raw !== undefined) facts.push(computeClusterFacts(raw, false));
  }
  return facts;
}
