// What a waiting topology pass decides from the status of a control plane or worker set it owns, as a few values that
// change only when the decision can: the pass's own predicates (upstream's contract IsProvisioning, IsUpgrading,
// IsScaling), not the replica counters they are computed from. While a Cluster upgrades, its control plane's and
// workers' counters move dozens of times (a surge Machine created, ready, available, the old one drained, deleted);
// the decision moves once per step. Pure.
import type { KubeObject } from '#shared/kube/objects.ts';
import {
  isControlPlaneProvisioning,
  isControlPlaneScaling,
  isControlPlaneUpgrading,
} from '#shared/topology/contract/control-plane-state.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** Which owned object a topology-owned object is, by its kind and group. */
export type OwnedRole = 'controlPlane' | 'machineDeployment' | 'machinePool' | 'other';

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

/**
 * The role of a topology-owned object: the core worker kinds by name, a control plane by its `controlplane.*` group
 * (as the forwarder discovers control-plane kinds), anything else (an InfrastructureCluster) `other`.
 *
 * @example
 * computeOwnedRole({ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', metadata: {} }); // 'controlPlane'
 */
export function computeOwnedRole(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): OwnedRole {
  const group = groupOf(obj.apiVersion) ?? '';
  if (group === 'cluster.x-k8s.io' && obj.kind === 'MachineDeployment') return 'machineDeployment';
  if (group === 'cluster.x-k8s.io' && obj.kind === 'MachinePool') return 'machinePool';
  if (group.startsWith('controlplane.')) return 'controlPlane';
  return 'other';
}

/** Status fields (paths under `status`) kept as they are for an object of no known role (an InfrastructureCluster). */
const otherStatusPaths = [
  ['observedGeneration'],
  ['version'],
  ['replicas'],
  ['readyReplicas'],
  ['availableReplicas'],
  ['upToDateReplicas'],
  ['updatedReplicas'],
  ['unavailableReplicas'],
  ['initialized'],
  ['initialization'],
  ['phase'],
] as const;

function valueAt(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const segment of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}

const flag = (v: boolean) => (v ? '1' : '0');
const encode = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));

const statusOf = (obj: KubeObject & { status?: unknown }) => (obj.status ?? {}) as Record<string, unknown>;

/**
 * A MachineDeployment's rollout is done: its controller observed the current generation and every Machine it reports
 * is up to date (`status.replicas` = `upToDateReplicas`, and = the v1beta1 `updatedReplicas` while it is reported,
 * which the controller recomputes at once when the template changes, where `upToDateReplicas` follows the Machines'
 * conditions a moment later). The pass decides from the Machines' versions, and an old Machine leaves
 * `status.replicas` only once it is gone, so its answer can change only as this flips.
 */
function isMachineDeploymentRolledOut(obj: KubeObject & { status?: unknown }): boolean {
  const status = statusOf(obj);
  if (status['observedGeneration'] !== obj.metadata.generation) return false;
  const replicas = status['replicas'];
  if (typeof replicas !== 'number' || status['upToDateReplicas'] !== replicas) return false;
  const updated = valueAt(status, ['deprecated', 'v1beta1', 'updatedReplicas']);
  return updated === undefined || updated === replicas;
}

/**
 * A MachinePool's status has caught up: its controller observed the current generation and `readyReplicas` equals
 * `replicas` (what the pass reads to tell whether it is upgrading).
 */
function isMachinePoolRolledOut(obj: KubeObject & { status?: unknown }): boolean {
  const status = statusOf(obj);
  if (status['observedGeneration'] !== obj.metadata.generation) return false;
  return (status['readyReplicas'] ?? 0) === (status['replicas'] ?? 0);
}

/**
 * The values a waiting topology pass decides on, in a fixed order per role:
 * - control plane: provisioning, upgrading, and (only when neither: the pass reads it only then) scaling under the
 *   v1beta2 and the v1beta1 contract (the forwarder does not read the CRD's contract label, so both);
 * - MachineDeployment: rolled out (observed generation current, every reported replica up to date);
 * - MachinePool: rolled out (observed generation current, `readyReplicas` = `replicas`, what the pass reads);
 * - other: the status fields themselves (observed generation, version, replica counters, initialization, phase).
 *
 * @example
 * computeOwnedGates(kcpUpgradingWithTwoReadyReplicas); // ['provisioning=0', 'upgrading=1', 'scaling=-']
 * computeOwnedGates(kcpUpgradingWithOneReadyReplica); // the same: nothing the pass decides on changed
 */
export function computeOwnedGates(obj: KubeObject & { spec?: unknown; status?: unknown }): readonly string[] {
  switch (computeOwnedRole(obj)) {
    case 'controlPlane': {
      const cp = obj as unknown as Unstructured;
      const provisioning = isControlPlaneProvisioning(cp);
      const upgrading = isControlPlaneUpgrading(cp);
      const scaling =
        provisioning || upgrading
          ? '-'
          : `${flag(isControlPlaneScaling(cp, 'v1beta2'))}${flag(isControlPlaneScaling(cp, 'v1beta1'))}`;
      return [`provisioning=${flag(provisioning)}`, `upgrading=${flag(upgrading)}`, `scaling=${scaling}`];
    }
    case 'machineDeployment':
      return [`rolledOut=${flag(isMachineDeploymentRolledOut(obj))}`];
    case 'machinePool':
      return [`rolledOut=${flag(isMachinePoolRolledOut(obj))}`];
    case 'other':
      return otherStatusPaths.map((path) => encode(valueAt(obj.status, path)));
  }
}
