// Progressive rollouts (ClusterRollout): a class rebase and/or a version change made Cluster by Cluster, wave by
// wave, each Cluster gated on its health and each wave baked, inside a maintenance window; idle until due.
// `desired/` is the pure part: plan, gate, waves, window, status, Events.
export type {
  ChangeResult,
  CheckResult,
  ClusterChange,
  ClusterHealth,
  DesiredRollout,
  RolloutClusterFacts,
  RolloutEvent,
} from '#shared/rollout/types.ts';
export { computeRollout, type RolloutInput } from '#shared/rollout/desired/compute-rollout.ts';
export { computeStatusAfterApply } from '#shared/rollout/desired/compute-status-after-apply.ts';
export { computeRolloutEvents } from '#shared/rollout/desired/compute-rollout-events.ts';
export { computeSpecProblems, computeDurationMs } from '#shared/rollout/desired/compute-spec-problems.ts';
export { computeWaveSizes, validateWaves } from '#shared/rollout/desired/compute-wave-plan.ts';
export { computeNextWindowStart, isWindowOpen } from '#shared/rollout/desired/compute-maintenance-window.ts';
export { getClusterHealth } from '#shared/rollout/current/get-cluster-health.ts';
export {
  findClusterRollout,
  listClusterRollouts,
  parseClusterRollout,
} from '#shared/rollout/current/get-cluster-rollout.ts';
export { computeClusterFacts, listRolloutClusters } from '#shared/rollout/current/list-rollout-clusters.ts';
export { applyClusterChanges } from '#shared/rollout/apply/apply-cluster-changes.ts';
export { reconcileRolloutStatus } from '#shared/rollout/apply/reconcile-rollout-status.ts';
export { recordRolloutEvents, rolloutEventSource } from '#shared/rollout/apply/record-rollout-events.ts';
export { reconcileRollout, type RolloutDeps } from '#shared/rollout/reconcile-rollout.ts';
export type { RolloutOutcome } from '#shared/rollout/outcome.ts';
