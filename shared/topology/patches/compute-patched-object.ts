// Copying a patched template's spec back onto a desired object or template (upstream's patchObject/patchTemplate).
import { CapiError, describeObject } from '#shared/errors/index.ts';
import { cloneJson } from '#shared/topology/patches/patch-variables.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** A field path as segments: `['spec', 'replicas']`. */
export type FieldPath = readonly string[];

/**
 * ControlPlane fields the topology controller sets itself and patches must not change (upstream's PreserveFields
 * in updateDesiredState, from both the v1beta1 and the v1beta2 ControlPlane contract).
 */
export const controlPlanePreserveFields: readonly FieldPath[] = [
  ['spec', 'machineTemplate', 'metadata'],
  ['spec', 'machineTemplate', 'readinessGates'],
  ['spec', 'machineTemplate', 'spec', 'readinessGates'],
  ['spec', 'machineTemplate', 'taints'],
  ['spec', 'machineTemplate', 'spec', 'taints'],
  ['spec', 'machineTemplate', 'infrastructureRef'],
  ['spec', 'machineTemplate', 'spec', 'infrastructureRef'],
  ['spec', 'machineTemplate', 'nodeDrainTimeout'],
  ['spec', 'machineTemplate', 'nodeVolumeDetachTimeout'],
  ['spec', 'machineTemplate', 'nodeDeletionTimeout'],
  ['spec', 'machineTemplate', 'spec', 'deletion', 'nodeDrainTimeoutSeconds'],
  ['spec', 'machineTemplate', 'spec', 'deletion', 'nodeVolumeDetachTimeoutSeconds'],
  ['spec', 'machineTemplate', 'spec', 'deletion', 'nodeDeletionTimeoutSeconds'],
  ['spec', 'replicas'],
  ['spec', 'version'],
  ['spec', 'rollout', 'after'],
];

/**
 * Labels and annotations the topology sets itself, which patches may not change (upstream's
 * alwaysPreserveLabelsAndAnnotations in updateDesiredState).
 */
export const alwaysPreservedMetadataFields: readonly FieldPath[] = [
  ['metadata', 'labels', 'cluster.x-k8s.io/cluster-name'],
  ['metadata', 'labels', 'topology.cluster.x-k8s.io/owned'],
  ['metadata', 'labels', 'topology.cluster.x-k8s.io/deployment-name'],
  ['metadata', 'labels', 'topology.cluster.x-k8s.io/pool-name'],
  ['metadata', 'annotations', 'cluster.x-k8s.io/cloned-from-name'],
  ['metadata', 'annotations', 'cluster.x-k8s.io/cloned-from-groupkind'],
];

/** A field copied from the patched template (`src`) to the desired object (`dest`). */
type CopiedField = { readonly src: FieldPath; readonly dest: FieldPath };

/** Upstream's patchObject: the object's spec and metadata from the template's `spec.template`. */
const objectFields: readonly CopiedField[] = [
  { src: ['spec', 'template', 'spec'], dest: ['spec'] },
  { src: ['spec', 'template', 'metadata', 'labels'], dest: ['metadata', 'labels'] },
  { src: ['spec', 'template', 'metadata', 'annotations'], dest: ['metadata', 'annotations'] },
];

/** Upstream's patchTemplate: the template's own metadata and `spec.template` (spec and metadata). */
const templateFields: readonly CopiedField[] = [
  { src: ['metadata', 'labels'], dest: ['metadata', 'labels'] },
  { src: ['metadata', 'annotations'], dest: ['metadata', 'annotations'] },
  { src: ['spec', 'template', 'spec'], dest: ['spec', 'template', 'spec'] },
  { src: ['spec', 'template', 'metadata', 'labels'], dest: ['spec', 'template', 'metadata', 'labels'] },
  { src: ['spec', 'template', 'metadata', 'annotations'], dest: ['spec', 'template', 'metadata', 'annotations'] },
];

/** The patched spec could not be copied (missing `spec.template.spec`, or a path through a non-object). */
export class PatchedObjectError extends CapiError {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** unstructured.NestedFieldNoCopy: found only when every parent is an object and the last key exists. */
function getNested(obj: Record<string, unknown>, path: FieldPath): { found: boolean; value?: unknown } {
  let current: unknown = obj;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return { found: false };
    current = current[key];
  }
  return { found: true, value: current };
}

