// The summary of a rollout's status: counts, phase, the wave for `kubectl get`, and conditions whose reasons and
// messages say what it waits for and which Clusters failed or conflict (stable text, so status does not churn).
import {
  ClusterRolloutState as State,
  RolloutConditions as C,
  RolloutPhase,
  type ClusterRollout,
  type ClusterRolloutStatus,
  type RolloutCounts,
  type RolloutPhase as Phase,
  type RolloutWaveStatus,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import type { Entry } from '#shared/rollout/desired/compute-cluster-entries.ts';
import { formatTime } from '#shared/rollout/desired/format-time.ts';

export type SummaryInput = {
  readonly rollout: ClusterRollout;
  readonly entries: readonly Entry[];
  readonly waves: readonly RolloutWaveStatus[];
  readonly current: number;
  readonly phase: Phase;
  readonly now: number;
  readonly nextDueAt: number | undefined;
  /** Set when the spec is unusable. */
  readonly problems?: readonly string[];
};

/** At most this many names in a condition message; the rest are counted. */
const maxNames = 10;

const names = (entries: readonly Entry[]): string => {
  const shown = entries.slice(0, maxNames).map((e) => e.name);
  return entries.length > maxNames ? `${shown.join(', ')} and ${entries.length - maxNames} more` : shown.join(', ');
};

/** Counts of each state; `changed` counts the Clusters the rollout wrote. */
export function computeCounts(entries: readonly Entry[]): RolloutCounts {
  const count = (state: Entry['state']) => entries.filter((e) => e.state === state).length;
  return {
    total: entries.length,
    pending: count(State.Pending),
    changing: count(State.Changing),
    healthy: count(State.Healthy),
    failed: count(State.Failed),
    conflict: count(State.Conflict),
    skipped: count(State.Skipped),
    changed: entries.filter((e) => e.changedAt !== undefined).length,
  };
}

/** A condition as it should be, keeping its lastTransitionTime while its status stays the same. */
function conditionOf(
  previous: readonly Condition[],
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number,
  now: number,
): Condition {
  const before = previous.find((c) => c.type === type);
  return {
    type,
    status,
    observedGeneration: generation,
    lastTransitionTime: before?.status === status ? before.lastTransitionTime : formatTime(now),
    reason,
    message,
  };
}

function progressingOf(input: SummaryInput): [Condition['status'], string, string] {
  const { entries, waves, current, phase, rollout } = input;
  const wave = waves[current];
  const failed = entries.filter((e) => e.state === State.Failed);
  switch (phase) {
    case RolloutPhase.Invalid:
      return ['False', C.Progressing.reasons.InvalidSpec, (input.problems ?? []).join('; ')];
    case RolloutPhase.Aborted: {
      const changed = entries.filter((e) => e.changedAt !== undefined);
      const untouched = entries.length - changed.length;
      return [
        'False',
        C.Progressing.reasons.Aborted,
        `aborted; changed: ${changed.length === 0 ? 'none' : names(changed)}; left unchanged: ${untouched} Cluster(s)`,
      ];
    }
    case RolloutPhase.Completed:
      return ['False', C.Progressing.reasons.Completed, `every wave succeeded (${waves.length} waves)`];
    case RolloutPhase.Halted:
      return [
        'False',
        C.Progressing.reasons.WaveFailed,
        `${wave?.name ?? 'a wave'} failed its health gate: ${failed
          .map((e) => `${e.name} (${e.reason ?? ''}: ${e.message ?? ''})`)
          .slice(0, maxNames)
          .join('; ')}; fix them and raise spec.retry to go on`,
      ];
    case RolloutPhase.Paused:
      return ['False', C.Progressing.reasons.Paused, 'spec.paused is true: nothing starts'];
    case RolloutPhase.WaitingForWindow: {
      const w = rollout.spec.maintenanceWindow;
      const text = w ? `${w.days.join(',')} ${w.start}-${w.end} ${w.timeZone ?? 'UTC'}` : '';
      return ['False', C.Progressing.reasons.WaitingForMaintenanceWindow, `outside the maintenance window (${text})`];
    }
    case RolloutPhase.Baking:
      return ['True', C.Progressing.reasons.Baking, `${wave?.name ?? ''} is baking until ${wave?.bakeUntil ?? ''}`];
    default:
      return entries.length === 0
        ? ['False', C.Progressing.reasons.NoClustersSelected, 'no Cluster matches spec.clusterSelector']
        : ['True', C.Progressing.reasons.Progressing, `${wave?.name ?? ''} is rolling out`];
  }
}

/**
 * The whole status of a rollout from its entries and waves.
 *
 * @example
 * computeRolloutStatus({ rollout, entries, waves, current: 1, phase: 'Halted', now, nextDueAt: undefined }).conditions;
 */
export function computeRolloutStatus(input: SummaryInput): ClusterRolloutStatus {
  const { rollout, entries, waves, current, phase, now, nextDueAt } = input;
  const generation = rollout.metadata.generation ?? 0;
  const previous = rollout.status?.conditions ?? [];
  const counts = computeCounts(entries);
  const cond = (type: string, status: Condition['status'], reason: string, message: string) =>
    conditionOf(previous, type, status, reason, message, generation, now);
  const [pStatus, pReason, pMessage] = progressingOf(input);
  const changed = entries.filter((e) => e.changedAt !== undefined);
  const failed = entries.filter((e) => e.state === State.Failed);
  const changing = entries.filter((e) => e.state === State.Changing);
  const conflicts = entries.filter((e) => e.state === State.Conflict);
  const health =
    failed.length > 0
      ? cond(C.HealthGate.type, 'False', C.HealthGate.reasons.Failed, `failing: ${names(failed)}`)
      : changing.length > 0
        ? cond(C.HealthGate.type, 'Unknown', C.HealthGate.reasons.Waiting, `waiting for: ${names(changing)}`)
        : changed.length === 0
          ? cond(C.HealthGate.type, 'Unknown', C.HealthGate.reasons.NoClustersChanged, 'no Cluster changed yet')
          : cond(
              C.HealthGate.type,
              'True',
              C.HealthGate.reasons.Healthy,
              `${changed.length} changed Cluster(s) passed`,
            );
  return {
    observedGeneration: generation,
    phase,
    currentWave: entries.length === 0 ? 0 : current + 1,
    progress: `${counts.changed}/${counts.total}`,
    counts,
    observedRetry: rollout.spec.retry ?? 0,
    ...(nextDueAt === undefined ? {} : { nextCheckAt: formatTime(nextDueAt + 999) }),
    waves: [...waves],
    clusters: [...entries],
    conditions: [
      cond(C.Progressing.type, pStatus, pReason, pMessage),
      health,
      conflicts.length > 0
        ? cond(
            C.Conflicts.type,
            'True',
            C.Conflicts.reasons.Conflict,
            `changed meanwhile, not overwritten: ${names(conflicts)}`,
          )
        : cond(C.Conflicts.type, 'False', C.Conflicts.reasons.NoConflict, ''),
      phase === RolloutPhase.Completed
        ? cond(C.Completed.type, 'True', C.Completed.reasons.Completed, '')
        : cond(C.Completed.type, 'False', C.Completed.reasons.NotCompleted, ''),
    ],
  };
}
