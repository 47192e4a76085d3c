// Upstream's createRequest syncs the labels and annotations computed for the desired objects back into the templates
// before the patches run, so patches see (and may change) them: an object's metadata into its template's
// `spec.template.metadata`, a template clone's metadata into the class template's own metadata.
import { HolderKind, type PatchTarget } from '#shared/topology/patches/patch-target.ts';
import type { DesiredState, Unstructured } from '#shared/topology/types.ts';

type Metadata = { labels?: Record<string, string>; annotations?: Record<string, string> };

function desiredOf(
  target: PatchTarget,
  desired: DesiredState,
): { object: Unstructured; isTemplate: boolean } | undefined {
  const h = target.holder;
  switch (h.kind) {
    case HolderKind.InfrastructureCluster:
      return { object: desired.infrastructureCluster, isTemplate: false };
    case HolderKind.ControlPlane:
      return { object: desired.controlPlane.object, isTemplate: false };
    case HolderKind.ControlPlaneMachineInfrastructure: {
      const t = desired.controlPlane.infrastructureMachineTemplate;
      return t ? { object: t, isTemplate: true } : undefined;
    }
    case HolderKind.MachineDeploymentBootstrap:
    case HolderKind.MachineDeploymentInfrastructure: {
      const md = desired.machineDeployments[h.machineDeploymentTopologyName];
      if (!md) return undefined;
      const object =
        h.kind === HolderKind.MachineDeploymentBootstrap ? md.bootstrapTemplate : md.infrastructureMachineTemplate;
      return { object, isTemplate: true };
    }
    case HolderKind.MachinePoolBootstrap:
    case HolderKind.MachinePoolInfrastructure: {
      const mp = desired.machinePools[h.machinePoolTopologyName];
      if (!mp) return undefined;
      const object =
        h.kind === HolderKind.MachinePoolBootstrap ? mp.bootstrapObject : mp.infrastructureMachinePoolObject;
      return { object, isTemplate: false };
    }
  }
}

function withMetadata(base: Metadata | undefined, from: Metadata): Metadata {
  return {
    ...(base ?? {}),
    ...(from.labels ? { labels: { ...from.labels } } : {}),
    ...(from.annotations ? { annotations: { ...from.annotations } } : {}),
  };
}

/**
 * The targets with each desired object's labels and annotations synced into its template (upstream's createRequest,
 * before any patch): objects (InfrastructureCluster, ControlPlane, MachinePool bootstrap/infrastructure) into
 * `spec.template.metadata`, template clones (control plane machine infrastructure, MachineDeployment bootstrap and
 * infrastructure) into the template's own `metadata`. Inputs are not mutated.
 *
 * @example
 * const targets = computeTargetsWithDesiredMetadata(computePatchTargets(...), unpatchedDesiredState);
 */
export function computeTargetsWithDesiredMetadata(
  targets: readonly PatchTarget[],
  desired: DesiredState,
): PatchTarget[] {
  return targets.map((target) => {
    const found = desiredOf(target, desired);
    if (!found) return target;
    const from = found.object.metadata as Metadata;
    const template = structuredClone(target.template);
    if (found.isTemplate) {
      template.metadata = { ...template.metadata, ...withMetadata(template.metadata as Metadata, from) };
    } else {
      const spec = (template['spec'] ?? {}) as { template?: { metadata?: Metadata } & Record<string, unknown> };
      template['spec'] = {
        ...spec,
        template: { ...(spec.template ?? {}), metadata: withMetadata(spec.template?.metadata, from) },
      };
    }
    return { ...target, template };
  });
}
