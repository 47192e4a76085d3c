// Upstream's patch engine (patches.Engine.Apply) with external patches: the ClusterClass patches in order, each
// either applied inline (pure) or sent to its GeneratePatches extension and the answer applied (pure), then every
// ValidateTopology extension over the patched templates, then the patched templates copied onto the desired state.
// The only I/O is the extension calls, behind PatchExtensions.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClassPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import { VariableDefinitionFrom } from '#shared/api/core/v1beta2/variables.ts';
import type { CommonResponse, GeneratePatchesResponse } from '#shared/api/runtime-extension.ts';
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { callNamedExtension, type ExtensionCallDeps, type ExtensionRegistry } from '#shared/runtime-sdk/index.ts';
import { computePatchEngineInput } from '#shared/topology/desired/apply-patches.ts';
import {
  computeExternallyPatchedTargets,
  computeGeneratePatchesRequest,
  computeInlinePatchedTargets,
  computePatchedDesiredState,
  computeValidateTopologyRequest,
  PatchVariablesResolver,
  type GeneratePatchesRequest,
  type PatchTarget,
  type PatchVariablesInput,
  type ValidateTopologyRequest,
} from '#shared/topology/patches/index.ts';
import type { Blueprint, DesiredState } from '#shared/topology/types.ts';

/** The Runtime Extension calls the engine makes, by registered handler name (`<handler>.<ExtensionConfig>`). */
export type PatchExtensions = {
  readonly generatePatches: (name: string, request: GeneratePatchesRequest) => Promise<GeneratePatchesResponse>;
  readonly validateTopology: (name: string, request: ValidateTopologyRequest) => Promise<CommonResponse>;
};

/** Why the patch engine failed: names the ClusterClass patch (and, through `cause`, the extension and handler). */
export const PatchEngineReason = {
  GeneratePatchesFailed: 'GeneratePatchesFailed',
  ValidateTopologyFailed: 'ValidateTopologyFailed',
  NoPatchGenerator: 'NoPatchGenerator',
} as const;
export type PatchEngineReason = (typeof PatchEngineReason)[keyof typeof PatchEngineReason];

/** A ClusterClass patch the engine could not run; `fieldPath` is `spec.patches[i]` of the ClusterClass. */
export class PatchEngineError extends CapiError {}

/**
 * The extension calls of a pass, through the Runtime SDK client: the handler must be registered on a discovered
 * ExtensionConfig whose namespaceSelector matches the Cluster's namespace.
 *
 * @example
 * const extensions = createPatchExtensions({ kube }, cluster.metadata.namespace);
 */
export function createPatchExtensions(
  deps: ExtensionCallDeps & { readonly registry?: ExtensionRegistry },
  namespace: string,
): PatchExtensions {
  return {
    generatePatches: (name, request) => callNamedExtension(deps, 'GeneratePatches', name, namespace, request),
    validateTopology: (name, request) => callNamedExtension(deps, 'ValidateTopology', name, namespace, request),
  };
}

/** Whether a ClusterClass has a patch that needs a Runtime Extension. */
export function hasExternalPatches(blueprint: Blueprint): boolean {
  return (blueprint.clusterClass.spec.patches ?? []).some((patch) => patch.external !== undefined);
}

function patchError(
  reason: PatchEngineReason,
  blueprint: Blueprint,
  patchIndex: number,
  message: string,
  cause?: unknown,
): PatchEngineError {
  const cc = blueprint.clusterClass.metadata;
  return new PatchEngineError(
    message,
    {
      kind: 'ClusterClass',
      ...(cc.namespace ? { namespace: cc.namespace } : {}),
      ...(cc.name ? { name: cc.name } : {}),
      fieldPath: `spec.patches[${patchIndex}]`,
      reason,
    },
    cause === undefined ? undefined : { cause },
  );
}

