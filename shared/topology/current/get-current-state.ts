// Reads what a Cluster's topology consists of today (upstream getCurrentState): objects a reference names (and the
// health checks, which have their owner's name) are read by name; label-selected LISTs only discover what nothing
// names (the MachineDeployments and MachinePools, and the Machines, whose kubelet versions show an in-place upgrade), never by guessing names.
// After a pass that succeeded, the MachineDeployments and MachinePools it left are read by the names it recorded
// (see CurrentStateReads.recordedNames); the Machines stay a LIST (the MachineSet controller names them). An InfrastructureCluster or ControlPlane a
// pass created but could not reference from the Cluster (the pass died before its cleanup) is found by its labels
// and owner (the cluster shim), and reused.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { MachineDeployment } from '#shared/api/core/v1beta2/machine-deployment.ts';
import { MachineHealthCheck } from '#shared/api/core/v1beta2/machine-health-check.ts';
import { MachinePool } from '#shared/api/core/v1beta2/machine-pool.ts';
import type { ObjectReference } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import type { ContractVersionedObjectReference } from '#shared/api/core/v1beta2/common.ts';
import { controlPlaneContractPaths } from '#shared/topology/contract/control-plane-contract.ts';
import type { ContractVersion } from '#shared/topology/contract/contract-version.ts';
import { isMachineDeploymentUpgrading } from '#shared/topology/contract/machine-deployment-state.ts';
import type { ContractResolver } from '#shared/topology/current/get-contracts.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import { computeClusterShimName, isShimOwnerRef } from '#shared/topology/desired/compute-cluster-shim.ts';
import {
  ClusterNameLabel,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyMachinePoolNameLabel,
  ClusterTopologyOwnedLabel,
} from '#shared/topology/labels.ts';
import type {
  Blueprint,
  CurrentState,
  MachineDeploymentState,
  MachinePoolState,
  Unstructured,
} from '#shared/topology/types.ts';

/** Which optional parts of the current state a pass must read; everything is read when not told otherwise. */
export type CurrentStateReads = {
  /** MachineHealthChecks: the class or topology asks for one, or an earlier pass may have created one. */
  readonly machineHealthChecks: boolean;
  /** MachinePools: the topology has some, or an earlier pass may have created one. */
  readonly machinePools: boolean;
  /**
   * The pass will list the topology's MachineDeployment templates anyway (to find unused ones): the templates the
   * MachineDeployments and the control plane reference are then taken from those LISTs instead of one GET each.
   */
  readonly listsTemplates?: boolean;
  /**
   * `Kind namespace/name` of the owned objects the last pass that succeeded left (its no-change record), when the
   * runtime trusts it: the MachineDeployments and MachinePools are then read by name (one-seat GETs) instead of
   * label-selected LISTs, which flow control charges by the kind's size. Undefined: list them.
   */
  readonly recordedNames?: ReadonlySet<string> | undefined;
};

const readEverything: CurrentStateReads = { machineHealthChecks: true, machinePools: true, listsTemplates: true };

/** The kinds a Cluster without references would create (from the class's templates), to find earlier attempts. */
export type UnreferencedKinds = {
  readonly infrastructureCluster?: { readonly apiVersion: string; readonly kind: string } | undefined;
  readonly controlPlane?: { readonly apiVersion: string; readonly kind: string } | undefined;
};

/** The kinds of InfrastructureCluster and ControlPlane the class's templates make (a template's kind minus "Template"). */
export function computeUnreferencedKinds(blueprint: Blueprint): UnreferencedKinds {
  const kindOf = (template: Unstructured) => ({
    apiVersion: template.apiVersion,
    kind: template.kind.replace(/Template$/, ''),
  });
  return {
    infrastructureCluster: kindOf(blueprint.infrastructureClusterTemplate),
    controlPlane: kindOf(blueprint.controlPlaneTemplate),
  };
}

/**
 * The Cluster's shim Secret (`<cluster>-shim`), when it exists and the Cluster owns it: read only while the Cluster does
 * not reference both its InfrastructureCluster and ControlPlane, or one of them is missing (the pass may create one).
 */
