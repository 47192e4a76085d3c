// Reads what a Cluster's topology consists of today (upstream getCurrentState): objects found through the Cluster's
// references and through the topology labels, never by guessing names.
import type { Cluster } from '#shared/api/cluster.ts';
import { MachineDeployment } from '#shared/api/machine-deployment.ts';
import { MachineHealthCheck } from '#shared/api/machine-health-check.ts';
import { MachinePool } from '#shared/api/machine-pool.ts';
import type { ObjectReference } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { controlPlaneContract } from '#shared/topology/desired/compute-control-plane.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import {
  ClusterNameLabel,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyMachinePoolNameLabel,
  ClusterTopologyOwnedLabel,
} from '#shared/topology/labels.ts';
import type { CurrentState, MachineDeploymentState, MachinePoolState, Unstructured } from '#shared/topology/types.ts';

async function getRef(
  reader: TopologyReader,
  ref: ObjectReference | undefined,
  namespace: string,
): Promise<Unstructured | undefined> {
  if (!ref?.apiVersion || !ref.kind || !ref.name) return undefined;
  return reader.get({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    namespace: ref.namespace || namespace,
    name: ref.name,
  });
}

async function getOwnedHealthCheck(
  reader: TopologyReader,
  namespace: string,
  name: string,
): Promise<MachineHealthCheck | undefined> {
  const raw = await reader.get({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineHealthCheck', namespace, name });
  if (!raw || raw.metadata.labels?.[ClusterTopologyOwnedLabel] === undefined) return undefined;
  return parseObject(MachineHealthCheck, 'MachineHealthCheck', raw);
}

/** True when some Machine selected by the MachineDeployment runs another version (upstream MachineDeployments.Upgrading). */
async function isMachineDeploymentUpgrading(reader: TopologyReader, md: MachineDeployment): Promise<boolean> {
  const version = md.spec.template.spec.version;
  if (!version) return false;
  const machines = await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    namespace: md.metadata.namespace ?? '',
    matchLabels: md.spec.selector.matchLabels ?? {},
  });
  return machines.some((m) => getPath(m, ['spec', 'version']) !== version);
}

/**
 * The current state of a Cluster's managed topology.
 *
 * @example
 * const current = await getCurrentState(reader, cluster);
 */
export async function getCurrentState(reader: TopologyReader, cluster: Cluster): Promise<CurrentState> {
  const namespace = cluster.metadata.namespace ?? '';
  const clusterName = cluster.metadata.name ?? '';
  const infrastructureCluster = await getRef(reader, cluster.spec?.infrastructureRef, namespace);
  const cpObject = await getRef(reader, cluster.spec?.controlPlaneRef, namespace);
  const cpMachineTemplate = cpObject
    ? await getRef(
        reader,
        getPath(cpObject, controlPlaneContract.machineTemplateInfrastructureRef) as ObjectReference | undefined,
        namespace,
      )
    : undefined;
  const cpHealthCheck = cpObject
    ? await getOwnedHealthCheck(reader, namespace, cpObject.metadata.name ?? '')
    : undefined;
  const owned = { [ClusterNameLabel]: clusterName, [ClusterTopologyOwnedLabel]: '' };

  const machineDeployments: Record<string, MachineDeploymentState> = {};
  const mds = await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    namespace,
    matchLabels: owned,
  });
  for (const raw of mds) {
    const md = parseObject(MachineDeployment, 'MachineDeployment', raw);
    const topologyName = md.metadata.labels?.[ClusterTopologyMachineDeploymentNameLabel];
    if (!topologyName) continue;
    machineDeployments[topologyName] = {
      object: md,
      bootstrapTemplate: await getRef(reader, md.spec.template.spec.bootstrap.configRef, namespace),
      infrastructureMachineTemplate: await getRef(reader, md.spec.template.spec.infrastructureRef, namespace),
      machineHealthCheck: await getOwnedHealthCheck(reader, namespace, md.metadata.name ?? ''),
      upgrading: await isMachineDeploymentUpgrading(reader, md),
    };
  }
  const machinePools: Record<string, MachinePoolState> = {};
  const mps = await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachinePool',
    namespace,
    matchLabels: owned,
  });
  for (const raw of mps) {
    const mp = parseObject(MachinePool, 'MachinePool', raw);
    const topologyName = mp.metadata.labels?.[ClusterTopologyMachinePoolNameLabel];
    if (!topologyName) continue;
    // NOTE: upstream asks the workload cluster's Nodes whether a MachinePool is upgrading; we compare the pool's
    // status with its spec instead, so a pass never talks to workload clusters.
    const upgrading = (mp.status?.readyReplicas ?? 0) !== (mp.status?.replicas ?? 0);
    machinePools[topologyName] = {
      object: mp,
      bootstrapObject: await getRef(reader, mp.spec.template.spec.bootstrap.configRef, namespace),
      infrastructureMachinePoolObject: await getRef(reader, mp.spec.template.spec.infrastructureRef, namespace),
      upgrading,
    };
  }
  return {
    cluster,
    infrastructureCluster,
    controlPlane: {
      object: cpObject,
      infrastructureMachineTemplate: cpMachineTemplate,
      machineHealthCheck: cpHealthCheck,
    },
    machineDeployments,
    machinePools,
  };
}
