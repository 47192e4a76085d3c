// ClusterResourceSets: apply the objects held in ConfigMaps/Secrets to every Cluster a selector matches, and record
// per Cluster what was applied (ClusterResourceSetBinding), in the v1beta2 shape whatever version the server serves.
// `desired/` is the pure part: parse, hash, decide, bind.
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
export {
  computeResourcesAppliedCondition,
  computeResourcesAppliedV1Beta2Condition,
  stripVolatile,
} from '#shared/addons/desired/resources-applied-condition.ts';
export { computePausedCondition, isPaused } from '#shared/addons/desired/paused-condition.ts';
export { computeFinalizers, handledFinalizers, holdsFinalizer } from '#shared/addons/desired/finalizers.ts';
export type { AddonsCluster, SelectedClusters } from '#shared/addons/current/list-selected-clusters.ts';
export {
  clusterKeyOf,
  getCluster,
  isClusterInfrastructureReady,
  isClusterWaitingForBeforeClusterDelete,
  listSelectedClusters,
} from '#shared/addons/current/list-selected-clusters.ts';
export { getClusterResourceSet, listClusterResourceSets } from '#shared/addons/current/get-cluster-resource-set.ts';
export { getBinding, listBindingsOf } from '#shared/addons/current/get-binding.ts';
export type { CurrentResources } from '#shared/addons/current/get-resources.ts';
export { getResources } from '#shared/addons/current/get-resources.ts';
export type { WorkloadConnection } from '#shared/addons/current/get-workload-connection.ts';
export { getWorkloadConnection } from '#shared/addons/current/get-workload-connection.ts';
export type { ObjectsApplyResult } from '#shared/addons/apply/apply-resource-objects.ts';
export { applyResourceObjects } from '#shared/addons/apply/apply-resource-objects.ts';
export { deleteBinding, reconcileBinding, reconcileBindingWithoutCRS } from '#shared/addons/apply/reconcile-binding.ts';
export type { StatusUpdate } from '#shared/addons/apply/reconcile-cluster-resource-set.ts';
export {
  getOwnerApiVersion,
  reconcileFinalizers,
  reconcileResourceOwnerRefs,
  reconcileStatus,
} from '#shared/addons/apply/reconcile-cluster-resource-set.ts';
export type { AddonsDeps, AddonsOutcome } from '#shared/addons/reconcile-addons.ts';
export { reconcileAddons, reconcileAddonsForCluster } from '#shared/addons/reconcile-addons.ts';
