// ClusterClass variables: validation of variable definitions and of Cluster values against them, and defaulting,
// with upstream Cluster API's semantics and Kubernetes-style field errors. Pure: no I/O.
export type { BadValue, FieldError, FieldErrorType } from '#shared/lang/openapi/field-error.ts';
export {
  childPath,
  formatFieldError,
  formatFieldErrors,
  indexPath,
  keyPath,
  toValidationError,
} from '#shared/lang/openapi/field-error.ts';
export { canonicalJson, canonicalizeJson, jsonEqual } from '#shared/lang/openapi/json-value.ts';
export type { ValidateClusterVariablesOptions } from '#shared/topology/variables/cluster-variable-validation.ts';
export {
  validateClusterVariable,
  validateClusterVariables,
  validateControlPlaneVariables,
  validateMachineVariables,
} from '#shared/topology/variables/cluster-variable-validation.ts';
export type {
  DefaultClusterVariablesOptions,
  DefaultVariablesResult,
} from '#shared/topology/variables/cluster-variable-defaulting.ts';
export {
  defaultClusterVariables,
  defaultMachineVariables,
} from '#shared/topology/variables/cluster-variable-defaulting.ts';
export { validateClusterClassVariables } from '#shared/topology/variables/clusterclass-variable-validation.ts';
export { applyStructuralDefaults, findUnknownFields } from '#shared/lang/openapi/structural.ts';
