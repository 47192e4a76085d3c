// Each Cluster's entry in the rollout, brought up to date with what was read of the Cluster: planned into a wave
// when first seen, then Pending → Changing → Healthy (or Failed, Conflict, Skipped) as its topology and its health
// gate say. Starting changes is the waves' business (compute-waves.ts); nothing here decides to write.
import {
  ClusterRolloutReason as Reason,
  ClusterRolloutState as State,
  type ClusterRollout,
  type HealthCheck,
  type RolloutClusterStatus,
  type TopologyTarget,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { formatTime, parseTime } from '#shared/rollout/desired/format-time.ts';
import { compareNames, computeWaveAssignment } from '#shared/rollout/desired/compute-wave-plan.ts';
import { computeTarget, describeTopology, isSameTopology } from '#shared/rollout/desired/topology-target.ts';
import type { ClusterHealth, RolloutClusterFacts } from '#shared/rollout/types.ts';

export type Entry = RolloutClusterStatus;

export type EntriesContext = {
  readonly rollout: ClusterRollout;
  readonly facts: ReadonlyMap<string, RolloutClusterFacts>;
  readonly now: number;
  readonly checks: readonly HealthCheck[];
  readonly timeoutMs: number;
  /** Waves already succeeded (their Clusters are no longer gated). */
  readonly succeededWaves: ReadonlySet<number>;
};

/** The failing checks of a Cluster, `[]` when it passes the gate. */
export function computeFailingChecks(health: ClusterHealth, checks: readonly HealthCheck[]): string[] {
  return checks.filter((c) => !health[c].ok).map((c) => health[c].detail);
}

const entryOf = (
  name: string,
  wave: number,
  state: Entry['state'],
  reason: string,
  original: TopologyTarget | undefined,
  message?: string,
): Entry => ({
  name,
  wave,
  state,
  reason,
  ...(message === undefined ? {} : { message }),
  ...(original === undefined ? {} : { original }),
});

/**
 * The entries of Clusters new to the rollout, in name order: on its first pass dealt into the waves, later all in
 * `joinWave`; a Cluster without a managed topology is Skipped.
 *
 * @example
 * computePlannedEntries(rollout, clusters).map((e) => e.wave); // [0, 1, 1, 1, 2, 2, 2, 2]
 */
export function computePlannedEntries(
  rollout: ClusterRollout,
  selected: readonly RolloutClusterFacts[],
  joinWave?: number,
): Entry[] {
  const assignment = computeWaveAssignment(
    selected.map((c) => c.name),
    rollout.spec.waves,
  );
  return [...selected]
    .sort((a, b) => compareNames(a.name, b.name))
    .map((c) => {
      const wave = joinWave ?? assignment.get(c.name) ?? 0;
      return c.topology === undefined
        ? entryOf(c.name, wave, State.Skipped, Reason.NoTopology, undefined, 'the Cluster has no spec.topology')
        : entryOf(c.name, wave, State.Pending, Reason.WaitingForWave, c.topology);
    });
}

function conflictOf(entry: Entry, at: TopologyTarget, target: TopologyTarget): Entry {
  const { healthyAt: _healthyAt, ...rest } = entry;
  return {
    ...rest,
    state: State.Conflict,
    reason: Reason.ChangedMeanwhile,
    message: `spec.topology changed meanwhile to ${describeTopology(at)} (was ${describeTopology(entry.original)}, the rollout's target ${describeTopology(target)}); not overwritten`,
  };
}

/** A Changing entry against its health gate: Healthy, Failed on timeout, or still Changing. */
function computeGate(entry: Entry, health: ClusterHealth, ctx: EntriesContext): Entry {
  const failing = computeFailingChecks(health, ctx.checks);
  if (failing.length === 0) {
    return {
      ...entry,
      state: State.Healthy,
      reason: Reason.HealthGatePassed,
      healthyAt: formatTime(ctx.now),
      message: 'passed its health gate',
    };
  }
  const changedAt = parseTime(entry.changedAt, ctx.now);
  if (ctx.now >= changedAt + ctx.timeoutMs) {
    return {
      ...entry,
      state: State.Failed,
      reason: Reason.HealthGateTimeout,
      message: `not healthy ${Math.round(ctx.timeoutMs / 1000)}s after the change: ${failing.join('; ')}`,
    };
  }
  return { ...entry, message: `waiting for its health gate: ${failing.join('; ')}` };
}

/**
 * One entry brought up to date with its Cluster's facts (undefined facts: the Cluster is gone).
 *
 * @example
 * computeClusterEntry(entry, facts, ctx); // { ...entry, state: 'Healthy', reason: 'HealthGatePassed', healthyAt: '...' }
 */
export function computeClusterEntry(entry: Entry, facts: RolloutClusterFacts | undefined, ctx: EntriesContext): Entry {
  const { rollout } = ctx;
  const namespace = rollout.metadata.namespace ?? '';
  const retrying = (rollout.spec.retry ?? 0) > (rollout.status?.observedRetry ?? 0);
  if (facts === undefined || facts.deleting) {
    return entry.state === State.Pending || entry.state === State.Changing
      ? { ...entry, state: State.Skipped, reason: Reason.Deleted, message: 'the Cluster is gone or being deleted' }
      : entry;
  }
  if (entry.state === State.Pending && !facts.selected) {
    return {
      ...entry,
      state: State.Skipped,
      reason: Reason.NotSelected,
      message: 'no longer matches spec.clusterSelector',
    };
  }
  const at = facts.topology;
  if (at === undefined) {
    return entry.state === State.Pending
      ? { ...entry, state: State.Skipped, reason: Reason.NoTopology, message: 'the Cluster has no spec.topology' }
      : entry;
  }
  const target = computeTarget(entry.original, rollout.spec.change);
  const isTarget = isSameTopology(at, target, namespace);
  const isOriginal = isSameTopology(at, entry.original, namespace);
  switch (entry.state) {
    case State.Pending:
      return isOriginal || isTarget ? entry : conflictOf(entry, at, target);
    case State.Changing: {
      if (isTarget) return computeGate(entry, facts.health, ctx);
      if (isOriginal && entry.baseGeneration !== undefined && facts.generation === entry.baseGeneration) {
        // NOTE: status is written before the Clusters: the Cluster is as it was, so the write never landed.
        const { changedAt: _changedAt, baseGeneration: _base, ...rest } = entry;
        return {
          ...rest,
          state: State.Pending,
          reason: Reason.WaitingForWave,
          message: 'the change did not land; it is made again',
        };
      }
      return conflictOf(entry, at, target);
    }
    case State.Healthy: {
      if (!isTarget) return conflictOf(entry, at, target);
      if (ctx.succeededWaves.has(entry.wave)) return entry;
      const failing = computeFailingChecks(facts.health, ctx.checks);
      if (failing.length > 0 && ctx.checks.includes('ObservedGeneration') && !facts.health.ObservedGeneration.ok) {
        // NOTE: a spec the gate has not seen (the Cluster's, or one its topology wrote to a worker since) is a
        // change still converging, not health lost: the Cluster is gated again, its timeout counting from now.
        const { healthyAt: _healthyAt, ...rest } = entry;
        return {
          ...rest,
          state: State.Changing,
          reason: Reason.Changed,
          changedAt: formatTime(ctx.now),
          message: `changed again after it passed its health gate; waiting for its health gate: ${failing.join('; ')}`,
        };
      }
      return failing.length === 0
        ? entry
        : {
            ...entry,
            state: State.Failed,
            reason: Reason.HealthLost,
            message: `lost its health before its wave completed: ${failing.join('; ')}`,
          };
    }
    case State.Failed:
    case State.Conflict: {
      if (!retrying) return entry;
      if (isTarget) {
        // NOTE: the health gate's timeout counts again from the retry.
        const again: Entry = {
          ...entry,
          state: State.Changing,
          reason: Reason.Changed,
          changedAt: formatTime(ctx.now),
        };
        return computeGate(again, facts.health, ctx);
      }
      if (isOriginal) {
        const { changedAt: _changedAt, healthyAt: _healthyAt, message: _message, ...rest } = entry;
        return { ...rest, state: State.Pending, reason: Reason.WaitingForWave };
      }
      return conflictOf(entry, at, target);
    }
    default:
      return entry;
  }
}