/** unstructured.SetNestedField on our own copy: creates missing parents, fails on a non-object parent. */
function setNested(obj: Record<string, unknown>, path: FieldPath, value: unknown, describe: () => string): void {
  let current = obj;
  path.slice(0, -1).forEach((key, i) => {
    if (!Object.hasOwn(current, key)) {
      Object.defineProperty(current, key, { value: {}, enumerable: true, writable: true, configurable: true });
    }
    const next = current[key];
    if (!isObject(next)) {
      throw new PatchedObjectError(
        `failed to set field "${path.join('.')}" on ${describe()}: value cannot be set because ${path.slice(0, i + 1).join('.')} is not a map`,
      );
    }
    current = next;
  });
  const last = path[path.length - 1] ?? '';
  Object.defineProperty(current, last, {
    value: cloneJson(value),
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function patchUnstructured(
  original: Unstructured,
  modified: Unstructured,
  fields: readonly CopiedField[],
  preserveFields: readonly FieldPath[],
): Unstructured {
  const describe = (u: Unstructured): string => describeObject(u.kind, u.metadata.namespace, u.metadata.name);
  const patched = cloneJson(original);
  const preserved = preserveFields
    .map((path) => ({ path, ...getNested(patched, path) }))
    .filter((field) => field.found);
  const [required] = fields.filter((f) => f.src.join('.') === 'spec.template.spec');
  if (required && !getNested(modified, required.src).found) {
    throw new PatchedObjectError(
      `failed to apply patch to ${describe(original)}: missing field "${required.src.join('.')}" in ${describe(modified)}`,
    );
  }
  try {
    for (const field of fields) {
      // NOTE: as upstream's CopyFields, a field the patched template does not have leaves the desired one as is.
      const src = getNested(modified, field.src);
      if (src.found) setNested(patched, field.dest, src.value, () => describe(original));
    }
    for (const field of preserved) setNested(patched, field.path, field.value, () => describe(original));
  } catch (err) {
    throw new PatchedObjectError(
      `failed to apply patch to ${describe(original)}: ${(err as Error).message}`,
      {},
      { cause: err },
    );
  }
  return patched;
}

/**
 * Upstream's patchObject: the desired object's `spec` becomes the patched template's `spec.template.spec` (so a
 * field the patches removed is gone, and fields only the desired object had are dropped), its labels and annotations
 * the patched template's `spec.template.metadata` ones (synced from the desired object before patching,
 * computeTargetsWithDesiredMetadata; the topology's own labels and cloned-from annotations kept), then each preserved field
 * that the desired object had is put back with the desired object's value (a preserved field the desired object did
 * not have keeps the patched template's value). Used for the InfrastructureCluster, the ControlPlane (with
 * {@link controlPlanePreserveFields}) and MachinePool bootstrap/infrastructure objects. Inputs are not mutated.
 *
 * @example
 * computePatchedObject(desiredControlPlane, patchedControlPlaneTemplate, controlPlanePreserveFields);
 */
export function computePatchedObject(
  desired: Unstructured,
  patchedTemplate: Unstructured,
  preserveFields: readonly FieldPath[] = [],
): Unstructured {
  return patchUnstructured(desired, patchedTemplate, objectFields, [
    ...preserveFields,
    ...alwaysPreservedMetadataFields,
  ]);
}

/**
 * Upstream's patchTemplate: the desired template's `spec.template.spec`, `spec.template.metadata` labels/annotations
 * and own labels/annotations become the patched template's (the topology's own labels and cloned-from annotations
 * kept); everything else of the desired template (name, owner) is kept.
 * Used for the control plane's machine infrastructure and MachineDeployment bootstrap/infrastructure templates.
 *
 * @example
 * computePatchedTemplate(desiredInfraMachineTemplate, patchedInfraMachineTemplate);
 */
export function computePatchedTemplate(desired: Unstructured, patchedTemplate: Unstructured): Unstructured {
  return patchUnstructured(desired, patchedTemplate, templateFields, alwaysPreservedMetadataFields);
}
