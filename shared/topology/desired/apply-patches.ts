// Runs the ClusterClass patches over the class templates with the builtin and user variables of this pass, then
// copies the patched specs onto the desired objects, keeping the fields the topology controls (upstream
// patches.Engine.Apply + updateDesiredState). Nothing happens for a class without patches, as upstream.
import type { Cluster, Topology } from '#shared/api/core/v1beta2/cluster.ts';
import {
  computeClusterBuiltins,
  computeControlPlaneBuiltins,
  computeMachineDeploymentBuiltins,
  computeMachinePoolBuiltins,
} from '#shared/topology/desired/compute-builtins.ts';
import type { HolderReference } from '#shared/api/runtime-extension.ts';
import { ContractVersion } from '#shared/topology/contract/contract-version.ts';
import {
  computePatchedDesiredState,
  computePatchedTargets,
  computePatchTargets,
  computeRequestItemUid,
  computeTargetsWithDesiredMetadata,
  HolderKind,
  holderFieldPaths,
  type Builtins,
  type PatchBuiltins,
  type PatchItemRef,
  type PatchTarget,
  type PatchVariablesInput,
} from '#shared/topology/patches/index.ts';
import type { Blueprint, DesiredState } from '#shared/topology/types.ts';
import { definitionsOf } from '#shared/topology/validation/validate-cluster.ts';

/** What the patch engine starts from: the templates to patch, what their variables come from, their request refs. */
export type PatchEngineInput = {
  readonly targets: readonly PatchTarget[];
  readonly variables: PatchVariablesInput;
  /** Per target id: the request item uid and the holder reference sent to extensions. */
  readonly refs: ReadonlyMap<string, PatchItemRef>;
};

const clusterApiVersion = 'cluster.x-k8s.io/v1beta2';

/**
 * Upstream's `HolderReference` of a target: the Cluster for the InfrastructureCluster and ControlPlane templates,
 * the ControlPlane (with the field path of its contract) for its machine infrastructure, the desired
 * MachineDeployment/MachinePool for worker templates.
 */
function computeHolderReference(cluster: Cluster, desired: DesiredState, target: PatchTarget): HolderReference {
  const namespace = cluster.metadata.namespace ?? '';
  const { holder } = target;
  const ref = (apiVersion: string, kind: string, name: string, fieldPath: string): HolderReference => ({
    apiVersion,
    kind,
    namespace,
    name,
    fieldPath,
  });
  switch (holder.kind) {
    case HolderKind.InfrastructureCluster:
    case HolderKind.ControlPlane:
      return ref(clusterApiVersion, 'Cluster', cluster.metadata.name ?? '', holderFieldPaths[holder.kind]);
    case HolderKind.ControlPlaneMachineInfrastructure: {
      const cp = desired.controlPlane.object;
      const fieldPath =
        desired.controlPlane.contract === ContractVersion.V1Beta1
          ? 'spec.machineTemplate.infrastructureRef'
          : holderFieldPaths[holder.kind];
      return ref(cp.apiVersion, cp.kind, cp.metadata.name ?? '', fieldPath);
    }
    case HolderKind.MachineDeploymentBootstrap:
    case HolderKind.MachineDeploymentInfrastructure: {
      const md = desired.machineDeployments[holder.machineDeploymentTopologyName];
      return ref(clusterApiVersion, 'MachineDeployment', md?.object.metadata.name ?? '', holderFieldPaths[holder.kind]);
    }
    case HolderKind.MachinePoolBootstrap:
    case HolderKind.MachinePoolInfrastructure: {
      const mp = desired.machinePools[holder.machinePoolTopologyName];
      return ref(clusterApiVersion, 'MachinePool', mp?.object.metadata.name ?? '', holderFieldPaths[holder.kind]);
    }
  }
}

/**
 * The patch engine's starting point for a pass (upstream's createRequest): the class templates of the topology in
 * request order, the variables input (Cluster topology, ClusterClass status variables, builtins from the unpatched
 * desired state) and each target's request item uid and holder reference.
 *
 * @example
 * const { targets, variables, refs } = computePatchEngineInput(cluster, blueprint, unpatched);
 */
export function computePatchEngineInput(
  cluster: Cluster,
  blueprint: Blueprint,
  desired: DesiredState,
): PatchEngineInput {
  const topology = cluster.spec?.topology as Topology;
  const mdTopologies = topology.workers?.machineDeployments ?? [];
  const mpTopologies = topology.workers?.machinePools ?? [];
  const unsynced = computePatchTargets({
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
  const targets = computeTargetsWithDesiredMetadata(unsynced, desired);
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
  const refs = new Map<string, PatchItemRef>(
    targets.map((target) => [
      target.id,
      {
        uid: computeRequestItemUid(cluster.metadata.uid ?? '', target.id),
        holderReference: computeHolderReference(cluster, desired, target),
      },
    ]),
  );
  return { targets, variables: { topology, definitions: definitionsOf(blueprint.clusterClass), builtins }, refs };
}

/**
 * The desired state with the ClusterClass's inline patches applied (a class with an external patch needs the
 * Runtime SDK: runPatchEngine calls the extensions and then computePatchedDesiredState).
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
  if (patches.length === 0) return desired;
  const { targets, variables } = computePatchEngineInput(cluster, blueprint, desired);
  return computePatchedDesiredState(desired, computePatchedTargets({ patches, targets, variables }));
}
