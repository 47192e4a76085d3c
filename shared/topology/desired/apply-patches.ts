// Runs the ClusterClass patches over the desired state's templates and writes the results back, keeping the fields
// the topology controls (upstream patches.Engine.Apply + updateDesiredState).
import type { Cluster } from '#shared/api/cluster.ts';
import type { Blueprint, DesiredState } from '#shared/topology/types.ts';

export function applyPatchesToDesiredState(
  _cluster: Cluster,
  blueprint: Blueprint,
  desired: DesiredState,
): DesiredState {
  if ((blueprint.clusterClass.spec?.patches ?? []).length === 0) return desired;
  throw new Error('patch engine not wired yet');
}
