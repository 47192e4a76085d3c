// Which parts of a desired state a pass leaves as they are while an upgrade waits (upstream reconcileControlPlane,
// reconcileMachineDeployments, reconcileMachinePools): the apply step and `plan` both decide it here. Pure.
import type { CurrentState, DesiredState } from '#shared/topology/types.ts';

/** Topology names of the workers a pass does not create, and of the existing ones it does not change. */
export type HeldWorkers = { readonly create: ReadonlySet<string>; readonly update: ReadonlySet<string> };

export type HeldBack = {
  /** The ControlPlane and its machine template stay as they are (its health check still follows). */
  readonly controlPlane: boolean;
  readonly machineDeployments: HeldWorkers;
  readonly machinePools: HeldWorkers;
};

/**
 * What the pass holds back: the ControlPlane while its upgrade is pending (changing it now would start a rollout now
 * and another one with the upgrade), a MachineDeployment or MachinePool whose upgrade is pending or deferred (the same
 * reason: no template rotation, no spec change), and a new one while the control plane is not stable.
 *
 * @example
 * const held = computeHeldBack(current, desired);
 * held.machineDeployments.update.has('md-0'); // true while md-0's upgrade waits for the control plane
 */
export function computeHeldBack(current: CurrentState, desired: DesiredState): HeldBack {
  const workers = (
    existing: Readonly<
      Record<string, { readonly object: { readonly metadata: { readonly name?: string | undefined } } }>
    >,
    upgrade: DesiredState['upgrade']['machineDeployments'],
  ): HeldWorkers => {
    // NOTE: pendingUpgrade holds object names, pendingCreate topology names.
    const pending = new Set(upgrade.pendingUpgrade);
    const update = Object.entries(existing)
      .filter(([, state]) => pending.has(state.object.metadata.name ?? ''))
      .map(([name]) => name);
    return { create: new Set(upgrade.pendingCreate), update: new Set(update) };
  };
  return {
    controlPlane: desired.upgrade.controlPlane.isPendingUpgrade,
    machineDeployments: workers(current.machineDeployments, desired.upgrade.machineDeployments),
    machinePools: workers(current.machinePools, desired.upgrade.machinePools),
  };
}
