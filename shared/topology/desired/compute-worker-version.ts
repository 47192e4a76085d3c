// The version of one MachineDeployment or MachinePool in this pass (upstream's computeMachineDeploymentVersion and
// computeMachinePoolVersion, one function for both: they differ only in which list, tracker and plan they read).
import type { Topology } from '#shared/api/core/v1beta2/cluster.ts';
import { CapiError } from '#shared/errors/index.ts';
import { isHookBlocking, LifecycleHook } from '#shared/topology/desired/lifecycle-hooks.ts';
import {
  isControlPlaneStable,
  isControlPlaneStableOrWaitingForWorkersUpgrade,
  isUpgradeConcurrencyReached,
  type UpgradeTracker,
} from '#shared/topology/desired/upgrade-tracker.ts';
import {
  ClusterTopologyDeferUpgradeAnnotation,
  ClusterTopologyHoldUpgradeSequenceAnnotation,
} from '#shared/topology/labels.ts';

/** Which worker list of the topology: it names the tracker, the plan and the error's noun. */
export type WorkerGroup = 'machineDeployments' | 'machinePools';

/** A worker topology as far as the version reads it. */
type WorkerTopology = {
  readonly name: string;
  readonly metadata?: { readonly annotations?: Record<string, string> | undefined } | undefined;
};

/** The worker that exists, as far as the version reads it. */
export type CurrentWorker = { readonly name: string; readonly version: string };

const nouns: Record<WorkerGroup, string> = { machineDeployments: 'machinedeployment', machinePools: 'machinepool' };

/** Deferred: the worker holds or defers its upgrade, or one before it in its list holds the sequence. */
export function isWorkerDeferred(topology: Topology, group: WorkerGroup, worker: WorkerTopology): boolean {
  const own = worker.metadata?.annotations ?? {};
  if (ClusterTopologyDeferUpgradeAnnotation in own || ClusterTopologyHoldUpgradeSequenceAnnotation in own) return true;
  for (const other of topology.workers?.[group] ?? []) {
    if (ClusterTopologyHoldUpgradeSequenceAnnotation in (other.metadata?.annotations ?? {})) return true;
    if (other.name === worker.name) return false;
  }
  return false;
}

/**
 * The version one worker gets in this pass, recording pending/deferred/upgrading in the group's tracker.
 *
 * @example
 * computeWorkerVersion(topology, 'machineDeployments', md, { name: 'c-md-0-x', version: 'v1.30.0' }, tracker);
 */
export function computeWorkerVersion(
  topology: Topology,
  group: WorkerGroup,
  worker: WorkerTopology,
  current: CurrentWorker | undefined,
  tracker: UpgradeTracker,
): string {
  const desiredVersion = topology.version;
  const w = tracker[group];
  // NOTE: AfterControlPlaneUpgrade or BeforeWorkersUpgrade blocking holds worker creation and upgrades (upstream).
  const hookBlocks =
    isHookBlocking(tracker.hooks, LifecycleHook.AfterControlPlaneUpgrade) ||
    isHookBlocking(tracker.hooks, LifecycleHook.BeforeWorkersUpgrade);
  if (!current) {
    if (!isControlPlaneStable(tracker) || hookBlocks) w.pendingCreate.add(worker.name);
    return desiredVersion;
  }
  const { name, version: currentVersion } = current;
  if (currentVersion === desiredVersion) return currentVersion;
  if (isWorkerDeferred(topology, group, worker)) {
    w.deferredUpgrade.add(name);
    w.pendingUpgrade.add(name);
    return currentVersion;
  }
  if (hookBlocks || isUpgradeConcurrencyReached(w) || !isControlPlaneStableOrWaitingForWorkersUpgrade(tracker)) {
    w.pendingUpgrade.add(name);
    return currentVersion;
  }
  const nextVersion = tracker.plans[group][0];
  if (nextVersion === undefined) {
    const noun = nouns[group];
    throw new CapiError(
      `cannot compute the ${noun} version if the ${noun} is pending upgrade and the upgrade plan is not set`,
    );
  }
  // NOTE: a worker already at the plan's first step waits for the control plane to take the next one.
  if (nextVersion === currentVersion) {
    w.pendingUpgrade.add(name);
    return currentVersion;
  }
  w.upgrading.add(name);
  return nextVersion;
}
