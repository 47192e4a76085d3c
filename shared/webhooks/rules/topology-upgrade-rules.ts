// upstream's live-object checks of a topology version change (validateTopologyControlPlaneVersion and
// validateTopologyMachineDeploymentVersions): the old version has reached the control plane and every topology
// MachineDeployment, and none of them is still upgrading. Pure: the webhook reader fetches the objects.
// validateTopologyMachinePoolVersions: MachinePools as well, by the kubelet versions of their Nodes, which the reader
// reads from the workload cluster as upstream does.
import { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';
import { isMachineDeploymentUpgrading } from '#shared/topology/contract/machine-deployment-state.ts';
import { isControlPlaneProvisioning, isControlPlaneUpgrading } from '#shared/topology/contract/control-plane-state.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import { formatVersion, parseVersionTolerant, type Version } from '#shared/lang/semver/semver.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';

/** The live objects of a Cluster whose topology version changes, as the webhook reader found them. */
export type TopologyUpgradeState = {
  /** The old Cluster's control plane, or why it could not be read (upstream's wording). */
  readonly controlPlane: { readonly object: Unstructured } | { readonly error: string };
  /** The topology-owned MachineDeployments of the Cluster, each with the Machines its selector matches. */
  readonly machineDeployments: readonly { readonly object: Unstructured; readonly machines: readonly Unstructured[] }[];
  /**
   * The topology-owned MachinePools of the Cluster, each with the kubelet version of every Node in its
   * `status.nodeRefs` (read from the workload cluster), or why they could not be read (upstream's wording). Absent: none.
   */
  readonly machinePools?: readonly MachinePoolUpgradeState[] | { readonly error: string } | undefined;
};

/** One MachinePool and its Nodes' kubelet versions, or the upstream error for a Node that could not be read. */
export type MachinePoolUpgradeState = {
  readonly object: Unstructured;
  readonly nodes: readonly { readonly name: string; readonly kubeletVersion: string }[] | { readonly error: string };
};

const text = (obj: Unstructured, path: readonly string[]): string | undefined => {
  const v = getPath(obj, path);
  return typeof v === 'string' ? v : undefined;
};

function checkControlPlane(state: TopologyUpgradeState['controlPlane'], oldVersion: Version): string | undefined {
  if ('error' in state) return state.error;
  const cp = state.object;
  const raw = text(cp, controlPlaneContract.version);
  if (raw === undefined)
    return 'failed to check if control plane is upgrading: failed to get control plane version: path spec.version not found';
  const cpVersion = parseVersionTolerant(raw);
  if (!cpVersion) return `failed to check if control plane is upgrading: failed to parse control plane version ${raw}`;
  const old = formatVersion(oldVersion);
  if (formatVersion(cpVersion) !== old)
    return `Cluster.spec.topology.version ${old} was not propagated to control plane yet (control plane version ${formatVersion(cpVersion)})`;
  if (isControlPlaneProvisioning(cp)) return 'control plane is currently provisioning';
  if (isControlPlaneUpgrading(cp)) return 'control plane is still completing a previous upgrade';
  return undefined;
}

function checkMachineDeployments(
  mds: TopologyUpgradeState['machineDeployments'],
  oldVersion: Version,
): string | undefined {
  const upgrading: string[] = [];
  for (const { object: md, machines } of mds) {
    const name = md.metadata.name ?? '';
    const raw = text(md, ['spec', 'template', 'spec', 'version']) ?? '';
    const version = parseVersionTolerant(raw);
    if (!version) return `failed to check if MachineDeployment ${name} is upgrading: failed to parse version ${raw}`;
    if (formatVersion(version) !== formatVersion(oldVersion)) {
      upgrading.push(name);
      continue;
    }
    const result = isMachineDeploymentUpgrading(md, machines);
    if (typeof result === 'string') return result;
    if (result) upgrading.push(name);
  }
  return upgrading.length > 0
    ? `there are still MachineDeployments completing a previous upgrade: [${upgrading.join(', ')}]`
    : undefined;
}

/**
 * upstream check.IsMachinePoolUpgrading: a Node of the MachinePool (its `status.nodeRefs`) runs another kubelet
 * version; false when the MachinePool has no version.
 *
 * @example
 * isMachinePoolUpgrading(mp, [{ name: 'n1', kubeletVersion: 'v1.29.0' }]); // true for a v1.30.0 pool
 */
export function isMachinePoolUpgrading(mp: Unstructured, nodes: MachinePoolUpgradeState['nodes']): boolean | string {
  const version = text(mp, ['spec', 'template', 'spec', 'version']) ?? '';
  if (version === '') return false;
  if ('error' in nodes) return nodes.error;
  return nodes.some((node) => node.kubeletVersion !== version);
}

function checkMachinePools(mps: TopologyUpgradeState['machinePools'], oldVersion: Version): string | undefined {
  if (mps === undefined) return undefined;
  if ('error' in mps) return mps.error;
  const upgrading: string[] = [];
  for (const { object: mp, nodes } of mps) {
    const name = mp.metadata.name ?? '';
    const raw = text(mp, ['spec', 'template', 'spec', 'version']) ?? '';
    const version = parseVersionTolerant(raw);
    if (!version) return `failed to check if MachinePool ${name} is upgrading: failed to parse version ${raw}`;
    if (formatVersion(version) !== formatVersion(oldVersion)) {
      upgrading.push(name);
      continue;
    }
    const result = isMachinePoolUpgrading(mp, nodes);
    if (typeof result === 'string') return result;
    if (result) upgrading.push(name);
  }
  return upgrading.length > 0
    ? `there are still MachinePools completing a previous upgrade: [${upgrading.join(', ')}]`
    : undefined;
}

/** kerrors.NewAggregate(...).Error(): one message alone, several (deduplicated) as `[a, b]`. */
function formatAggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/**
 * The live-object part of upstream validateTopologyVersionUpdate, for a version that changes from `oldVersion` to
 * `newVersion` (as written in the Cluster): one Invalid error aggregating every finding, or none.
 *
 * @example
 * validateTopologyUpgradeState(parseVersionTolerant('v1.30.0')!, 'v1.31.0', state);
 * // [{ field: 'spec.topology.version', detail: 'version cannot be changed: control plane is currently provisioning' }]
 */
export function validateTopologyUpgradeState(
  oldVersion: Version,
  newVersion: string,
  state: TopologyUpgradeState,
): FieldError[] {
  const messages = [
    checkControlPlane(state.controlPlane, oldVersion),
    checkMachineDeployments(state.machineDeployments, oldVersion),
    checkMachinePools(state.machinePools, oldVersion),
  ].filter((m): m is string => m !== undefined);
  if (messages.length === 0) return [];
  return [
    {
      type: 'Invalid',
      field: 'spec.topology.version',
      badValue: newVersion,
      detail: `version cannot be changed: ${formatAggregate(messages)}`,
    },
  ];
}
