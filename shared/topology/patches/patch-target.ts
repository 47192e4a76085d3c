// Patch targets ("request items" upstream): each template a ClusterClass patch may change, with the object holding it.
import type { Unstructured } from '#shared/topology/types.ts';

/** Which template of the topology a target is, named after the object that will be created from it. */
export const HolderKind = {
  InfrastructureCluster: 'InfrastructureCluster',
  ControlPlane: 'ControlPlane',
  ControlPlaneMachineInfrastructure: 'ControlPlaneMachineInfrastructure',
  MachineDeploymentBootstrap: 'MachineDeploymentBootstrap',
  MachineDeploymentInfrastructure: 'MachineDeploymentInfrastructure',
  MachinePoolBootstrap: 'MachinePoolBootstrap',
  MachinePoolInfrastructure: 'MachinePoolInfrastructure',
} as const;
export type HolderKind = (typeof HolderKind)[keyof typeof HolderKind];

export type MachineDeploymentHolder = {
  readonly kind: typeof HolderKind.MachineDeploymentBootstrap | typeof HolderKind.MachineDeploymentInfrastructure;
  readonly machineDeploymentTopologyName: string;
  readonly className: string;
};

export type MachinePoolHolder = {
  readonly kind: typeof HolderKind.MachinePoolBootstrap | typeof HolderKind.MachinePoolInfrastructure;
  readonly machinePoolTopologyName: string;
  readonly className: string;
};

export type PatchTargetHolder =
  | { readonly kind: typeof HolderKind.InfrastructureCluster }
  | { readonly kind: typeof HolderKind.ControlPlane }
  | { readonly kind: typeof HolderKind.ControlPlaneMachineInfrastructure }
  | MachineDeploymentHolder
  | MachinePoolHolder;

/** A template to patch: a stable id, what holds it, and the template object (apiVersion, kind, metadata, spec). */
export type PatchTarget = {
  readonly id: string;
  readonly holder: PatchTargetHolder;
  readonly template: Unstructured;
};

/**
 * The field of the holder object that references the object created from the template (upstream's
 * `HolderReference.FieldPath`): the Cluster for the InfrastructureCluster and ControlPlane, the ControlPlane for its
 * machine infrastructure, the MachineDeployment/MachinePool for their bootstrap and infrastructure.
 */
export const holderFieldPaths: Readonly<Record<HolderKind, string>> = {
  InfrastructureCluster: 'spec.infrastructureRef',
  ControlPlane: 'spec.controlPlaneRef',
  ControlPlaneMachineInfrastructure: 'spec.machineTemplate.spec.infrastructureRef',
  MachineDeploymentBootstrap: 'spec.template.spec.bootstrap.configRef',
  MachineDeploymentInfrastructure: 'spec.template.spec.infrastructureRef',
  MachinePoolBootstrap: 'spec.template.spec.bootstrap.configRef',
  MachinePoolInfrastructure: 'spec.template.spec.infrastructureRef',
};

/** The stable id of a target: its holder kind, plus the topology name for workers (`MachineDeploymentBootstrap/md-a`). */
export function patchTargetId(holder: PatchTargetHolder): string {
  if ('machineDeploymentTopologyName' in holder) return `${holder.kind}/${holder.machineDeploymentTopologyName}`;
  if ('machinePoolTopologyName' in holder) return `${holder.kind}/${holder.machinePoolTopologyName}`;
  return holder.kind;
}

/** `AWSMachineTemplate of MachineDeployment topology md-a (spec.template.spec.infrastructureRef)`, for messages. */
export function describePatchTarget(target: PatchTarget): string {
  const { holder } = target;
  const fieldPath = holderFieldPaths[holder.kind];
  let owner: string;
  if ('machineDeploymentTopologyName' in holder)
    owner = `MachineDeployment topology ${holder.machineDeploymentTopologyName}`;
  else if ('machinePoolTopologyName' in holder) owner = `MachinePool topology ${holder.machinePoolTopologyName}`;
  else if (holder.kind === HolderKind.ControlPlaneMachineInfrastructure) owner = 'ControlPlane';
  else owner = 'Cluster';
  return `${target.template.kind} of ${owner} (${fieldPath})`;
}

