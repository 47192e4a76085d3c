// The inline patch engine: applies a ClusterClass's patches to the topology's templates, in ClusterClass order.
import type { ClusterClassPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { applyJSONPatch, ApplyJSONPatchError } from '#shared/topology/patches/apply-json-patch.ts';
import { PatchError, PatchErrorReason } from '#shared/topology/patches/errors.ts';
import type { PatchErrorLocation } from '#shared/topology/patches/errors.ts';
import {
  generateJSONPatches,
  GenerateJSONPatchError,
  patchIsEnabled,
} from '#shared/topology/patches/generate-json-patches.ts';
import type { JSONPatchOperation } from '#shared/topology/patches/generate-json-patches.ts';
import { matchesSelector } from '#shared/topology/patches/matches-selector.ts';
import { describePatchTarget } from '#shared/topology/patches/patch-target.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import { PatchVariablesResolver } from '#shared/topology/patches/patch-variables.ts';
import type { PatchVariablesInput, TargetVariables } from '#shared/topology/patches/patch-variables.ts';
import { validateInlinePatch } from '#shared/topology/patches/validate-patches.ts';

export type ComputePatchedTargetsInput = {
  /** ClusterClass `spec.patches`, in order. */
  readonly patches: readonly ClusterClassPatch[];
  /** The templates to patch (see computePatchTargets). */
  readonly targets: readonly PatchTarget[];
  /** What the variables of each target are computed from. */
  readonly variables: PatchVariablesInput;
};

type GeneratedPatch = {
  readonly targetIndex: number;
  readonly definitionIndex: number;
  readonly operations: readonly JSONPatchOperation[];
};

function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function targetLocation(base: PatchErrorLocation, target: PatchTarget): PatchErrorLocation {
  return {
    ...base,
    targetId: target.id,
    target: describePatchTarget(target),
    templateKind: target.template.kind,
    templateName: target.template.metadata.name,
  };
}

/**
 * Upstream's inline generator for one ClusterClass patch: for every target, the definitions whose selector matches
 * (in definition order); if any match, `enabledIf` is evaluated with the target's variables and, when enabled, each
 * matching definition becomes one JSON patch. Everything is generated before anything is applied.
 */
function generatePatch(
  patch: ClusterClassPatch,
  base: PatchErrorLocation,
  targets: readonly PatchTarget[],
  resolver: PatchVariablesResolver,
): GeneratedPatch[] {
  const generated: GeneratedPatch[] = [];
  targets.forEach((target, targetIndex) => {
    const at = targetLocation(base, target);
    let variables: TargetVariables;
    try {
      variables = resolver.forTarget(target);
    } catch (err) {
      throw new PatchError(PatchErrorReason.GeneratePatchFailed, at, `failed to calculate variables: ${why(err)}`, {
        cause: err,
      });
    }
    const matching = (patch.definitions ?? [])
      .map((definition, definitionIndex) => ({ definition, definitionIndex }))
      .filter(({ definition }) => matchesSelector(target, variables.template, definition.selector));
    if (matching.length === 0) return;
    let enabled: boolean;
    try {
      enabled = patchIsEnabled(patch.enabledIf, variables.merged);
    } catch (err) {
      throw new PatchError(PatchErrorReason.GeneratePatchFailed, at, why(err), { cause: err });
    }
    if (!enabled) return;
    for (const { definition, definitionIndex } of matching) {
      try {
        generated.push({
          targetIndex,
          definitionIndex,
          operations: generateJSONPatches(definition.jsonPatches, variables.merged),
        });
      } catch (err) {
        const location =
          err instanceof GenerateJSONPatchError
            ? { ...at, definitionIndex, jsonPatchIndex: err.jsonPatchIndex, path: err.path }
            : { ...at, definitionIndex };
        throw new PatchError(PatchErrorReason.GeneratePatchFailed, location, why(err), { cause: err });
      }
    }
  });
  return generated;
}

/**
 * Upstream's applyPatchToRequest + patchTemplateSpec: applies the JSON patch to a copy of the template and keeps
 * only the patched `spec` (changes elsewhere are dropped); a patched template without `spec` is an error.
 */
function applyGenerated(template: Unstructured, operations: readonly JSONPatchOperation[]): Unstructured {
  const patched = applyJSONPatch(template, operations);
  if (!Object.hasOwn(patched, 'spec')) throw new Error('failed to apply patch to template: missing field "spec"');
  return { ...template, spec: patched['spec'] };
}

/**
 * One inline ClusterClass patch applied to the targets (one step of the patch engine): validated, generated for
 * every target against the templates as they are now, then applied. Returns new targets (same order, ids and
 * holders); the inputs are never mutated. Throws a PatchError naming the patch, the definition and jsonPatch
 * indexes, the JSON pointer and the target.
 *
 * @example
 * const next = computeInlinePatchedTargets(clusterClass.spec.patches[0], 0, targets, new PatchVariablesResolver(variables));
 */
export function computeInlinePatchedTargets(
  patch: ClusterClassPatch,
  patchIndex: number,
  targets: readonly PatchTarget[],
  resolver: PatchVariablesResolver,
): PatchTarget[] {
  validateInlinePatch(patch, patchIndex);
  const base = { patchName: patch.name, patchIndex };
  const templates = targets.map((target) => target.template);
  const generated = generatePatch(patch, base, targets, resolver);
  for (const { targetIndex, definitionIndex, operations } of generated) {
    const target = targets[targetIndex];
    const template = templates[targetIndex];
    if (target === undefined || template === undefined) continue;
    try {
      templates[targetIndex] = applyGenerated(template, operations);
    } catch (err) {
      const at = { ...targetLocation(base, { ...target, template }), definitionIndex };
      const location =
        err instanceof ApplyJSONPatchError ? { ...at, jsonPatchIndex: err.operationIndex, path: err.path } : at;
      throw new PatchError(PatchErrorReason.ApplyPatchFailed, location, why(err), { cause: err });
    }
  }
  return targets.map((target, i) => ({ ...target, template: templates[i] ?? target.template }));
}

/**
 * Applies the ClusterClass's inline patches to the targets' templates and returns new targets (same order, ids and
 * holders); inputs are never mutated and the result is deterministic.
 *
 * Order is the ClusterClass's: patch by patch, each seeing the templates as the previous patches left them; within a
 * patch, target by target, the matching definitions in order, and within a definition its jsonPatches in order — so
 * when two patches write the same path, the later one wins. A patch with `external` throws
 * ExternalPatchNotSupportedError (external patches need the Runtime SDK: see runPatchEngine in
 * shared/topology/run-patch-engine.ts); anything else that fails throws a PatchError naming the patch, the
 * definition and jsonPatch indexes, the JSON pointer and the target, and no partial result is returned.
 *
 * @example
 * const patched = computePatchedTargets({
 *   patches: clusterClass.spec.patches ?? [],
 *   targets: computePatchTargets({ infrastructureClusterTemplate, controlPlaneTemplate }),
 *   variables: { topology: cluster.spec.topology, definitions: clusterClass.status.variables ?? [], builtins },
 * });
 */
export function computePatchedTargets(input: ComputePatchedTargetsInput): PatchTarget[] {
  const { patches, targets } = input;
  if (patches.length === 0) return [...targets];
  patches.forEach((patch, patchIndex) => validateInlinePatch(patch, patchIndex));
  const resolver = new PatchVariablesResolver(input.variables);
  let current: PatchTarget[] = [...targets];
  patches.forEach((patch, patchIndex) => {
    current = computeInlinePatchedTargets(patch, patchIndex, current, resolver);
  });
  return current;
}
