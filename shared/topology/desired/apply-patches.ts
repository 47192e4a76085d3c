// Runs the ClusterClass patches over the class templates with the builtin and user variables of this pass, then
// copies the patched specs onto the desired objects, keeping the fields the topology controls (upstream
// patches.Engine.Apply + updateDesiredState). Nothing happens for a class without patches, as upstream.
import type { Cluster, Topology } from '#shared/api/v1beta2/cluster.ts';
import {
  computeClusterBuiltins,
  computeControlPlaneBuiltins,
  computeMachineDeploymentBuiltins,
  computeMachinePoolBuiltins,
} from '#shared/topology/desired/compute-builtins.ts';
import {
  computePatchedDesiredState,
  computePatchedTargets,
  computePatchTargets,
  type Builtins,
  type PatchBuiltins,
} from '#shared/topology/patches/index.ts';
import type { Blueprint, DesiredState } from '#shared/topology/types.ts';
import { definitionsOf } from '#shared/topology/validation/validate-cluster.ts';

/**
 * The desired state with the ClusterClass patches applied.
 *
 * @example
 * const patched = applyPatchesToDesiredState(cluster, blueprint, unpatched);
 */
export function applyPatchesToDesiredState(
  cluster: Cluster,
  blueprint: Blueprint,
  desired: DesiredState,
): DesiredState {
  const patches = blueprint.clusterClass.spec?.patches ?? [];
  const topology = cluster.spec?.topology as Topology;
  if (patches.length === 0) return desired;
  const mdTopologies = topology.workers?.machineDeployments ?? [];
  const mpTopologies = topology.workers?.machinePools ?? [];
  const targets = computePatchTargets({
    infrastructureClusterTemplate: blueprint.infrastructureClusterTemplate,
    controlPlaneTemplate: blueprint.controlPlaneTemplate,
    ...(blueprint.controlPlaneInfrastructureMachineTemplate
      ? { controlPlaneInfrastructureMachineTemplate: blueprint.controlPlaneInfrastructureMachineTemplate }
      : {}),
    machineDeployments: mdTopologies.map((md) => {
      const bp = blueprint.machineDeployments[md.class]!;
      return {
        topologyName: md.name,
        className: md.class,
        bootstrapTemplate: bp.bootstrapTemplate,
        infrastructureMachineTemplate: bp.infrastructureMachineTemplate,
      };
    }),
    machinePools: mpTopologies.map((mp) => {
      const bp = blueprint.machinePools[mp.class]!;
      return {
        topologyName: mp.name,
        className: mp.class,
        bootstrapTemplate: bp.bootstrapTemplate,
        infrastructureMachinePoolTemplate: bp.infrastructureMachinePoolTemplate,
      };
    }),
  });
  const builtins: PatchBuiltins = {
    global: computeClusterBuiltins(cluster) as Builtins,
    controlPlane: computeControlPlaneBuiltins(
      cluster,
      desired.controlPlane.object,
      desired.controlPlane.infrastructureMachineTemplate,
    ) as Builtins,
    machineDeployments: Object.fromEntries(
      mdTopologies.map((md) => [
        md.name,
        computeMachineDeploymentBuiltins(md.name, md.class, desired.machineDeployments[md.name]!) as Builtins,
      ]),
    ),
    machinePools: Object.fromEntries(
      mpTopologies.map((mp) => [
        mp.name,
        computeMachinePoolBuiltins(mp.name, mp.class, desired.machinePools[mp.name]!) as Builtins,
      ]),
    ),
  };
  const patched = computePatchedTargets({
    patches,
    targets,
    variables: { topology, definitions: definitionsOf(blueprint.clusterClass), builtins },
  });
  return computePatchedDesiredState(desired, patched);
}
