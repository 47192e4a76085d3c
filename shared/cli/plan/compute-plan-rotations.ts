// Template rotation in `plan` (upstream reconcileReferencedTemplate, without a server): a cloned template whose spec
// or kind would change is not edited but cloned under a new name, and the object that references it is pointed at the
// new name; the old one goes once unused. Pure.
import { controlPlaneContractPaths } from '#shared/topology/contract/control-plane-contract.ts';
import { computeHeldBack } from '#shared/topology/desired/compute-held-back.ts';
import { computeSimpleName, namePrefixes } from '#shared/topology/desired/names.ts';
import { getPath, setPath, sortKeysDeep } from '#shared/topology/desired/paths.ts';
import { groupOf } from '#shared/topology/desired/template-to-object.ts';
import type { CurrentState, DesiredMachineDeployment, DesiredState, Unstructured } from '#shared/topology/types.ts';

/** One rotated template: the object in use now and the clone that replaces it. */
export type PlannedRotation = { readonly replaced: Unstructured; readonly created: Unstructured };

export type PlanRotations = { readonly desired: DesiredState; readonly rotations: readonly PlannedRotation[] };

/** `overlay` merged into `base` (maps merged key by key, anything else replaced), as `plan` compares objects. */
export function computeOverlay(base: unknown, overlay: unknown): unknown {
  if (
    typeof base !== 'object' ||
    base === null ||
    Array.isArray(base) ||
    typeof overlay !== 'object' ||
    overlay === null ||
    Array.isArray(overlay)
  ) {
    return overlay === undefined ? base : overlay;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(overlay as Record<string, unknown>)) out[k] = computeOverlay(out[k], v);
  return out;
}

/**
 * Whether applying `desired` over `current` changes its spec or its kind: the rotation rule. Fields only `current`
 * has (server defaults of an object read back) do not count, as upstream's dry-run comparison ignores them.
 */
export function isTemplateRotated(current: Unstructured, desired: Unstructured): boolean {
  if (groupOf(current.apiVersion) !== groupOf(desired.apiVersion) || current.kind !== desired.kind) return true;
  const merged = computeOverlay(current['spec'], desired['spec']);
  return JSON.stringify(sortKeysDeep(merged)) !== JSON.stringify(sortKeysDeep(current['spec']));
}

/**
 * Rotates the cloned templates of the control plane and of each MachineDeployment whose spec would change; skips the
 * ones an upgrade holds (a pass leaves them alone, as the apply step does). `isTaken` tells names in use, so a
 * generated name never collides with an input object.
 *
 * @example
 * const { desired: rotated, rotations } = computePlanRotations(current, desired, randomSuffix, (kind, name) => false);
 */
export function computePlanRotations(
  current: CurrentState,
  desired: DesiredState,
  randomSuffix: () => string,
  isTaken: (kind: string, name: string) => boolean,
): PlanRotations {
  const clusterName = current.cluster.metadata.name ?? '';
  const rotations: PlannedRotation[] = [];
  const rotate = (currentTemplate: Unstructured | undefined, template: Unstructured, prefix: string): Unstructured => {
    if (!currentTemplate || !isTemplateRotated(currentTemplate, template)) return template;
    let name = computeSimpleName(prefix, randomSuffix);
    while (isTaken(template.kind, name) || rotations.some((r) => r.created.metadata.name === name))
      name = computeSimpleName(prefix, randomSuffix);
    const created: Unstructured = { ...template, metadata: { ...template.metadata, name } };
    rotations.push({ replaced: currentTemplate, created });
    return created;
  };

  const held = computeHeldBack(current, desired);
  let controlPlane = desired.controlPlane;
  const cpTemplate = desired.controlPlane.infrastructureMachineTemplate;
  if (cpTemplate && current.controlPlane?.object && !held.controlPlane) {
    const template = rotate(
      current.controlPlane.infrastructureMachineTemplate,
      cpTemplate,
      namePrefixes.controlPlaneInfrastructureMachineTemplate(clusterName),
    );
    if (template !== cpTemplate) {
      const refPath = controlPlaneContractPaths(desired.controlPlane.contract).machineTemplateInfrastructureRef;
      const ref = getPath(controlPlane.object, refPath) as Record<string, unknown>;
      controlPlane = {
        ...controlPlane,
        infrastructureMachineTemplate: template,
        object: setPath(controlPlane.object, refPath, { ...ref, name: template.metadata.name }),
      };
    }
  }

  const machineDeployments: Record<string, DesiredMachineDeployment> = {};
  for (const [name, md] of Object.entries(desired.machineDeployments)) {
    const now = current.machineDeployments[name];
    if (!now || held.machineDeployments.update.has(name)) {
      machineDeployments[name] = md;
      continue;
    }
    const prefix = namePrefixes.machineDeploymentTemplate(clusterName, name);
    const infrastructure = rotate(now.infrastructureMachineTemplate, md.infrastructureMachineTemplate, prefix);
    const bootstrap = rotate(now.bootstrapTemplate, md.bootstrapTemplate, prefix);
    let object = md.object;
    if (infrastructure !== md.infrastructureMachineTemplate)
      object = setPath(object, ['spec', 'template', 'spec', 'infrastructureRef', 'name'], infrastructure.metadata.name);
    if (bootstrap !== md.bootstrapTemplate)
      object = setPath(object, ['spec', 'template', 'spec', 'bootstrap', 'configRef', 'name'], bootstrap.metadata.name);
    machineDeployments[name] = {
      ...md,
      object,
      infrastructureMachineTemplate: infrastructure,
      bootstrapTemplate: bootstrap,
    };
  }
  return { desired: { ...desired, controlPlane, machineDeployments }, rotations };
}
