// ClusterClass inline patches (upstream's patch engine, pure): build the templates to patch, compute each one's
// variables, apply the patches in ClusterClass order, and copy the patched specs onto the desired objects.
//
// External patches (Runtime SDK) go through the same steps: computeGeneratePatchesRequest builds the request from
// the targets as they are, computeExternallyPatchedTargets applies the answer (the calls are made in
// shared/topology/run-patch-engine.ts, outside this pure folder).
//
// Flow (only when the ClusterClass has patches):
//   const targets = computePatchTargets({ infrastructureClusterTemplate, controlPlaneTemplate, ... });
//   const patched = computePatchedTargets({ patches, targets, variables: { topology, definitions, builtins } });
//   const desiredWithPatches = computePatchedDesiredState(desired, patched);
export { applyJSONPatch, ApplyJSONPatchError } from '#shared/topology/patches/apply-json-patch.ts';
export {
  computePatchedDesiredState,
  MissingPatchTargetError,
} from '#shared/topology/patches/compute-patched-desired-state.ts';
export {
  computePatchedObject,
  computePatchedTemplate,
  controlPlanePreserveFields,
  PatchedObjectError,
} from '#shared/topology/patches/compute-patched-object.ts';
export type { FieldPath } from '#shared/topology/patches/compute-patched-object.ts';
export {
  computeInlinePatchedTargets,
  computePatchedTargets,
} from '#shared/topology/patches/compute-patched-targets.ts';
export {
  computeExternallyPatchedTargets,
  computeMergePatched,
  PatchDocumentError,
} from '#shared/topology/patches/apply-external-patch-response.ts';
export type { GeneratePatchesResponseItem } from '#shared/topology/patches/apply-external-patch-response.ts';
export {
  computeGeneratePatchesRequest,
  computeRequestItemUid,
  computeRequestObject,
  computeValidateTopologyRequest,
} from '#shared/topology/patches/external-patch-request.ts';
export type {
  GeneratePatchesRequest,
  GeneratePatchesRequestItem,
  PatchItemRef,
  RequestVariable,
  ValidateTopologyRequest,
} from '#shared/topology/patches/external-patch-request.ts';
export type { ComputePatchedTargetsInput } from '#shared/topology/patches/compute-patched-targets.ts';
export {
  ExternalPatchNotSupportedError,
  PatchError,
  PatchErrorReason,
  patchFieldPath,
} from '#shared/topology/patches/errors.ts';
export type { PatchErrorLocation } from '#shared/topology/patches/errors.ts';
export {
  calculateValue,
  generateJSONPatches,
  GenerateJSONPatchError,
  patchIsEnabled,
  PatchValueError,
  renderValueTemplate,
} from '#shared/topology/patches/generate-json-patches.ts';
export type { JSONPatchOperation } from '#shared/topology/patches/generate-json-patches.ts';
export { matchesClassName, matchesSelector } from '#shared/topology/patches/matches-selector.ts';
export {
  computePatchTargets,
  describePatchTarget,
  findPatchTarget,
  HolderKind,
  holderFieldPaths,
  patchTargetId,
} from '#shared/topology/patches/patch-target.ts';
export type {
  MachineDeploymentHolder,
  MachineDeploymentTemplates,
  MachinePoolHolder,
  MachinePoolTemplates,
  PatchTarget,
  PatchTargetHolder,
  PatchTargetsInput,
} from '#shared/topology/patches/patch-target.ts';
export {
  BUILTINS_NAME,
  computeTargetVariables,
  computeTemplateData,
  mergeBuiltins,
  mergeVariableMaps,
  PatchVariablesError,
  PatchVariablesResolver,
} from '#shared/topology/patches/patch-variables.ts';
export type {
  Builtins,
  ClusterBuiltins,
  ControlPlaneBuiltins,
  MachineBuiltins,
  PatchBuiltins,
  PatchVariablesInput,
  TargetVariables,
} from '#shared/topology/patches/patch-variables.ts';
export { parseRenderedValue, RenderedValueError } from '#shared/topology/patches/rendered-value.ts';
export { getVariableValue, VariableValueError } from '#shared/topology/patches/variable-value.ts';
export type { VariableMap } from '#shared/topology/patches/variable-value.ts';
export { jsonPatchProblems, validateInlinePatch } from '#shared/topology/patches/validate-patches.ts';
export { computeTargetsWithDesiredMetadata } from '#shared/topology/patches/compute-targets-with-desired-metadata.ts';
