// MachinePools of a topology (upstream reconcileMachinePools): their bootstrap and infrastructure objects are
// objects, not templates, so they are updated in place; removed MachinePools are deleted and their provider
// cleans up the objects it owns.
import {
  cleanupCreatedObject,
  deleteCurrentObject,
  reconcileObject,
  type ApplyContext,
} from '#shared/topology/apply/reconcile-object.ts';
import { computeHeldBack } from '#shared/topology/desired/compute-held-back.ts';
import type { CurrentState, DesiredMachinePool, DesiredState, Unstructured } from '#shared/topology/types.ts';

async function createMachinePool(ctx: ApplyContext, desired: DesiredMachinePool): Promise<void> {
  const infrastructure = await reconcileObject(ctx, { desired: desired.infrastructureMachinePoolObject });
  let bootstrap;
  try {
    bootstrap = await reconcileObject(ctx, { desired: desired.bootstrapObject });
  } catch (err) {
    await cleanupCreatedObject(ctx, infrastructure.object);
    throw err;
  }
  try {
    await reconcileObject(ctx, { desired: desired.object as Unstructured });
  } catch (err) {
    await cleanupCreatedObject(ctx, infrastructure.object);
    await cleanupCreatedObject(ctx, bootstrap.object);
    throw err;
  }
}

/**
 * Creates, updates and deletes the MachinePools of a topology, in topology-name order.
 *
 * @example
 * await reconcileMachinePools(ctx, current, desired);
 */
export async function reconcileMachinePools(
  ctx: ApplyContext,
  current: CurrentState,
  desired: DesiredState,
): Promise<void> {
  const held = computeHeldBack(current, desired).machinePools;
  const names = [...new Set([...Object.keys(current.machinePools), ...Object.keys(desired.machinePools)])].sort();
  for (const name of names) {
    const have = current.machinePools[name];
    const want = desired.machinePools[name];
    if (want && !have) {
      if (!held.create.has(name)) await createMachinePool(ctx, want);
    } else if (want && have) {
      if (held.update.has(name)) continue;
      await reconcileObject(ctx, {
        current: have.infrastructureMachinePoolObject,
        desired: want.infrastructureMachinePoolObject,
      });
      await reconcileObject(ctx, { current: have.bootstrapObject, desired: want.bootstrapObject });
      await reconcileObject(ctx, { current: have.object as Unstructured, desired: want.object as Unstructured });
    } else if (have) {
      await deleteCurrentObject(ctx, have.object as Unstructured);
    }
  }
}
