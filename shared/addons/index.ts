// ClusterResourceSets: apply the objects held in ConfigMaps/Secrets to every Cluster a selector matches, and record
// per Cluster what was applied (ClusterResourceSetBinding). `desired/` is the pure part: parse, hash, decide, bind.
export type { ResourceContent, NormalizedDataValue } from '#shared/addons/desired/resource-data.ts';
export { ResourceParseError, normalizeResourceData } from '#shared/addons/desired/resource-data.ts';
export type { ResourceObject } from '#shared/addons/desired/resource-objects.ts';
export { computeResourceObjects, isJSONList, splitYamlDocuments } from '#shared/addons/desired/resource-objects.ts';
export { computeResourceHash } from '#shared/addons/desired/resource-hash.ts';
export { WrongSecretTypeError, computeSecretTypeCheck } from '#shared/addons/desired/secret-type-check.ts';
export type { FetchedResource, ResourceToApply, ResourcesToApply } from '#shared/addons/desired/resources-to-apply.ts';
export {
  computeResourcesToApply,
  findResourceBinding,
  resourceRefKey,
} from '#shared/addons/desired/resources-to-apply.ts';
export type { ClusterOutcome, ResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
export { computeResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
export type { BindingCluster, BindingWithoutCRS } from '#shared/addons/desired/binding.ts';
export { computeBinding, computeBindingWithoutCRS, formatKubeTime } from '#shared/addons/desired/binding.ts';
export type { ResourcesAppliedInput } from '#shared/addons/desired/resources-applied-condition.ts';
export { computeResourcesAppliedCondition, stripVolatile } from '#shared/addons/desired/resources-applied-condition.ts';
