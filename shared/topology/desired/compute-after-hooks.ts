// Upstream's callAfterHooks, decided (pure): AfterControlPlaneInitialized and AfterClusterUpgrade. Upstream calls them
// in reconcileState, after the desired state and its patches are computed, so a pass whose patches fail calls neither;
// the pass here decides them the same way, on the patched desired state, in a step of its own.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import {
  consultHook,
  isControlPlaneInitialized,
  LifecycleHook,
  summarizeHookTracker,
  type HookAnswer,
  type HookTracker,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import { ClusterTopologyUpgradeStepAnnotation } from '#shared/topology/labels.ts';
import type { DesiredState, UpgradeSummary } from '#shared/topology/types.ts';

/**
 * AfterControlPlaneInitialized is marked pending while the topology is created and called once the Cluster's
 * ControlPlaneInitialized is True; AfterClusterUpgrade is called once the upgrade it was marked for is complete
 * (control plane stable, no worker upgrading, pending, deferred or waiting to be created, and the step hooks done).
 */
function decideAfterHooks(hooks: HookTracker, cluster: Cluster, upgrade: UpgradeSummary): void {
  if (!cluster.spec?.infrastructureRef && !cluster.spec?.controlPlaneRef)
    hooks.pending.add(LifecycleHook.AfterControlPlaneInitialized);
  if (hooks.pending.has(LifecycleHook.AfterControlPlaneInitialized) && isControlPlaneInitialized(cluster)) {
    // NOTE: a non-blocking hook: any successful answer completes it (a failing one fails the pass).
    if (consultHook(hooks, LifecycleHook.AfterControlPlaneInitialized, {}) === 'done')
      hooks.pending.delete(LifecycleHook.AfterControlPlaneInitialized);
  }
  const cp = upgrade.controlPlane;
  const idle = (w: UpgradeSummary['machineDeployments']) =>
    w.upgrading.length === 0 &&
    w.pendingCreate.length === 0 &&
    w.pendingUpgrade.length === 0 &&
    w.deferredUpgrade.length === 0;
  const complete =
    !cp.isPendingUpgrade &&
    !cp.isProvisioning &&
    !cp.isUpgrading &&
    !cp.isScaling &&
    !cp.isStartingUpgrade &&
    idle(upgrade.machineDeployments) &&
    idle(upgrade.machinePools);
  if (
    hooks.pending.has(LifecycleHook.AfterClusterUpgrade) &&
    !hooks.pending.has(LifecycleHook.AfterControlPlaneUpgrade) &&
    !hooks.pending.has(LifecycleHook.AfterWorkersUpgrade) &&
    complete
  ) {
    const request = { kubernetesVersion: cluster.spec?.topology?.version ?? '' };
    if (consultHook(hooks, LifecycleHook.AfterClusterUpgrade, request) === 'done')
      hooks.pending.delete(LifecycleHook.AfterClusterUpgrade);
  }
}

/**
 * The desired state with the After* hooks decided: `desired` is the (patched) desired state a pass computed with every
 * Before and step hook answered (its `hooks.call` unset), `answers` the After* answers so far. Either asks for one more
 * call (`hooks.call`) or marks them done; once AfterClusterUpgrade is done, the upgrade-step annotation leaves the
 * desired Cluster (upstream drops it in the next pass, which its own patch of the Cluster brings at once). A desired
 * state without hooks (lifecycle hooks off) comes back unchanged.
 *
 * @example
 * const decided = computeAfterHooksDesiredState(patched, cluster, {});
 * decided.hooks?.call; // { hook: 'AfterClusterUpgrade', request: { kubernetesVersion: 'v1.31.0' } }
 */
export function computeAfterHooksDesiredState(
  desired: DesiredState,
  cluster: Cluster,
  answers: Readonly<Partial<Record<LifecycleHook, HookAnswer>>>,
): DesiredState {
  const before = desired.hooks;
  if (!before) return desired;
  const tracker: HookTracker = {
    input: { pending: before.pending, answers },
    pending: new Set(before.pending),
    tracked: new Map(before.tracked.map((t) => [t.hook, t.answer])),
    call: before.call,
    controlPlaneUpgrades: [],
    workersUpgrades: [],
    minWorkersVersion: '',
  };
  decideAfterHooks(tracker, cluster, desired.upgrade);
  const hooks = summarizeHookTracker(tracker);
  const stepDone =
    before.pending.includes(LifecycleHook.AfterClusterUpgrade) &&
    !hooks.pending.includes(LifecycleHook.AfterClusterUpgrade);
  const annotations = desired.cluster.metadata.annotations;
  if (!stepDone || annotations?.[ClusterTopologyUpgradeStepAnnotation] === undefined) return { ...desired, hooks };
  const { [ClusterTopologyUpgradeStepAnnotation]: _dropped, ...kept } = annotations;
  return {
    ...desired,
    cluster: { ...desired.cluster, metadata: { ...desired.cluster.metadata, annotations: kept } },
    hooks,
  };
}
