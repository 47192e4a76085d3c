// How a topology pass ended, as data (pure): the Cluster's TopologyReconciled condition with upstream's reasons and
// messages, the merged condition list, and the pass outcome the runtime records.
import type { NoChangeRecord } from '#shared/topology/apply/apply-proofs.ts';
import type { Condition } from '#shared/api/condition.ts';
import type { UpgradeSummary, WorkerUpgradeSummary } from '#shared/topology/types.ts';

export const TopologyReconciledCondition = 'TopologyReconciled';

/** Reasons of TopologyReconciled, exactly as upstream's condition_consts.go. */
export const TopologyReconciledReason = {
  Deleted: 'Deleted',
  ReconcileFailed: 'TopologyReconcileFailed',
  ClusterClassNotReconciled: 'ClusterClassNotReconciled',
  ControlPlaneUpgradePending: 'ControlPlaneUpgradePending',
  MachineDeploymentsUpgradePending: 'MachineDeploymentsUpgradePending',
  MachineDeploymentsCreatePending: 'MachineDeploymentsCreatePending',
  MachineDeploymentsUpgradeDeferred: 'MachineDeploymentsUpgradeDeferred',
  MachinePoolsUpgradePending: 'MachinePoolsUpgradePending',
  MachinePoolsCreatePending: 'MachinePoolsCreatePending',
  MachinePoolsUpgradeDeferred: 'MachinePoolsUpgradeDeferred',
} as const;
export type TopologyReconciledReason = (typeof TopologyReconciledReason)[keyof typeof TopologyReconciledReason];

/** A condition without its transition time. */
export type ConditionState = Omit<Condition, 'lastTransitionTime'>;

export type PassState =
  | { readonly kind: 'Deleted' }
  | { readonly kind: 'Failed'; readonly message: string }
  /** `failure`: why the class's own pass failed (its VariablesReconciled message), when it says. */
  | { readonly kind: 'ClusterClassNotReconciled'; readonly failure?: string | undefined }
  | {
      readonly kind: 'Reconciled';
      /** The topology version. */
      readonly version: string;
      readonly upgrade: UpgradeSummary;
      /** spec.version of the ControlPlane as read in this pass, for "is upgrading to version …". */
      readonly controlPlaneVersion?: string | undefined;
    };

/** How a pass ended, as the runtime's PassOutcome. */
export type TopologyOutcome = {
  readonly result: 'Success' | 'Requeue' | 'Error';
  readonly requeueAfterMs?: number;
  readonly changed: readonly string[];
  readonly error?: string;
  /** What this pass applied, for the next pass to skip dry runs of objects still unchanged. */
  readonly noChange?: NoChangeRecord;
};

const classNotReconciledMessage =
  'ClusterClass not reconciled. If this condition persists please check ClusterClass status. A ClusterClass is ' +
  'reconciled if.status.observedGeneration == .metadata.generation is true. If this is not the case either ' +
  'ClusterClass reconciliation failed or the ClusterClass is paused';

/** At most 5 names, then `...` (upstream computeNameList). */
function nameList(names: readonly string[]): string {
  return (names.length > 5 ? [...names.slice(0, 5), '...'] : names).join(', ');
}

const anyPending = (w: WorkerUpgradeSummary) =>
  w.pendingUpgrade.length > 0 || w.pendingCreate.length > 0 || w.deferredUpgrade.length > 0;

function computeHoldCondition(state: Extract<PassState, { kind: 'Reconciled' }>): ConditionState | undefined {
  const { upgrade, version } = state;
  const md = upgrade.machineDeployments;
  const mp = upgrade.machinePools;
  if (!upgrade.controlPlane.isPendingUpgrade && !anyPending(md) && !anyPending(mp)) return undefined;
  let reason: TopologyReconciledReason;
  let message: string;
  if (upgrade.controlPlane.isPendingUpgrade) {
    reason = TopologyReconciledReason.ControlPlaneUpgradePending;
    message = `Control plane rollout and upgrade to version ${version} on hold.`;
  } else if (md.pendingUpgrade.length > 0) {
    reason = TopologyReconciledReason.MachineDeploymentsUpgradePending;
    message = `MachineDeployment(s) ${nameList(md.pendingUpgrade)} rollout and upgrade to version ${version} on hold.`;
  } else if (md.pendingCreate.length > 0) {
    reason = TopologyReconciledReason.MachineDeploymentsCreatePending;
    message = `MachineDeployment(s) for Topologies ${nameList(md.pendingCreate)} creation on hold.`;
  } else if (md.deferredUpgrade.length > 0) {
    reason = TopologyReconciledReason.MachineDeploymentsUpgradeDeferred;
    message = `MachineDeployment(s) ${nameList(md.deferredUpgrade)} rollout and upgrade to version ${version} deferred.`;
  } else if (mp.pendingUpgrade.length > 0) {
    reason = TopologyReconciledReason.MachinePoolsUpgradePending;
    message = `MachinePool(s) ${nameList(mp.pendingUpgrade)} rollout and upgrade to version ${version} on hold.`;
  } else if (mp.pendingCreate.length > 0) {
    reason = TopologyReconciledReason.MachinePoolsCreatePending;
    message = `MachinePool(s) for Topologies ${nameList(mp.pendingCreate)} creation on hold.`;
  } else {
    reason = TopologyReconciledReason.MachinePoolsUpgradeDeferred;
    message = `MachinePool(s) ${nameList(mp.deferredUpgrade)} rollout and upgrade to version ${version} deferred.`;
  }
  const cp = upgrade.controlPlane;
  if (cp.isProvisioning) message += ' Control plane is completing initial provisioning';
  else if (cp.isUpgrading) message += ` Control plane is upgrading to version ${state.controlPlaneVersion ?? ''}`;
  else if (cp.isScaling) message += ' Control plane is reconciling desired replicas';
  else if (md.upgrading.length > 0) message += ` MachineDeployment(s) ${nameList(md.upgrading)} are upgrading`;
  else if (mp.upgrading.length > 0) message += ` MachinePool(s) ${nameList(mp.upgrading)} are upgrading`;
  return { type: TopologyReconciledCondition, status: 'False', reason, severity: 'Info', message };
}

