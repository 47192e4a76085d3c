// The cluster shim's writes (upstream reconcileClusterShim): create `<cluster>-shim` before the pass creates an
// InfrastructureCluster or ControlPlane and make it their owner; delete it once the core Cluster controller has adopted
// both. The Secret is written with a plain create and delete, as upstream: only this pass ever changes it.
import { createObject, deleteObject, findObject, KubeConflictError, KubeError } from '#shared/kube/index.ts';
import { describeKube, type ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { TopologyApplyError } from '#shared/topology/apply/errors.ts';
import {
  computeClusterShim,
  computeClusterShimAction,
  computeShimOwnedState,
  computeShimOwnerRef,
} from '#shared/topology/desired/compute-cluster-shim.ts';
import type { CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';

/** `failed to <what> the cluster shim object: <server message>`, upstream's wording. */
function computeShimError(what: string, err: unknown, shim: Unstructured): TopologyApplyError {
  const detail = err instanceof KubeError ? err.serverMessage : errorMessage(err);
  const id = { kind: shim.kind, namespace: shim.metadata.namespace ?? '', name: shim.metadata.name ?? '' };
  const reason = err instanceof KubeError && err.reason ? err.reason : 'WriteFailed';
  return new TopologyApplyError(
    `failed to ${what} the cluster shim object: ${detail}`,
    { ...id, reason },
    { cause: err },
  );
}

async function createClusterShim(ctx: ApplyContext, shim: Unstructured): Promise<Unstructured> {
  try {
    const created = (await createObject(ctx.kube, shim, { fieldManager: ctx.fieldManager })) as Unstructured;
    ctx.changed.push(`created ${describeKube(shim)}`);
    return created;
  } catch (err) {
    // NOTE: a pass that read no shim may still meet one (another pass, or a cached read): use it, as upstream does.
    if (!(err instanceof KubeConflictError)) throw computeShimError('create', err, shim);
  }
  const found = await findObject(ctx.kube, {
    apiVersion: shim.apiVersion,
    kind: shim.kind,
    namespace: shim.metadata.namespace,
    name: shim.metadata.name ?? '',
  }).catch((err: unknown) => {
    throw computeShimError('read', err, shim);
  });
  if (!found) throw computeShimError('create', new Error('it existed and is gone'), shim);
  return found as Unstructured;
}

/**
 * Ensures or deletes the cluster shim as {@link computeClusterShimAction} decides and returns `desired` with the shim
 * among the owners of the InfrastructureCluster and ControlPlane while either is yet to be created. Deleting the shim
 * is safe: the Cluster owns both objects by then, so the garbage collector only drops the shim's references (the
 * pass's apply drops them too), and collects what an earlier failed pass left owned by the shim alone.
 *
 * @example
 * const owned = await reconcileClusterShim(ctx, current, desired);
 * await reconcileObject(ctx, { current: current.infrastructureCluster, desired: owned.infrastructureCluster });
 */
export async function reconcileClusterShim(
  ctx: ApplyContext,
  current: CurrentState,
  desired: DesiredState,
): Promise<DesiredState> {
  const action = computeClusterShimAction(current);
  const shim = computeClusterShim(current.cluster);
  if (action === 'delete') {
    try {
      const deleted = await deleteObject(ctx.kube, {
        apiVersion: shim.apiVersion,
        kind: shim.kind,
        namespace: shim.metadata.namespace,
        name: shim.metadata.name ?? '',
      });
      if (deleted) ctx.changed.push(`deleted ${describeKube(shim)}`);
    } catch (err) {
      throw computeShimError('delete', err, shim);
    }
    return desired;
  }
  if (action === 'none') return desired;
  return computeShimOwnedState(
    desired,
    computeShimOwnerRef(current.clusterShim ?? (await createClusterShim(ctx, shim))),
  );
}
