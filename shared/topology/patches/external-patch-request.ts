// The GeneratePatches and ValidateTopology requests of external patches (upstream's createRequest,
// addVariablesForPatch and convertToValidationRequest), built from the patch targets as they are at that step. Pure.
import { ConversionDataAnnotation } from '#shared/api/conversion/index.ts';
import type { HolderReference } from '#shared/api/runtime-extension.ts';
import { computeSha256 } from '#shared/hash/sha256.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import type { PatchVariablesResolver } from '#shared/topology/patches/patch-variables.ts';
import { cloneJson } from '#shared/topology/patches/patch-variables.ts';
import type { VariableMap } from '#shared/topology/patches/variable-value.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** What a request item is known by: its uid (unique in one request) and the reference to the object holding it. */
export type PatchItemRef = { readonly uid: string; readonly holderReference: HolderReference };

/** One variable on the wire (`runtimehooksv1.Variable`). */
export type RequestVariable = { readonly name: string; readonly value: unknown };

export type GeneratePatchesRequestItem = {
  readonly uid: string;
  readonly holderReference: HolderReference;
  readonly object: Unstructured;
  readonly variables?: readonly RequestVariable[];
};

/** The body of a GeneratePatches call, without apiVersion/kind (the Runtime SDK client adds them). */
export type GeneratePatchesRequest = {
  readonly settings?: Readonly<Record<string, string>>;
  readonly variables?: readonly RequestVariable[];
  readonly items: readonly GeneratePatchesRequestItem[];
};

/** The body of a ValidateTopology call: the same items without uids. */
export type ValidateTopologyRequest = {
  readonly settings?: Readonly<Record<string, string>>;
  readonly variables?: readonly RequestVariable[];
  readonly items: readonly Omit<GeneratePatchesRequestItem, 'uid'>[];
};

/** Annotation kubectl leaves on objects; never sent to extensions (upstream's cleanupUnstructured). */
const LastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A stable request item uid for a target of a Cluster: UUID-shaped, derived from the Cluster's uid and the target id
 * (upstream draws a random UUID; a derived one keeps the request, and thus a pass, deterministic).
 *
 * @example
 * computeRequestItemUid('6b0c…', 'MachineDeploymentBootstrap/md-a'); // '3f2a9c1e-…'
 */
export function computeRequestItemUid(clusterUid: string, targetId: string): string {
  const hex = computeSha256(`${clusterUid}/${targetId}`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The template as it is sent: without managedFields, the last-applied and conversion-data annotations, and without
 * an empty annotations map (an extension would otherwise answer with a remove of `/metadata/annotations`).
 */
export function computeRequestObject(template: Unstructured): Unstructured {
  const object = cloneJson(template);
  const metadata: Record<string, unknown> = { ...object.metadata };
  delete metadata['managedFields'];
  const annotations = { ...((metadata['annotations'] as Record<string, string> | undefined) ?? {}) };
  delete annotations[LastAppliedConfigAnnotation];
  delete annotations[ConversionDataAnnotation];
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  else delete metadata['annotations'];
  return { ...object, metadata: metadata as Unstructured['metadata'] };
}

function toRequestVariables(variables: VariableMap): RequestVariable[] | undefined {
  if (variables.size === 0) return undefined;
  return [...variables].map(([name, value]) => ({ name, value: cloneJson(value) }));
}

function refOf(refs: ReadonlyMap<string, PatchItemRef>, target: PatchTarget): PatchItemRef {
  const ref = refs.get(target.id);
  // NOTE: refs are computed from the same targets; a missing one is a programming error, not a user's.
  if (ref === undefined) throw new Error(`no request item reference for patch target ${target.id}`);
  return ref;
}

/**
 * The GeneratePatches request of one external patch: the targets in order, each with its uid, holder reference,
 * template and its own variables (control plane / MachineDeployment / MachinePool overrides and builtins); the
 * Cluster's variables and `builtin.cluster` at the top; the patch's `external.settings`. Variables are the ones
 * whose definitions come from this patch (resolver built with the patch name), as upstream's addVariablesForPatch.
 *
 * @example
 * const request = computeGeneratePatchesRequest(targets, refs, new PatchVariablesResolver(variables, patch.name), patch.external?.settings);
 */
export function computeGeneratePatchesRequest(
  targets: readonly PatchTarget[],
  refs: ReadonlyMap<string, PatchItemRef>,
  resolver: PatchVariablesResolver,
  settings?: Readonly<Record<string, string>>,
): GeneratePatchesRequest {
  const variables = toRequestVariables(resolver.globalVariables());
  return {
    ...(settings === undefined || Object.keys(settings).length === 0 ? {} : { settings: { ...settings } }),
    ...(variables === undefined ? {} : { variables }),
    items: targets.map((target) => {
      const ref = refOf(refs, target);
      const own = toRequestVariables(resolver.forTarget(target).template);
      return {
        uid: ref.uid,
        holderReference: ref.holderReference,
        object: computeRequestObject(target.template),
        ...(own === undefined ? {} : { variables: own }),
      };
    }),
  };
}

/**
 * Upstream's convertToValidationRequest: the last GeneratePatches request's items and variables without uids, with
 * the validating patch's own settings.
 *
 * @example
 * const request = computeValidateTopologyRequest(lastRequest, patch.external?.settings);
 */
export function computeValidateTopologyRequest(
  request: GeneratePatchesRequest,
  settings?: Readonly<Record<string, string>>,
): ValidateTopologyRequest {
  return {
    ...(settings === undefined || Object.keys(settings).length === 0 ? {} : { settings: { ...settings } }),
    ...(request.variables === undefined ? {} : { variables: request.variables }),
    items: request.items.map(({ holderReference, object, variables }) => ({
      holderReference,
      object,
      ...(variables === undefined ? {} : { variables }),
    })),
  };
}