/**
 * The TopologyReconciled condition for how the pass went (upstream reconcileTopologyReconciledCondition).
 *
 * @example
 * computeTopologyReconciledCondition({ kind: 'Failed', message: 'failed to create DockerCluster…' });
 * // { type: 'TopologyReconciled', status: 'False', reason: 'TopologyReconcileFailed', severity: 'Error', message: … }
 */
export function computeTopologyReconciledCondition(state: PassState): ConditionState {
  const type = TopologyReconciledCondition;
  switch (state.kind) {
    case 'Deleted':
      return { type, status: 'False', reason: TopologyReconciledReason.Deleted, severity: 'Info' };
    case 'Failed':
      return {
        type,
        status: 'False',
        reason: TopologyReconciledReason.ReconcileFailed,
        severity: 'Error',
        message: state.message,
      };
    case 'ClusterClassNotReconciled':
      return {
        type,
        status: 'False',
        reason: TopologyReconciledReason.ClusterClassNotReconciled,
        severity: state.failure === undefined ? 'Info' : 'Error',
        message:
          state.failure === undefined ? classNotReconciledMessage : `${classNotReconciledMessage}: ${state.failure}`,
      };
    case 'Reconciled':
      return computeHoldCondition(state) ?? { type, status: 'True' };
  }
}

const sameState = (a: Condition, b: ConditionState) =>
  a.status === b.status &&
  (a.reason ?? '') === (b.reason ?? '') &&
  (a.severity ?? '') === (b.severity ?? '') &&
  (a.message ?? '') === (b.message ?? '');

/** Kubernetes' RFC 3339 form with second precision. */
export function formatConditionTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `conditions` with `next` set (upstream conditions.Set): the transition time kept unless the status changes,
 * sorted with Ready first then by type; `changed` is false when nothing but order would differ.
 */
export function computeConditions(
  conditions: readonly Condition[] | undefined,
  next: ConditionState,
  now: Date,
): { readonly conditions: Condition[]; readonly changed: boolean } {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === next.type);
  if (existing && sameState(existing, next)) return { conditions: [...list], changed: false };
  const lastTransitionTime =
    existing && existing.status === next.status && existing.lastTransitionTime
      ? existing.lastTransitionTime
      : formatConditionTime(now);
  const condition: Condition = {
    type: next.type,
    status: next.status,
    ...(next.severity ? { severity: next.severity } : {}),
    lastTransitionTime,
    ...(next.reason ? { reason: next.reason } : {}),
    ...(next.message ? { message: next.message } : {}),
  };
  const merged = [...list.filter((c) => c.type !== next.type), condition];
  merged.sort((a, b) => (a.type === 'Ready' ? -1 : b.type === 'Ready' ? 1 : a.type.localeCompare(b.type)));
  return { conditions: merged, changed: true };
}

/** While an upgrade or creation waits, look again this soon even if no event arrives. */
export const upgradeRequeueMs = 30_000;
/** A ClusterClass not reconciled yet: its own pass is due; look again shortly. */
export const classRequeueMs = 10_000;

/**
 * The pass outcome for a state and what the pass wrote.
 *
 * @example
 * computeOutcome({ kind: 'Failed', message: 'boom' }, []); // { result: 'Error', changed: [], error: 'boom' }
 */
export function computeOutcome(state: PassState, changed: readonly string[]): TopologyOutcome {
  switch (state.kind) {
    case 'Failed':
      return { result: 'Error', changed, error: state.message };
    case 'ClusterClassNotReconciled':
      // A class that failed its own pass will not get better by asking every 10 s: back off until it changes.
      if (state.failure !== undefined) return { result: 'Error', changed, error: state.failure };
      return { result: 'Requeue', requeueAfterMs: classRequeueMs, changed };
    case 'Deleted':
      return { result: 'Success', changed };
    case 'Reconciled': {
      const { machineDeployments: md, machinePools: mp, controlPlane: cp } = state.upgrade;
      const waiting =
        cp.isPendingUpgrade ||
        md.pendingUpgrade.length > md.deferredUpgrade.length ||
        mp.pendingUpgrade.length > mp.deferredUpgrade.length ||
        md.pendingCreate.length > 0 ||
        mp.pendingCreate.length > 0;
      return waiting
        ? { result: 'Requeue', requeueAfterMs: upgradeRequeueMs, changed }
        : { result: 'Success', changed };
    }
  }
}
