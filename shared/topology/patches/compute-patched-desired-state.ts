// Upstream's updateDesiredState: the patched templates, copied onto the desired objects of a topology pass.
import { CapiError } from '#shared/errors/index.ts';
import {
  computePatchedObject,
  computePatchedTemplate,
  controlPlanePreserveFields,
} from '#shared/topology/patches/compute-patched-object.ts';
import { findPatchTarget, HolderKind } from '#shared/topology/patches/patch-target.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import type {
  DesiredMachineDeployment,
  DesiredMachinePool,
  DesiredState,
  Unstructured,
} from '#shared/topology/types.ts';

/** A desired object with no patched target to take its spec from. */
export class MissingPatchTargetError extends CapiError {}

function template(targets: readonly PatchTarget[], kind: HolderKind, topologyName?: string): Unstructured {
  const found = findPatchTarget(targets, kind, topologyName);
  if (!found) {
    const suffix = topologyName === undefined ? '' : ` for topology "${topologyName}"`;
    throw new MissingPatchTargetError(`failed to get patched template ${kind}${suffix}`);
  }
  return found.template;
}

/**
 * Copies the patched templates onto the desired state, as upstream does after all patches ran:
 * InfrastructureCluster and ControlPlane with computePatchedObject (ControlPlane preserving version, replicas and
 * `machineTemplate` metadata/infrastructureRef/node timeouts), the control plane machine infrastructure and
 * MachineDeployment templates with computePatchedTemplate, MachinePool bootstrap/infrastructure objects with
 * computePatchedObject. Call it only when the ClusterClass has patches (upstream skips all of this otherwise).
 *
 * @example
 * const desiredWithPatches = computePatchedDesiredState(desired, computePatchedTargets({ patches, targets, variables }));
 */
export function computePatchedDesiredState(
  desired: DesiredState,
  patchedTargets: readonly PatchTarget[],
): DesiredState {
  const infrastructureCluster = computePatchedObject(
    desired.infrastructureCluster,
    template(patchedTargets, HolderKind.InfrastructureCluster),
  );
  const controlPlaneObject = computePatchedObject(
    desired.controlPlane.object,
    template(patchedTargets, HolderKind.ControlPlane),
    controlPlanePreserveFields,
  );
  const cpMachine = desired.controlPlane.infrastructureMachineTemplate;
  const controlPlaneInfrastructureMachineTemplate =
    cpMachine === undefined
      ? undefined
      : computePatchedTemplate(cpMachine, template(patchedTargets, HolderKind.ControlPlaneMachineInfrastructure));

  const machineDeployments: Record<string, DesiredMachineDeployment> = {};
  for (const name of Object.keys(desired.machineDeployments).sort()) {
    const md = desired.machineDeployments[name];
    if (md === undefined) continue;
    machineDeployments[name] = {
      ...md,
      bootstrapTemplate: computePatchedTemplate(
        md.bootstrapTemplate,
        template(patchedTargets, HolderKind.MachineDeploymentBootstrap, name),
      ),
      infrastructureMachineTemplate: computePatchedTemplate(
        md.infrastructureMachineTemplate,
        template(patchedTargets, HolderKind.MachineDeploymentInfrastructure, name),
      ),
    };
  }
  const machinePools: Record<string, DesiredMachinePool> = {};
  for (const name of Object.keys(desired.machinePools).sort()) {
    const mp = desired.machinePools[name];
    if (mp === undefined) continue;
    machinePools[name] = {
      ...mp,
      bootstrapObject: computePatchedObject(
        mp.bootstrapObject,
        template(patchedTargets, HolderKind.MachinePoolBootstrap, name),
      ),
      infrastructureMachinePoolObject: computePatchedObject(
        mp.infrastructureMachinePoolObject,
        template(patchedTargets, HolderKind.MachinePoolInfrastructure, name),
      ),
    };
  }

  return {
    ...desired,
    infrastructureCluster,
    controlPlane: {
      ...desired.controlPlane,
      object: controlPlaneObject,
      ...(controlPlaneInfrastructureMachineTemplate === undefined
        ? {}
        : { infrastructureMachineTemplate: controlPlaneInfrastructureMachineTemplate }),
    },
    machineDeployments,
    machinePools,
  };
}
