// upstream's live-object checks of a topology version change (validateTopologyControlPlaneVersion and
// validateTopologyMachineDeploymentVersions): the old version has reached the control plane and every topology
// MachineDeployment, and none of them is still upgrading. Pure: the webhook reader fetches the objects.
// NOTE: MachinePools are not checked (upstream reads the workload cluster's Nodes for them).
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