async function getClusterShim(reader: TopologyReader, cluster: Cluster): Promise<Unstructured | undefined> {
  const shim = await reader.get({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: cluster.metadata.namespace ?? '',
    name: computeClusterShimName(cluster.metadata.name ?? ''),
  });
  const ownedByCluster = (shim?.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'Cluster' && r.uid === cluster.metadata.uid,
  );
  return shim && ownedByCluster && shim.metadata.deletionTimestamp === undefined ? shim : undefined;
}

/**
 * The oldest live object of `kind` with the topology's labels that the Cluster's shim owns (or, created by an earlier
 * version of the pass, the Cluster itself): one an earlier pass created before it failed to write the Cluster's
 * reference and died before its cleanup. Upstream would create another and leave this one to be collected with the
 * shim; reusing it creates one set, not two.
 */
async function getUnreferenced(
  reader: TopologyReader,
  cluster: Cluster,
  kind: { readonly apiVersion: string; readonly kind: string } | undefined,
  owned: Readonly<Record<string, string>>,
  shim: Unstructured | undefined,
): Promise<Unstructured | undefined> {
  if (!kind) return undefined;
  const owners = new Set([cluster.metadata.uid, shim?.metadata.uid].filter((uid) => uid !== undefined && uid !== ''));
  const candidates = (
    await reader.list({ ...kind, namespace: cluster.metadata.namespace ?? '', matchLabels: owned })
  ).filter(
    (o) =>
      o.metadata.deletionTimestamp === undefined &&
      (o.metadata.ownerReferences ?? []).some(
        (r) => (r.kind === 'Cluster' || isShimOwnerRef(r, cluster.metadata.name ?? '')) && owners.has(r.uid),
      ),
  );
  const key = (o: Unstructured) => `${o.metadata.creationTimestamp ?? ''}/${o.metadata.name ?? ''}`;
  return candidates.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))[0];
}

type Lookup = { readonly reader: TopologyReader; readonly contracts: ContractResolver };

/** The names `recorded` holds for objects of `kind` in `namespace` (keys `Kind namespace/name`), sorted. */
export function computeRecordedNamesOf(
  recorded: ReadonlySet<string>,
  kind: string,
  namespace: string,
): readonly string[] {
  const prefix = `${kind} ${namespace}/`;
  return [...recorded]
    .filter((key) => key.startsWith(prefix))
    .map((key) => key.slice(prefix.length))
    .sort();
}

/**
 * The Cluster's own objects of a kind a LIST with `owned` labels would return: read by name when `recorded` names
 * them (objects without the labels left out, as the LIST would), listed when there is no record or a recorded one is
 * gone (it was deleted, or renamed by someone else: the LIST finds what is there instead).
 */
async function listOwned(
  reader: TopologyReader,
  kind: { readonly apiVersion: string; readonly kind: string },
  namespace: string,
  owned: Readonly<Record<string, string>>,
  recorded: ReadonlySet<string> | undefined,
): Promise<Unstructured[]> {
  const list = () => reader.list({ ...kind, namespace, matchLabels: owned });
  if (recorded === undefined) return list();
  const found = await Promise.all(
    computeRecordedNamesOf(recorded, kind.kind, namespace).map((name) => reader.get({ ...kind, namespace, name })),
  );
  if (found.some((o) => o === undefined)) return list();
  return (found as Unstructured[]).filter((o) => Object.entries(owned).every(([k, v]) => o.metadata.labels?.[k] === v));
}

/**
 * The object a reference points at: a ContractVersionedObjectReference (apiGroup/kind/name, read with the API version
 * its CRD's contract label names) or a v1beta1 ObjectReference (apiVersion/kind/name, in a v1beta1 ControlPlane).
 */
async function getRef(
  { reader, contracts }: Lookup,
  ref: Partial<ContractVersionedObjectReference> | ObjectReference | undefined,
  namespace: string,
  matchLabels?: Readonly<Record<string, string>>,
): Promise<Unstructured | undefined> {
  if (!ref?.kind || !ref.name) return undefined;
  let apiVersion: string | undefined;
  if ('apiVersion' in ref && ref.apiVersion) apiVersion = ref.apiVersion;
  else if ('apiGroup' in ref && ref.apiGroup) apiVersion = await contracts.apiVersionOf(ref.apiGroup, ref.kind);
  if (!apiVersion) return undefined;
  return reader.get({
    apiVersion,
    kind: ref.kind,
    namespace: ('namespace' in ref && ref.namespace) || namespace,
    name: ref.name,
    matchLabels,
  });
}

