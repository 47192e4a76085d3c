// Managed topologies (ClusterClass): a pass reads a Cluster's current state, computes its desired state (pure) and
// converges the management cluster to it with server-side apply; a ClusterClass pass owns its templates and
// publishes its variables.
export { reconcileTopology, isClusterClassReconciled } from '#shared/topology/reconcile-topology.ts';
export type { TopologyDeps } from '#shared/topology/reconcile-topology.ts';
export {
  reconcileClusterClass,
  computeTemplateRefs,
  ClusterClassVariablesReadyCondition,
  ClusterClassRefVersionsUpToDateCondition,
} from '#shared/topology/reconcile-cluster-class.ts';
export {
  computeConditions,
  computeOutcome,
  computeTopologyReconciledCondition,
  TopologyReconciledCondition,
  TopologyReconciledReason,
} from '#shared/topology/outcome.ts';
export type { ConditionState, PassState, TopologyOutcome } from '#shared/topology/outcome.ts';
export { createKubeReader, getCluster } from '#shared/topology/current/kube-reader.ts';
export type { KubeTopologyReader } from '#shared/topology/current/kube-reader.ts';
export { createMemoryReader } from '#shared/topology/current/reader.ts';
export { createContractResolver } from '#shared/topology/current/get-contracts.ts';
export type { ContractResolver } from '#shared/topology/current/get-contracts.ts';
export type { TopologyReader } from '#shared/topology/current/reader.ts';
export { getBlueprint, getClusterClass } from '#shared/topology/current/get-blueprint.ts';
export { getCurrentState } from '#shared/topology/current/get-current-state.ts';
export { computeDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
export { reconcileState } from '#shared/topology/apply/reconcile-state.ts';
export { TopologyApplyError } from '#shared/topology/apply/errors.ts';
export { TopologyManagerName } from '#shared/topology/labels.ts';
export type { Blueprint, CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';