/** Upstream's definitionFrom: `inline` for inline patches, the patch name for external ones. */
function definitionFromOf(patch: ClusterClassPatch): string {
  return patch.external === undefined ? VariableDefinitionFrom.Inline : patch.name;
}

/**
 * Applies the ClusterClass patches to the unpatched desired state, in ClusterClass order, inline and external alike:
 * every patch sees the templates as the previous ones left them; an external patch's GeneratePatches request carries
 * the templates with their holder references, the variables whose definitions come from that patch, and the patch's
 * settings. Then each patch with a ValidateTopology extension validates the patched templates (in order). Nothing
 * is returned unless every step succeeded: a failing extension fails the pass with an error naming the patch, the
 * extension handler and the hook.
 *
 * @example
 * const desired = await runPatchEngine(createPatchExtensions({ kube }, 'default'), { cluster, blueprint, desired: unpatched });
 */
export async function runPatchEngine(
  extensions: PatchExtensions,
  input: { readonly cluster: Cluster; readonly blueprint: Blueprint; readonly desired: DesiredState },
): Promise<DesiredState> {
  const { cluster, blueprint, desired } = input;
  const patches = blueprint.clusterClass.spec.patches ?? [];
  if (patches.length === 0) return desired;
  const { targets: initial, variables, refs } = computePatchEngineInput(cluster, blueprint, desired);
  const resolvers = new Map<string, PatchVariablesResolver>();
  const resolverOf = (from: string, vars: PatchVariablesInput): PatchVariablesResolver => {
    const found = resolvers.get(from);
    if (found) return found;
    const created = new PatchVariablesResolver(vars, from);
    resolvers.set(from, created);
    return created;
  };

  let targets: PatchTarget[] = [...initial];
  for (const [patchIndex, patch] of patches.entries()) {
    const resolver = resolverOf(definitionFromOf(patch), variables);
    if ((patch.definitions ?? []).length > 0) {
      targets = computeInlinePatchedTargets(patch, patchIndex, targets, resolver);
      continue;
    }
    const name = patch.external?.generatePatchesExtension;
    if (name === undefined || name === '') {
      throw patchError(
        PatchEngineReason.NoPatchGenerator,
        blueprint,
        patchIndex,
        `failed to create patch generator for patch "${patch.name}": it has neither definitions nor external.generatePatchesExtension`,
      );
    }
    const request = computeGeneratePatchesRequest(targets, refs, resolver, patch.external?.settings);
    let response: GeneratePatchesResponse;
    try {
      response = await extensions.generatePatches(name, request);
    } catch (err) {
      throw patchError(
        PatchEngineReason.GeneratePatchesFailed,
        blueprint,
        patchIndex,
        `failed to generate patches for patch "${patch.name}": ${errorMessage(err)}`,
        err,
      );
    }
    targets = computeExternallyPatchedTargets(targets, refs, response.items ?? [], {
      patchName: patch.name,
      patchIndex,
    });
  }

  // NOTE: upstream validates the last GeneratePatches request: the patched templates with the variables of the
  // last patch in the ClusterClass (its request object is reused patch after patch).
  const last = patches[patches.length - 1];
  const validators = patches.flatMap((patch, patchIndex) =>
    patch.external?.validateTopologyExtension
      ? [{ patch, patchIndex, name: patch.external.validateTopologyExtension }]
      : [],
  );
  if (validators.length > 0 && last !== undefined) {
    const lastRequest = computeGeneratePatchesRequest(targets, refs, resolverOf(definitionFromOf(last), variables));
    for (const { patch, patchIndex, name } of validators) {
      try {
        await extensions.validateTopology(name, computeValidateTopologyRequest(lastRequest, patch.external?.settings));
      } catch (err) {
        throw patchError(
          PatchEngineReason.ValidateTopologyFailed,
          blueprint,
          patchIndex,
          `validation of patch "${patch.name}" failed: ${errorMessage(err)}`,
          err,
        );
      }
    }
  }
  return computePatchedDesiredState(desired, targets);
}