async function getOwnedHealthCheck(
  reader: TopologyReader,
  namespace: string,
  name: string,
  owned: Readonly<Record<string, string>>,
): Promise<MachineHealthCheck | undefined> {
  // NOTE: a health check has its owner's name (upstream reads it by name too); only one carrying the topology's
  // labels is the topology's (upstream checks the owned label).
  const raw = await reader.get({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineHealthCheck', namespace, name });
  if (!raw || !Object.entries(owned).every(([k, v]) => raw.metadata.labels?.[k] === v)) return undefined;
  return parseObject(MachineHealthCheck, 'MachineHealthCheck', raw);
}

/**
 * True when some Machine selected by the MachineDeployment runs another version, by its spec or by its Node's kubelet
 * (upstream MachineDeployments.Upgrading, check.IsMachineDeploymentUpgrading). The Cluster's Machines are listed once
 * (by cluster name) and every MachineDeployment's selector is matched in memory.
 */
async function getMachineDeploymentUpgrading(
  reader: TopologyReader,
  md: MachineDeployment,
  clusterName: string,
): Promise<boolean> {
  if (!md.spec.template.spec.version) return false;
  await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    namespace: md.metadata.namespace ?? '',
    matchLabels: { [ClusterNameLabel]: clusterName },
  });
  const machines = await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    namespace: md.metadata.namespace ?? '',
    matchLabels: { [ClusterNameLabel]: clusterName, ...(md.spec.selector.matchLabels ?? {}) },
  });
  // NOTE: a Machine without a version fails upstream's pass; it counts as upgrading here, as before, so the pass
  // waits for it rather than failing.
  return isMachineDeploymentUpgrading(md as unknown as Unstructured, machines) !== false;
}

/** The control plane (referenced, or one an earlier pass left unreferenced), its contract, machine template and health check. */
async function getControlPlaneState(
  lookup: Lookup,
  cluster: Cluster,
  reads: CurrentStateReads,
  unreferenced: UnreferencedKinds,
  owned: Readonly<Record<string, string>>,
  templateLabels: Readonly<Record<string, string>> | undefined,
  clusterShim: Unstructured | undefined,
): Promise<NonNullable<CurrentState['controlPlane']>> {
  const { reader, contracts } = lookup;
  const namespace = cluster.metadata.namespace ?? '';
  const cpObject = cluster.spec?.controlPlaneRef?.name
    ? await getRef(lookup, cluster.spec.controlPlaneRef, namespace)
    : await getUnreferenced(reader, cluster, unreferenced.controlPlane, owned, clusterShim);
  const cpContract: ContractVersion | undefined = cpObject
    ? await contracts.contractOf(cpObject.apiVersion, cpObject.kind)
    : undefined;
  const cpMachineTemplate =
    cpObject && cpContract
      ? await getRef(
          lookup,
          getPath(cpObject, controlPlaneContractPaths(cpContract).machineTemplateInfrastructureRef) as
            ObjectReference | ContractVersionedObjectReference | undefined,
          namespace,
          templateLabels,
        )
      : undefined;
  const cpHealthCheck =
    cpObject && reads.machineHealthChecks
      ? await getOwnedHealthCheck(reader, namespace, cpObject.metadata.name ?? '', owned)
      : undefined;
  return {
    object: cpObject,
    contract: cpContract,
    infrastructureMachineTemplate: cpMachineTemplate,
    machineHealthCheck: cpHealthCheck,
  };
}

/**
 * The current state of a Cluster's managed topology.
 *
 * @example
 * const current = await getCurrentState(reader, cluster);
 */
