// The Clusters of a rollout: those its selector matches (one LIST in its namespace), plus the ones its status lists
// as Pending or Changing that the LIST no longer returns (one GET each, rare: unlabelled or deleted meanwhile); and,
// for the gate, the MachineDeployments and MachinePools their topologies own, the MachineSets of those
// MachineDeployments and their control planes (one LIST per kind in the namespace).
import * as z from 'zod';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ClusterRolloutState, type ClusterRollout } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import {
  findObject,
  getContractApiVersionGetter,
  listObjects,
  UnknownKindError,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { getClusterHealth, type HealthParts } from '#shared/rollout/current/get-cluster-health.ts';
import type { ReplicaSource } from '#shared/rollout/current/get-rollout-progress.ts';
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
      controlPlaneRef: z.object({ apiGroup: z.string(), kind: z.string(), name: z.string() }).optional(),
    })
    .optional(),
  status: z
    .object({ observedGeneration: z.number().int().optional(), conditions: z.array(RolloutCondition).optional() })
    .optional(),
});
export type RolloutCluster = z.infer<typeof RolloutCluster>;

const count = z.number().int().optional();

/** What the gate reads of a control plane, MachineDeployment, MachinePool or MachineSet. */
const RolloutReplicas = z.object({
  kind: z.string(),
  metadata: KubeObjectMeta,
  spec: z
    .object({
      replicas: count,
      version: z.string().optional(),
      template: z
        .object({
          spec: z
            .object({
              version: z.string().optional(),
              bootstrap: z.unknown().optional(),
              infrastructureRef: z.unknown().optional(),
              failureDomain: z.string().optional(),
            })
            .optional(),
        })
        .optional(),
    })
    .optional(),
  status: z
    .object({
      observedGeneration: count,
      replicas: count,
      upToDateReplicas: count,
      availableReplicas: count,
      version: z.string().optional(),
      conditions: z.array(RolloutCondition).optional(),
    })
    .optional(),
});

const clusterNameLabel = 'cluster.x-k8s.io/cluster-name';
const topologyOwnedLabel = 'topology.cluster.x-k8s.io/owned';
const machineDeploymentNameLabel = 'cluster.x-k8s.io/deployment-name';

/** The facts of one Cluster read from the server, with the objects its health gate reads. */
export function computeClusterFacts(raw: KubeObject, selected: boolean, parts: HealthParts = {}): RolloutClusterFacts {
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
    health: getClusterHealth(cluster, parts),
  };
}

/** The objects of a namespace the gate reads, by Cluster name (control planes by `kind/name`). */
type GateObjects = {
  readonly workers: ReadonlyMap<string, ReplicaSource[]>;
  readonly machineSets: ReadonlyMap<string, ReplicaSource[]>;
  readonly controlPlanes: ReadonlyMap<string, ReplicaSource>;
};

/** Objects of one kind in a namespace, parsed; none when the server does not serve the kind. */
async function listReplicaObjects(
  kube: KubeClient,
  q: { apiVersion: string; kind: string; namespace: string; labelSelector?: string },
): Promise<ReplicaSource[]> {
  try {
    return (await listObjects(kube, q)).items.map((raw) => parseObject(RolloutReplicas, q.kind, raw));
  } catch (err) {
    // NOTE: a server without MachinePools (the CRD not installed) has none to wait for.
    if (err instanceof UnknownKindError) return [];
    throw err;
  }
}

function groupByCluster(objects: readonly ReplicaSource[]): Map<string, ReplicaSource[]> {
  const byCluster = new Map<string, ReplicaSource[]>();
  for (const o of objects) {
    const cluster = o.metadata.labels?.[clusterNameLabel];
    if (cluster !== undefined) byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), o]);
  }
  return byCluster;
}

type ControlPlaneRef = { apiGroup: string; kind: string; name: string };

const controlPlaneRefOf = (raw: KubeObject): ControlPlaneRef | undefined =>
  parseObject(RolloutCluster, 'Cluster', raw).spec?.controlPlaneRef;

/**
 * The topology-owned MachineDeployments and MachinePools of a namespace, the MachineSets of MachineDeployments, and
 * the control planes the Clusters reference (one LIST per kind; the kind's apiVersion from its CRD's contract label).
 */
async function listGateObjects(
  kube: KubeClient,
  namespace: string,
  clusters: readonly KubeObject[],
): Promise<GateObjects> {
  const workers = [
    ...(await listReplicaObjects(kube, {
      apiVersion: clusterApiVersion,
      kind: 'MachineDeployment',
      namespace,
      labelSelector: topologyOwnedLabel,
    })),
    ...(await listReplicaObjects(kube, {
      apiVersion: clusterApiVersion,
      kind: 'MachinePool',
      namespace,
      labelSelector: topologyOwnedLabel,
    })),
  ];
  const machineSets = await listReplicaObjects(kube, {
    apiVersion: clusterApiVersion,
    kind: 'MachineSet',
    namespace,
    labelSelector: machineDeploymentNameLabel,
  });
  const refs = clusters.flatMap((raw) => controlPlaneRefOf(raw) ?? []);
  const kinds = [...new Map(refs.map((r) => [`${r.apiGroup}/${r.kind}`, r])).values()];
  const controlPlanes = new Map<string, ReplicaSource>();
  if (kinds.length > 0) {
    const apiVersionOf = await getContractApiVersionGetter(kube, 'v1beta2');
    for (const { apiGroup, kind } of kinds) {
      const apiVersion = apiVersionOf(apiGroup, kind);
      // NOTE: a control plane kind without a v1beta2 contract label is left to the Cluster's conditions.
      if (apiVersion === undefined) continue;
      for (const cp of await listReplicaObjects(kube, { apiVersion, kind, namespace })) {
        controlPlanes.set(`${apiGroup}/${kind}/${cp.metadata.name ?? ''}`, cp);
      }
    }
  }
  return { workers: groupByCluster(workers), machineSets: groupByCluster(machineSets), controlPlanes };
}

function computeHealthParts(raw: KubeObject, objects: GateObjects): HealthParts {
  const name = raw.metadata.name ?? '';
  const ref = controlPlaneRefOf(raw);
  return {
    controlPlane: ref && objects.controlPlanes.get(`${ref.apiGroup}/${ref.kind}/${ref.name}`),
    workers: objects.workers.get(name) ?? [],
    machineSets: objects.machineSets.get(name) ?? [],
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
  const missing = (rollout.status?.clusters ?? []).filter(
    (e) => tracked.has(e.state) && !listed.some((raw) => raw.metadata.name === e.name),
  );
  const found: KubeObject[] = [];
  for (const entry of missing) {
    const raw = await findObject(kube, { apiVersion: clusterApiVersion, kind: 'Cluster', namespace, name: entry.name });
    if (raw !== undefined) found.push(raw);
  }
  const all = [...listed, ...found];
  const objects: GateObjects =
    all.length === 0
      ? { workers: new Map(), machineSets: new Map(), controlPlanes: new Map() }
      : await listGateObjects(kube, namespace, all);
  return [
    ...listed.map((raw) => computeClusterFacts(raw, true, computeHealthParts(raw, objects))),
    ...found.map((raw) => computeClusterFacts(raw, false, computeHealthParts(raw, objects))),
  ];
}