export type MachineDeploymentTemplates = {
  readonly topologyName: string;
  readonly className: string;
  readonly bootstrapTemplate: Unstructured;
  readonly infrastructureMachineTemplate: Unstructured;
};

export type MachinePoolTemplates = {
  readonly topologyName: string;
  readonly className: string;
  readonly bootstrapTemplate: Unstructured;
  readonly infrastructureMachinePoolTemplate: Unstructured;
};

export type PatchTargetsInput = {
  readonly infrastructureClusterTemplate: Unstructured;
  readonly controlPlaneTemplate: Unstructured;
  /** Only when the ClusterClass defines `controlPlane.machineInfrastructure`. */
  readonly controlPlaneInfrastructureMachineTemplate?: Unstructured | undefined;
  /** One entry per MachineDeployment topology in the desired state, with its class's templates. */
  readonly machineDeployments?: readonly MachineDeploymentTemplates[];
  /** One entry per MachinePool topology in the desired state, with its class's templates. */
  readonly machinePools?: readonly MachinePoolTemplates[];
};

/**
 * The targets upstream's `createRequest` builds, in its order: InfrastructureCluster, ControlPlane, the control plane's
 * machine infrastructure (if any), then bootstrap + infrastructure per MachineDeployment topology and per MachinePool
 * topology. Workers are sorted by topology name (upstream iterates a map). Templates are not copied: the engine never
 * mutates them.
 *
 * @example
 * const targets = computePatchTargets({ infrastructureClusterTemplate, controlPlaneTemplate, machineDeployments: [
 *   { topologyName: 'md-a', className: 'default-worker', bootstrapTemplate, infrastructureMachineTemplate },
 * ] });
 * targets.map((t) => t.id); // ['InfrastructureCluster', 'ControlPlane', 'MachineDeploymentBootstrap/md-a', 'MachineDeploymentInfrastructure/md-a']
 */
export function computePatchTargets(input: PatchTargetsInput): PatchTarget[] {
  const targets: PatchTarget[] = [];
  const add = (holder: PatchTargetHolder, template: Unstructured): void => {
    targets.push({ id: patchTargetId(holder), holder, template });
  };
  add({ kind: HolderKind.InfrastructureCluster }, input.infrastructureClusterTemplate);
  add({ kind: HolderKind.ControlPlane }, input.controlPlaneTemplate);
  if (input.controlPlaneInfrastructureMachineTemplate !== undefined) {
    add({ kind: HolderKind.ControlPlaneMachineInfrastructure }, input.controlPlaneInfrastructureMachineTemplate);
  }
  for (const md of byTopologyName(input.machineDeployments ?? [])) {
    const base = { machineDeploymentTopologyName: md.topologyName, className: md.className };
    add({ kind: HolderKind.MachineDeploymentBootstrap, ...base }, md.bootstrapTemplate);
    add({ kind: HolderKind.MachineDeploymentInfrastructure, ...base }, md.infrastructureMachineTemplate);
  }
  for (const mp of byTopologyName(input.machinePools ?? [])) {
    const base = { machinePoolTopologyName: mp.topologyName, className: mp.className };
    add({ kind: HolderKind.MachinePoolBootstrap, ...base }, mp.bootstrapTemplate);
    add({ kind: HolderKind.MachinePoolInfrastructure, ...base }, mp.infrastructureMachinePoolTemplate);
  }
  return targets;
}

function byTopologyName<T extends { readonly topologyName: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.topologyName < b.topologyName ? -1 : a.topologyName > b.topologyName ? 1 : 0));
}

/**
 * The target with the given holder kind (and topology name for workers), as upstream's `getTemplateAsUnstructured`
 * looks request items up.
 */
export function findPatchTarget(
  targets: readonly PatchTarget[],
  kind: HolderKind,
  topologyName?: string,
): PatchTarget | undefined {
  return targets.find((t) => {
    if (t.holder.kind !== kind) return false;
    if ('machineDeploymentTopologyName' in t.holder) return t.holder.machineDeploymentTopologyName === topologyName;
    if ('machinePoolTopologyName' in t.holder) return t.holder.machinePoolTopologyName === topologyName;
    return true;
  });
}
