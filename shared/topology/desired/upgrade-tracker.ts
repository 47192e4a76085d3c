// Records where the version rollout stands while desired state is computed (upstream's scope.UpgradeTracker).
// Local to one computation: created, filled and frozen into an UpgradeSummary.
import type { UpgradePlans } from '#shared/topology/desired/upgrade-plans.ts';
import type { HookTracker } from '#shared/topology/desired/lifecycle-hooks.ts';
import type { UpgradeSummary, WorkerUpgradeSummary } from '#shared/topology/types.ts';

export type WorkerTracker = {
  readonly upgrading: Set<string>;
  readonly pendingUpgrade: Set<string>;
  readonly deferredUpgrade: Set<string>;
  readonly pendingCreate: Set<string>;
  readonly maxUpgradeConcurrency: number;
};

export type UpgradeTracker = {
  controlPlane: {
    isPendingUpgrade: boolean;
    isProvisioning: boolean;
    isUpgrading: boolean;
    isScaling: boolean;
    isStartingUpgrade: boolean;
    /** Pending an upgrade step that waits for the workers to reach the control plane's version first. */
    isWaitingForWorkersUpgrade: boolean;
  };
  /** The upgrade plans of this computation (upstream's UpgradePlan fields of the tracker). */
  readonly plans: UpgradePlans;
  readonly machineDeployments: WorkerTracker;
  readonly machinePools: WorkerTracker;
  /** Lifecycle hooks (upstream's HookResponseTracker and pending-hooks marks); undefined: hooks are not called. */
  readonly hooks?: HookTracker | undefined;
};

function newWorkerTracker(maxUpgradeConcurrency: number): WorkerTracker {
  return {
    upgrading: new Set(),
    pendingUpgrade: new Set(),
    deferredUpgrade: new Set(),
    pendingCreate: new Set(),
    maxUpgradeConcurrency,
  };
}

export function newUpgradeTracker(
  maxUpgradeConcurrency: number,
  plans: UpgradePlans,
  hooks?: HookTracker,
): UpgradeTracker {
  return {
    hooks,
    plans,
    controlPlane: {
      isPendingUpgrade: false,
      isProvisioning: false,
      isUpgrading: false,
      isScaling: false,
      isStartingUpgrade: false,
      isWaitingForWorkersUpgrade: false,
    },
    machineDeployments: newWorkerTracker(maxUpgradeConcurrency),
    machinePools: newWorkerTracker(maxUpgradeConcurrency),
  };
}

/** The control plane is stable: no pending upgrade and not provisioning, upgrading, scaling or starting to upgrade. */
export function isControlPlaneStable(t: UpgradeTracker): boolean {
  const cp = t.controlPlane;
  return !cp.isPendingUpgrade && !cp.isProvisioning && !cp.isUpgrading && !cp.isScaling && !cp.isStartingUpgrade;
}

/** Upstream IsControlPlaneStableOrWaitingForWorkersUpgrade: stable, or pending only until the workers catch up. */
export function isControlPlaneStableOrWaitingForWorkersUpgrade(t: UpgradeTracker): boolean {
  const cp = t.controlPlane;
  if (cp.isProvisioning || cp.isUpgrading || cp.isScaling || cp.isStartingUpgrade) return false;
  return !cp.isPendingUpgrade || cp.isWaitingForWorkersUpgrade;
}

export function isUpgradeConcurrencyReached(w: WorkerTracker): boolean {
  return w.upgrading.size >= w.maxUpgradeConcurrency;
}

function summarize(w: WorkerTracker): WorkerUpgradeSummary {
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    upgrading: sorted(w.upgrading),
    pendingUpgrade: sorted(w.pendingUpgrade),
    deferredUpgrade: sorted(w.deferredUpgrade),
    pendingCreate: sorted(w.pendingCreate),
  };
}

export function summarizeUpgradeTracker(t: UpgradeTracker): UpgradeSummary {
  return {
    controlPlane: {
      isPendingUpgrade: t.controlPlane.isPendingUpgrade,
      isProvisioning: t.controlPlane.isProvisioning,
      isUpgrading: t.controlPlane.isUpgrading,
      isScaling: t.controlPlane.isScaling,
      isStartingUpgrade: t.controlPlane.isStartingUpgrade,
    },
    machineDeployments: summarize(t.machineDeployments),
    machinePools: summarize(t.machinePools),
  };
}

/**
 * The `topology.cluster.x-k8s.io/upgrade-concurrency` annotation of the Cluster (default 1; invalid values → 1, as
 * upstream's webhook refuses them before they get here).
 */
export function computeMaxUpgradeConcurrency(
  annotations: Readonly<Record<string, string>> | undefined,
  key: string,
): number {
  const raw = annotations?.[key];
  if (raw === undefined) return 1;
  const n = Number.parseInt(raw, 10);
  return Number.isInteger(n) && n >= 1 && String(n) === raw.trim() ? n : 1;
}
