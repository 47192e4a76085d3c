// Converges a Cluster's topology to its desired state, in upstream's order (reconcileState): the cluster shim,
// InfrastructureCluster, ControlPlane, the Cluster's references, MachineDeployments, MachinePools. Every write is a server-side apply under
// one field manager, preceded by a dry run, so an unchanged topology costs no write at all.
import { computeInfrastructureClusterIgnorePaths, clusterAllowedPaths } from '#shared/topology/apply/apply-intent.ts';
import { reconcileClusterShim } from '#shared/topology/apply/reconcile-cluster-shim.ts';
import { reconcileControlPlane } from '#shared/topology/apply/reconcile-control-plane.ts';
import { reconcileMachineDeployments } from '#shared/topology/apply/reconcile-machine-deployments.ts';
import { reconcileMachinePools } from '#shared/topology/apply/reconcile-machine-pools.ts';
import { cleanupCreatedObject, reconcileObject, type ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import type { CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';

/**
 * Applies `desired`; throws the first error after writing what can safely be written (as upstream: when the
 * ControlPlane fails right after the InfrastructureCluster was created, the Cluster still gets its infrastructureRef).
 * The cluster shim owns an InfrastructureCluster or ControlPlane this pass creates, so the core Cluster controller
 * adopts them (and the infrastructure provider starts) only once the Cluster references both; the shim goes once the
 * Cluster owns both (reconcile-cluster-shim.ts). When the Cluster's references cannot be written, everything this pass
 * created is deleted again, without waiting for the garbage collector to collect the shim: a failed pass leaves
 * nothing unreferenced, and its retry creates one set, not another.
 *
 * @example
 * await reconcileState(ctx, reader, current, desired);
 */
export async function reconcileState(
  ctx: ApplyContext,
  reader: TopologyReader,
  current: CurrentState,
  computed: DesiredState,
): Promise<void> {
  const desired = await reconcileClusterShim(ctx, current, computed);
  const infrastructure = await reconcileObject(ctx, {
    current: current.infrastructureCluster,
    desired: desired.infrastructureCluster,
    ignorePaths: computeInfrastructureClusterIgnorePaths(desired.infrastructureCluster),
  });

  const created: Unstructured[] = infrastructure.created && infrastructure.object ? [infrastructure.object] : [];
  let controlPlaneError: unknown;
  let controlPlaneCreated = false;
  try {
    const controlPlane = await reconcileControlPlane(ctx, current, desired);
    controlPlaneCreated = controlPlane.controlPlaneCreated;
    created.push(...controlPlane.created);
  } catch (err) {
    if (!infrastructure.created) throw err;
    controlPlaneError = err;
  }

  let desiredCluster = desired.cluster;
  const referencesControlPlane = current.cluster.spec?.controlPlaneRef !== undefined;
  if (controlPlaneError !== undefined && !referencesControlPlane && !controlPlaneCreated) {
    const { controlPlaneRef: _dropped, ...spec } = desiredCluster.spec ?? {};
    desiredCluster = { ...desiredCluster, spec };
  }
  try {
    await reconcileObject(ctx, {
      current: current.cluster as Unstructured,
      desired: desiredCluster as Unstructured,
      allowedPaths: clusterAllowedPaths,
    });
  } catch (err) {
    // Newest first, so nothing is left pointing at an object already gone.
    for (const obj of [...created].reverse()) await cleanupCreatedObject(ctx, obj);
    throw err;
  }
  if (controlPlaneError !== undefined) throw controlPlaneError;

  await reconcileMachineDeployments(ctx, reader, current, desired);
  await reconcileMachinePools(ctx, current, desired);
}
