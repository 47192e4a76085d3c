// How a topology pass ended, as data (pure): the Cluster's TopologyReconciled condition with upstream's reasons and
// messages, the merged condition list, and the pass outcome the runtime records.
import type { AppliedGenerations, NoChangeRecord } from '#shared/topology/apply/apply-proofs.ts';
import type { Condition as V1Beta1Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import { ClusterTopologyReconciled } from '#shared/api/core/v1beta2/conditions.ts';
import {
  computeAggregateRetryAfter,
  computeBlockingHooksMessage,
  type HookAnswer,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import type { ComputedUpgradePlans, UpgradeSummary, WorkerUpgradeSummary } from '#shared/topology/types.ts';

export const TopologyReconciledCondition = 'TopologyReconciled';

/** Reasons of the v1beta2 TopologyReconciled condition (upstream core/v1beta2 cluster_types.go). */
export const TopologyReconciledReason = ClusterTopologyReconciled.reasons;
export type TopologyReconciledReason = (typeof TopologyReconciledReason)[keyof typeof TopologyReconciledReason];

/** Reasons of the v1beta1 condition upstream keeps in `status.deprecated.v1beta1.conditions`. */
export const TopologyReconciledV1Beta1Reason = {
  ReconcileFailed: 'TopologyReconcileFailed',
  Deleting: 'Deleting',
  ClusterClassNotReconciled: 'ClusterClassNotReconciled',
  Paused: 'Paused',
  ClusterUpgrading: 'ClusterUpgrading',
  ClusterCreating: 'ClusterCreating',
  MachineDeploymentsUpgradeDeferred: 'MachineDeploymentsUpgradeDeferred',
  MachinePoolsUpgradeDeferred: 'MachinePoolsUpgradeDeferred',
} as const;

/** A v1beta2 condition (`metav1.Condition`) without its transition time and observed generation. */
export type ConditionState = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;
/** A v1beta1 condition without its transition time. */
export type V1Beta1ConditionState = Omit<V1Beta1Condition, 'lastTransitionTime'>;
/** A condition as upstream writes it: the v1beta2 one and, when upstream still writes it, its v1beta1 twin. */
export type ConditionPair = { readonly condition: ConditionState; readonly v1beta1?: V1Beta1ConditionState };

/** Answers of the lifecycle hooks a pass called (upstream's HookResponseTracker), in hook-name order. */
export type TrackedHooks = readonly { readonly hook: string; readonly answer: HookAnswer }[];

export type PassState =
  /** The Cluster is paused (spec.paused, the paused annotation): `message` says which, as upstream words it. */
  | { readonly kind: 'Paused'; readonly message: string }
  /** `hooks`: the BeforeClusterDelete answer when this pass called it. */
  | { readonly kind: 'Deleted'; readonly hooks?: TrackedHooks | undefined }
  /** `plans`: the upgrade plans when the pass computed them before it failed (upstream writes them to status). */
  | { readonly kind: 'Failed'; readonly message: string; readonly plans?: ComputedUpgradePlans | undefined }
  /**
   * The class's own pass has not reconciled it: `message` as upstream's error words it, `failure` why the class's own
   * pass failed (its VariablesReady message) when it says, `paused` when the class carries the paused annotation (its
   * own pass will not catch up until it is unpaused).
   */
  | {
      readonly kind: 'ClusterClassNotReconciled';
      readonly message: string;
      readonly failure?: string | undefined;
      readonly paused?: boolean;
    }
  /** A lifecycle hook blocks creation: its aggregated answer (upstream's HookResponseTracker for one hook). */
  | {
      readonly kind: 'CreationBlocked';
      readonly hook: string;
      readonly message: string;
      readonly retryAfterSeconds: number;
    }
  | {
      readonly kind: 'Reconciled';
      /** The topology version. */
      readonly version: string;
      readonly upgrade: UpgradeSummary;
      /** spec.version of the desired ControlPlane (after upgrade sequencing). */
      readonly controlPlaneVersion?: string | undefined;
      /** Kind of the ControlPlane, for "KubeadmControlPlane upgrading to version …". */
      readonly controlPlaneKind?: string | undefined;
      /** The Cluster had neither infrastructureRef nor controlPlaneRef when the pass began (topology creation). */
      readonly creating?: boolean;
      /** Unused MachineDeployment templates kept while a MachineSet still references them (deleted by a later pass). */
      readonly heldTemplates?: number;
      /** Objects whose dropped managed fields the pass seeded again before applying (see mitigate-managed-fields.ts). */
      readonly mitigatedManagedFields?: number;
      /**
       * The control plane (`Kind namespace/name`) whose adoption by the core Cluster controller the cluster shim waits
       * for (the InfrastructureCluster is adopted before it, in the same reconcile); undefined when the shim waits for
       * nothing.
       */
      readonly awaitedAdoption?: string | undefined;
      /** Lifecycle hooks called in this pass, and whether AfterClusterUpgrade is still pending after it. */
      readonly hooks?: { readonly tracked: TrackedHooks; readonly afterClusterUpgradePending: boolean } | undefined;
    };

/** How a pass ended, as the runtime's PassOutcome. */
export type TopologyOutcome = {
  readonly result: 'Success' | 'Requeue' | 'Error';
  readonly requeueAfterMs?: number;
  readonly changed: readonly string[];
  readonly error?: string;
  /** What this pass applied, for the next pass to skip dry runs of objects still unchanged. */
  readonly noChange?: NoChangeRecord;
  /** A `Requeue` waiting for the control plane or the workers: their status changes run the next pass. */
  readonly wakeOnOwnedChange?: boolean;
  /**
   * Owned objects whose next change runs the next pass although nothing in the Cluster's facts changes: the control
   * plane while the cluster shim waits for its adoption (upstream's watch of the control plane maps the adoption's
   * new Cluster owner reference to the Cluster).
   */
  readonly wakeOnChangeOf?: readonly string[];
  /** The generation this pass left each object it applied (or found applied) at, keyed `Kind namespace/name`. */
  readonly ownedGenerations?: AppliedGenerations;
  /** The hash of each such object's labels, annotations and managed-fields mark as this pass left it (same keys). */
  readonly ownedMetadata?: Readonly<Record<string, string>>;
  /** The resourceVersion each of this pass's own writes left an object at (a class pass's template owner references). */
  readonly ownWrites?: Readonly<Record<string, string>>;
};

/** `MachineDeployment a` / `MachineDeployments a, b` / `MachineDeployments a, b, c, ... (2 more)` (upstream nameList). */
function nameList(kind: string, kindPlural: string, names: readonly string[]): string {
  const sorted = [...names].sort();
  if (sorted.length === 1) return `${kind} ${sorted[0]}`;
  if (sorted.length <= 3) return `${kindPlural} ${sorted.join(', ')}`;
  return `${kindPlural} ${sorted.slice(0, 3).join(', ')}, ... (${sorted.length - 3} more)`;
}

/** Upgrading, pending and deferred names without overlaps (upstream dedupNames). */
function dedupNames(w: WorkerUpgradeSummary): { upgrading: string[]; pending: string[]; deferred: string[] } {
  const upgrading = new Set(w.upgrading);
  const deferred = new Set(w.deferredUpgrade.filter((n) => !upgrading.has(n)));
  const pending = w.pendingUpgrade.filter((n) => !upgrading.has(n) && !deferred.has(n));
  return { upgrading: [...upgrading], pending: [...new Set(pending)], deferred: [...deferred] };
}

const isUpgradeInProgress = (upgrade: UpgradeSummary) => {
  const { controlPlane: cp, machineDeployments: md, machinePools: mp } = upgrade;
  const any = (w: WorkerUpgradeSummary) =>
    w.pendingUpgrade.length > 0 || w.upgrading.length > 0 || w.deferredUpgrade.length > 0 || w.pendingCreate.length > 0;
  return cp.isPendingUpgrade || cp.isStartingUpgrade || cp.isUpgrading || any(md) || any(mp);
};

/** Upstream pendingVersions: the plan's versions other than `version`, as ` (a, b pending)`. */
function pendingVersions(plan: readonly string[] | undefined, version: string): string {
  const rest = (plan ?? []).filter((v) => v !== version);
  return rest.length > 0 ? ` (${rest.join(', ')} pending)` : '';
}

/** The "Cluster is upgrading" condition (upstream reconcileTopologyReconciledCondition). */
function computeUpgradingCondition(state: Extract<PassState, { kind: 'Reconciled' }>): ConditionPair {
  const { upgrade } = state;
  const cpVersion = state.controlPlaneVersion ?? '';
  const lines = [`Cluster is upgrading to ${state.version}`];
  let reason: TopologyReconciledReason = TopologyReconciledReason.ClusterUpgrading;
  let v1beta1Reason: string = TopologyReconciledV1Beta1Reason.ClusterUpgrading;
  const cp = upgrade.controlPlane;
  // A blocking lifecycle hook is the first detail, and takes precedence over the deferred reasons (upstream).
  const hooksMessage = computeBlockingHooksMessage('upgrade', state.hooks?.tracked ?? []);
  const hookBlocks = hooksMessage !== '';
  if (hookBlocks) lines.push(`  * ${hooksMessage}`);
  const plans = upgrade.plans;
  const cpKind = state.controlPlaneKind ?? 'ControlPlane';
  if (cp.isStartingUpgrade || cp.isUpgrading)
    lines.push(`  * ${cpKind} upgrading to version ${cpVersion}${pendingVersions(plans?.controlPlane, cpVersion)}`);
  else if ((plans?.controlPlane.length ?? 0) > 0)
    lines.push(`  * ${cpKind} pending upgrade to version ${plans?.controlPlane.join(', ') ?? ''}`);
  const md = dedupNames(upgrade.machineDeployments);
  if (md.upgrading.length > 0)
    lines.push(
      `  * ${nameList('MachineDeployment', 'MachineDeployments', md.upgrading)} upgrading to version ${cpVersion}${pendingVersions(plans?.machineDeployments, cpVersion)}`,
    );
  if (md.pending.length > 0 && (plans?.machineDeployments.length ?? 0) > 0)
    lines.push(
      `  * ${nameList('MachineDeployment', 'MachineDeployments', md.pending)} pending upgrade to version ${plans?.machineDeployments.join(', ') ?? ''}`,
    );
  if (md.deferred.length > 0) {
    lines.push(
      `  * ${nameList('MachineDeployment', 'MachineDeployments', md.deferred)} upgrade to version ${cpVersion} deferred using defer-upgrade or hold-upgrade-sequence annotations`,
    );
    if (
      !hookBlocks &&
      !cp.isStartingUpgrade &&
      !cp.isUpgrading &&
      md.upgrading.length === 0 &&
      md.pending.length === 0
    ) {
      reason = TopologyReconciledReason.MachineDeploymentsUpgradeDeferred;
      v1beta1Reason = TopologyReconciledV1Beta1Reason.MachineDeploymentsUpgradeDeferred;
    }
  }
  if (upgrade.machineDeployments.pendingCreate.length > 0)
    lines.push(
      `  * ${nameList('MachineDeployment', 'MachineDeployments', upgrade.machineDeployments.pendingCreate)} creation deferred while control plane upgrade is in progress`,
    );
  const mp = dedupNames(upgrade.machinePools);
  if (mp.upgrading.length > 0)
    lines.push(
      `  * ${nameList('MachinePool', 'MachinePools', mp.upgrading)} upgrading to version ${cpVersion}${pendingVersions(plans?.machinePools, cpVersion)}`,
    );
  if (mp.pending.length > 0 && (plans?.machinePools.length ?? 0) > 0)
    lines.push(
      `  * ${nameList('MachinePool', 'MachinePools', mp.pending)} pending upgrade to version ${plans?.machinePools.join(', ') ?? ''}`,
    );
  if (mp.deferred.length > 0) {
    lines.push(
      `  * ${nameList('MachinePool', 'MachinePools', mp.deferred)} upgrade to version ${cpVersion} deferred using topology.cluster.x-k8s.io/defer-upgrade or hold-upgrade-sequence annotations`,
    );
    if (
      !hookBlocks &&
      !cp.isStartingUpgrade &&
      !cp.isUpgrading &&
      mp.upgrading.length === 0 &&
      mp.pending.length === 0 &&
      reason !== TopologyReconciledReason.MachineDeploymentsUpgradeDeferred
    ) {
      reason = TopologyReconciledReason.MachinePoolsUpgradeDeferred;
      v1beta1Reason = TopologyReconciledV1Beta1Reason.MachinePoolsUpgradeDeferred;
    }
  }
  if (upgrade.machinePools.pendingCreate.length > 0)
    lines.push(
      `  * ${nameList('MachinePool', 'MachinePools', upgrade.machinePools.pendingCreate)} creation deferred while control plane upgrade is in progress`,
    );
  const message = lines.join('\n');
  return {
    condition: { type: TopologyReconciledCondition, status: 'False', reason, message },
    v1beta1: { type: TopologyReconciledCondition, status: 'False', reason: v1beta1Reason, severity: 'Info', message },
  };
}

const succeeded: ConditionPair = {
  condition: {
    type: TopologyReconciledCondition,
    status: 'True',
    reason: TopologyReconciledReason.ReconcileSucceeded,
    message: '',
  },
  v1beta1: { type: TopologyReconciledCondition, status: 'True' },
};

/**
 * The TopologyReconciled condition for how the pass went, v1beta2 and its v1beta1 twin (upstream
 * reconcileTopologyReconciledCondition).
 *
 * @example
 * computeTopologyReconciledCondition({ kind: 'Failed', message: 'failed to create DockerCluster…' }).condition;
 * // { type: 'TopologyReconciled', status: 'False', reason: 'ReconcileFailed', message: … }
 */
export function computeTopologyReconciledCondition(state: PassState): ConditionPair {
  const type = TopologyReconciledCondition;
  const pair = (reason: string, v1beta1Reason: string, severity: 'Info' | 'Error', message: string): ConditionPair => ({
    condition: { type, status: 'False', reason, message },
    v1beta1: { type, status: 'False', reason: v1beta1Reason, severity, message },
  });
  switch (state.kind) {
    case 'Paused':
      return pair(TopologyReconciledReason.Paused, TopologyReconciledV1Beta1Reason.Paused, 'Info', state.message);
    case 'Deleted': {
      const hooks = state.hooks ?? [];
      const blocking = computeAggregateRetryAfter(hooks) > 0;
      return pair(
        TopologyReconciledReason.Deleting,
        TopologyReconciledV1Beta1Reason.Deleting,
        'Info',
        blocking ? `Cluster is deleting. ${computeBlockingHooksMessage('delete', hooks)}` : 'Cluster is deleting',
      );
    }
    case 'Failed':
      return pair(
        TopologyReconciledReason.ReconcileFailed,
        TopologyReconciledV1Beta1Reason.ReconcileFailed,
        'Error',
        state.message,
      );
    case 'ClusterClassNotReconciled':
      // NOTE: upstream v1.14.2's reconcile returns this as an error, so its condition says ReconcileFailed with the
      // error's text; its ClusterClassNotReconciled branch is never reached for a class behind.
      return pair(
        TopologyReconciledReason.ReconcileFailed,
        TopologyReconciledV1Beta1Reason.ReconcileFailed,
        'Error',
        state.message,
      );
    case 'CreationBlocked':
      return pair(
        TopologyReconciledReason.ClusterCreating,
        TopologyReconciledV1Beta1Reason.ClusterCreating,
        'Info',
        computeHookBlockingMessage('Cluster topology creation', state.hook, state.message),
      );
    case 'Reconciled':
      if (state.creating) return succeeded;
      return isUpgradeInProgress(state.upgrade) || state.hooks?.afterClusterUpgradePending
        ? computeUpgradingCondition(state)
        : succeeded;
  }
}

/**
 * Upstream's HookResponseTracker.AggregateMessage for one blocking hook.
 *
 * @example
 * computeHookBlockingMessage('Cluster topology creation', 'BeforeClusterCreate', 'wait'); // 'Following hooks are blocking Cluster topology creation: BeforeClusterCreate: wait'
 */
export function computeHookBlockingMessage(action: string, hook: string, message: string): string {
  return `Following hooks are blocking ${action}: ${message === '' ? hook : `${hook}: ${message}`}`;
}

/** Kubernetes' RFC 3339 form with second precision. */
export function formatConditionTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `conditions` with `next` set (upstream conditions.Set / meta.SetStatusCondition): the transition time kept unless
 * the status changes, the observed generation recorded, existing order kept (a new condition goes last); `changed` is
 * false when nothing differs.
 */
export function computeConditions(
  conditions: readonly Condition[] | undefined,
  next: ConditionState,
  now: Date,
  observedGeneration?: number,
): { readonly conditions: Condition[]; readonly changed: boolean } {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === next.type);
  const generation = observedGeneration !== undefined && observedGeneration > 0 ? { observedGeneration } : {};
  if (
    existing &&
    existing.status === next.status &&
    existing.reason === next.reason &&
    existing.message === next.message &&
    existing.observedGeneration === generation.observedGeneration
  )
    return { conditions: [...list], changed: false };
  const lastTransitionTime =
    existing && existing.status === next.status ? existing.lastTransitionTime : formatConditionTime(now);
  const condition: Condition = {
    type: next.type,
    status: next.status,
    ...generation,
    lastTransitionTime,
    reason: next.reason,
    message: next.message,
  };
  const merged = existing ? list.map((c) => (c.type === next.type ? condition : c)) : [...list, condition];
  return { conditions: merged, changed: true };
}

const sameV1Beta1State = (a: V1Beta1Condition, b: V1Beta1ConditionState) =>
  a.status === b.status &&
  (a.reason ?? '') === (b.reason ?? '') &&
  (a.severity ?? '') === (b.severity ?? '') &&
  (a.message ?? '') === (b.message ?? '');

/**
 * v1beta1 `conditions` with `next` set (upstream's deprecated v1beta1 conditions.Set): the transition time kept unless
 * the status changes, sorted with Ready first then by type.
 */
export function computeV1Beta1Conditions(
  conditions: readonly V1Beta1Condition[] | undefined,
  next: V1Beta1ConditionState,
  now: Date,
): { readonly conditions: V1Beta1Condition[]; readonly changed: boolean } {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === next.type);
  if (existing && sameV1Beta1State(existing, next)) return { conditions: [...list], changed: false };
  const lastTransitionTime =
    existing && existing.status === next.status && existing.lastTransitionTime
      ? existing.lastTransitionTime
      : formatConditionTime(now);
  const condition: V1Beta1Condition = {
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

/**
 * While an upgrade or creation waits on something no routed event ends (a template a MachineSet still holds once no
 * worker rolls out), look again this soon.
 */
export const upgradeRequeueMs = 30_000;
/**
 * While an upgrade or creation waits only on status changes the forwarder routes to the pass (the control plane's and
 * the workers' gates, compute-owned-gates.ts), look again this late even if none arrives: the safety net for a lost
 * event. Upstream's topology controller sets no timer there at all and relies on its watches and its resync
 * (`--sync-period`, 10 min); 5 min stays under that and is the private variant's tick.
 */
export const upgradeSafetyNetMs = 5 * 60_000;
/** A ClusterClass not reconciled yet: its own pass is due; look again shortly. */
export const classRequeueMs = 10_000;
/**
 * After seeding dropped managed fields, look again this soon (upstream's topology controller requeues after 1 s): a
 * purge of an object no event reports may have landed after the pass read it.
 */
export const managedFieldsRequeueMs = 1_000;

/** Why a pass waits for its upgrade or creation to go on (one reason per part of the Cluster that holds it). */
export const UpgradeWaitReason = {
  ControlPlaneUpgrading: 'ControlPlaneUpgrading',
  ControlPlanePendingUpgrade: 'ControlPlanePendingUpgrade',
  MachineDeploymentsUpgrading: 'MachineDeploymentsUpgrading',
  MachineDeploymentsPendingUpgrade: 'MachineDeploymentsPendingUpgrade',
  MachineDeploymentsPendingCreate: 'MachineDeploymentsPendingCreate',
  MachinePoolsUpgrading: 'MachinePoolsUpgrading',
  MachinePoolsPendingUpgrade: 'MachinePoolsPendingUpgrade',
  MachinePoolsPendingCreate: 'MachinePoolsPendingCreate',
  TemplatesHeld: 'TemplatesHeld',
} as const;
export type UpgradeWaitReason = (typeof UpgradeWaitReason)[keyof typeof UpgradeWaitReason];

/** What a Reconciled pass waits on: the reasons a routed event ends (`routed`), and the others (`unrouted`). */
export type UpgradeWait = {
  readonly routed: readonly UpgradeWaitReason[];
  readonly unrouted: readonly UpgradeWaitReason[];
};

/**
 * What a Reconciled pass waits on, split by whether an event the forwarder routes to the pass ends the wait.
 *
 * Routed: the control plane upgrading (or starting to, in this pass) or pending upgrade, and the workers upgrading,
 * pending upgrade (not only deferred) or pending creation. Each ends with a change of what the control plane's or a
 * worker set's gates say (provisioning, upgrading, scaling, rolled out: compute-owned-gates.ts, the predicates the
 * pass itself decides on), which the forwarder sends and the runtime maps to this pass (wakeOnOwnedChange); or with a
 * change of the Cluster's facts (an annotation, the topology), which makes the pass due anyway.
 *
 * Unrouted: unused MachineDeployment templates a MachineSet still holds (`heldTemplates`): the MachineSet's deletion
 * is not watched. While a worker rolls out its old MachineSet holds the old template until the rollout ends, and that
 * end is routed: the pass it brings looks again, and only then does the wait on the template stand alone.
 *
 * @example
 * computeUpgradeWait({ kind: 'Reconciled', version: 'v1.37.0', upgrade: controlPlaneUpgrading });
 * // { routed: ['ControlPlaneUpgrading'], unrouted: [] }
 */
export function computeUpgradeWait(state: Extract<PassState, { kind: 'Reconciled' }>): UpgradeWait {
  const { machineDeployments: md, machinePools: mp, controlPlane: cp } = state.upgrade;
  const routed: UpgradeWaitReason[] = [];
  const add = (when: boolean, reason: UpgradeWaitReason) => {
    if (when) routed.push(reason);
  };
  add(cp.isUpgrading || cp.isStartingUpgrade, UpgradeWaitReason.ControlPlaneUpgrading);
  add(cp.isPendingUpgrade, UpgradeWaitReason.ControlPlanePendingUpgrade);
  add(md.upgrading.length > 0, UpgradeWaitReason.MachineDeploymentsUpgrading);
  add(md.pendingUpgrade.length > md.deferredUpgrade.length, UpgradeWaitReason.MachineDeploymentsPendingUpgrade);
  add(md.pendingCreate.length > 0, UpgradeWaitReason.MachineDeploymentsPendingCreate);
  add(mp.upgrading.length > 0, UpgradeWaitReason.MachinePoolsUpgrading);
  add(mp.pendingUpgrade.length > mp.deferredUpgrade.length, UpgradeWaitReason.MachinePoolsPendingUpgrade);
  add(mp.pendingCreate.length > 0, UpgradeWaitReason.MachinePoolsPendingCreate);
  if ((state.heldTemplates ?? 0) === 0) return { routed, unrouted: [] };
  const workersRollingOut = md.upgrading.length > 0 || mp.upgrading.length > 0;
  return workersRollingOut
    ? { routed: [...routed, UpgradeWaitReason.TemplatesHeld], unrouted: [] }
    : { routed, unrouted: [UpgradeWaitReason.TemplatesHeld] };
}

/**
 * The pass outcome for a state and what the pass wrote.
 *
 * @example
 * computeOutcome({ kind: 'Failed', message: 'boom' }, []); // { result: 'Error', changed: [], error: 'boom' }
 */
export function computeOutcome(state: PassState, changed: readonly string[]): TopologyOutcome {
  switch (state.kind) {
    case 'Paused':
      return { result: 'Success', changed };
    case 'Failed':
      return { result: 'Error', changed, error: state.message };
    case 'ClusterClassNotReconciled':
      // A class that failed its own pass, or is paused, will not get better by asking every 10 s: back off (as
      // upstream retries its error) until it changes; the class's change maps to its Clusters.
      if (state.failure !== undefined || state.paused === true)
        return { result: 'Error', changed, error: state.failure ?? state.message };
      return { result: 'Requeue', requeueAfterMs: classRequeueMs, changed };
    case 'Deleted': {
      // NOTE: a blocking hook's retryAfterSeconds is the due time of the next pass (the checkpoint), never sooner.
      const retryAfter = computeAggregateRetryAfter(state.hooks ?? []);
      return retryAfter > 0
        ? { result: 'Requeue', requeueAfterMs: retryAfter * 1000, changed }
        : { result: 'Success', changed };
    }
    case 'CreationBlocked':
      // NOTE: the hook's retryAfterSeconds is the due time of the next pass (the checkpoint), never sooner.
      return { result: 'Requeue', requeueAfterMs: state.retryAfterSeconds * 1000, changed };
    case 'Reconciled': {
      const retryAfter = computeAggregateRetryAfter(state.hooks?.tracked ?? []);
      const awaited = state.awaitedAdoption === undefined ? {} : { wakeOnChangeOf: [state.awaitedAdoption] };
      if (retryAfter > 0) return { result: 'Requeue', requeueAfterMs: retryAfter * 1000, changed, ...awaited };
      // NOTE: an upgrade in progress is waiting too: TopologyReconciled says ClusterUpgrading until a later pass sees
      // it finished. What ends a wait on the control plane or the workers is a status change the forwarder routes to
      // this pass (wakeOnOwnedChange), as upstream's watches on those kinds do: the requeue is only the safety net for
      // a lost event (upstream sets none). A template a MachineSet still holds is released by no routed event:
      // upstream's MachineDeployment/MachineSet topology controllers delete such templates, but they run only with the
      // ClusterTopology gate, which is off beside capi-serverless; the pass looks again soon.
      // NOTE: the cluster shim waiting for the core controller's adoption is no reason to requeue (upstream's pass
      // returns no requeue either): the adoption, a change of the control plane's owner references, runs the next
      // pass (wakeOnChangeOf), as upstream's watch of the control plane does.
      const wait = computeUpgradeWait(state);
      const mitigated = (state.mitigatedManagedFields ?? 0) > 0;
      if (wait.routed.length > 0 || wait.unrouted.length > 0) {
        // NOTE: seeded managed fields are as unrouted as a held template (no event reports a purge): soon, not 5 min.
        const soon = wait.unrouted.length > 0 || mitigated;
        const requeueAfterMs = soon ? upgradeRequeueMs : upgradeSafetyNetMs;
        return { result: 'Requeue', requeueAfterMs, changed, wakeOnOwnedChange: true, ...awaited };
      }
      return mitigated
        ? { result: 'Requeue', requeueAfterMs: managedFieldsRequeueMs, changed, ...awaited }
        : { result: 'Success', changed, ...awaited };
    }
  }
}
