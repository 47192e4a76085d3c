// MachineHealthChecks of the control plane and of MachineDeployments (upstream reconcileMachineHealthCheck): created,
// updated or deleted to follow the class and the topology; the topology owns their whole spec.
import type { MachineHealthCheck } from '#shared/api/core/v1beta2/machine-health-check.ts';
import { deleteCurrentObject, reconcileObject, type ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/**
 * Brings one MachineHealthCheck from `current` to `desired` (either may be missing); resolves the object when this
 * call created it.
 *
 * @example
 * await reconcileMachineHealthCheck(ctx, current.controlPlane?.machineHealthCheck, desired.controlPlane.machineHealthCheck);
 */
export async function reconcileMachineHealthCheck(
  ctx: ApplyContext,
  current: MachineHealthCheck | undefined,
  desired: MachineHealthCheck | undefined,
): Promise<Unstructured | undefined> {
  if (!current && !desired) return undefined;
  if (current && !desired) {
    await deleteCurrentObject(ctx, current as Unstructured);
    return undefined;
  }
  const result = await reconcileObject(ctx, {
    current: current as Unstructured | undefined,
    desired: desired as Unstructured,
  });
  return result.created ? result.object : undefined;
}