export async function getCurrentState(
  reader: TopologyReader,
  contracts: ContractResolver,
  cluster: Cluster,
  reads: CurrentStateReads = readEverything,
  unreferenced: UnreferencedKinds = {},
): Promise<CurrentState> {
  const lookup: Lookup = { reader, contracts };
  const namespace = cluster.metadata.namespace ?? '';
  const clusterName = cluster.metadata.name ?? '';
  const owned = { [ClusterNameLabel]: clusterName, [ClusterTopologyOwnedLabel]: '' };
  // NOTE: with matchLabels the reader answers from the LIST of the kind that the unused-template discovery sends too.
  const templateLabels = reads.listsTemplates === true ? owned : undefined;
  // NOTE: the InfrastructureCluster, the control plane (with what it references) and the worker LISTs do not depend
  // on one another: read at once, as a new Cluster's first pass waits for them before BeforeClusterCreate.
  const referencesBoth = Boolean(cluster.spec?.infrastructureRef?.name && cluster.spec.controlPlaneRef?.name);
  let clusterShim = referencesBoth ? undefined : await getClusterShim(reader, cluster);
  const [infrastructureCluster, controlPlane, mdItems, mpItems] = await Promise.all([
    cluster.spec?.infrastructureRef?.name
      ? getRef(lookup, cluster.spec.infrastructureRef, namespace)
      : getUnreferenced(reader, cluster, unreferenced.infrastructureCluster, owned, clusterShim),
    getControlPlaneState(lookup, cluster, reads, unreferenced, owned, templateLabels, clusterShim),
    listOwned(
      reader,
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineDeployment' },
      namespace,
      owned,
      reads.recordedNames,
    ),
    reads.machinePools
      ? listOwned(
          reader,
          { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachinePool' },
          namespace,
          owned,
          reads.recordedNames,
        )
      : [],
  ]);
  // NOTE: a referenced object that is gone is created again, owned by the shim.
  if (referencesBoth && (!infrastructureCluster || !controlPlane.object))
    clusterShim = await getClusterShim(reader, cluster);
  const mds = mdItems.map((raw) => parseObject(MachineDeployment, 'MachineDeployment', raw));
  const mps = mpItems.map((raw) => parseObject(MachinePool, 'MachinePool', raw));
  // NOTE: the Machines are read in every pass that has MachineDeployments (one LIST), even when every spec version
  // matches the topology's: an in-place upgrade changes the Machines' spec.version at once and their kubelets later.
  const machineDeployments: Record<string, MachineDeploymentState> = {};
  for (const md of mds) {
    const topologyName = md.metadata.labels?.[ClusterTopologyMachineDeploymentNameLabel];
    if (!topologyName) continue;
    machineDeployments[topologyName] = {
      object: md,
      bootstrapTemplate: await getRef(lookup, md.spec.template.spec.bootstrap.configRef, namespace, templateLabels),
      infrastructureMachineTemplate: await getRef(
        lookup,
        md.spec.template.spec.infrastructureRef,
        namespace,
        templateLabels,
      ),
      machineHealthCheck: reads.machineHealthChecks
        ? await getOwnedHealthCheck(reader, namespace, md.metadata.name ?? '', owned)
        : undefined,
      upgrading: await getMachineDeploymentUpgrading(reader, md, clusterName),
    };
  }
  const machinePools: Record<string, MachinePoolState> = {};
  for (const mp of mps) {
    const topologyName = mp.metadata.labels?.[ClusterTopologyMachinePoolNameLabel];
    if (!topologyName) continue;
    // NOTE: upstream asks the workload cluster's Nodes whether a MachinePool is upgrading; we compare the pool's
    // status with its spec instead, so a pass never talks to workload clusters.
    const upgrading = (mp.status?.readyReplicas ?? 0) !== (mp.status?.replicas ?? 0);
    machinePools[topologyName] = {
      object: mp,
      bootstrapObject: await getRef(lookup, mp.spec.template.spec.bootstrap.configRef, namespace),
      infrastructureMachinePoolObject: await getRef(lookup, mp.spec.template.spec.infrastructureRef, namespace),
      upgrading,
    };
  }
  return {
    cluster,
    ...(clusterShim ? { clusterShim } : {}),
    infrastructureCluster,
    controlPlane,
    machineDeployments,
    machinePools,
  };
}
