// The status once the changes were written: a change the server refused fails its Cluster with the server's
// message and halts the wave; one that must be tried again (the Cluster changed since it was read) goes back to
// Pending, and the rollout looks again soon.
import {
  ClusterRolloutReason as Reason,
  ClusterRolloutState as State,
  RolloutPhase,
  WaveState,
  type ClusterRollout,
  type RolloutPhase as Phase,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import type { Entry } from '#shared/rollout/desired/compute-cluster-entries.ts';
import { computeRolloutStatus } from '#shared/rollout/desired/compute-rollout-status.ts';
import { computeDurationMs, defaultHealthTimeout } from '#shared/rollout/desired/compute-spec-problems.ts';
import { parseTime } from '#shared/rollout/desired/format-time.ts';
import type { ChangeResult, DesiredRollout } from '#shared/rollout/types.ts';

/** How soon a rollout looks again after a change must be retried. */
export const retryChangeAfterMs = 5_000;

/**
 * The desired rollout with the outcome of its writes folded in.
 *
 * @example
 * computeStatusAfterApply(rollout, desired, [{ name: 'c4', result: 'Refused', message: 'admission webhook denied ...' }], now).status.phase; // 'Halted'
 */
export function computeStatusAfterApply(
  rollout: ClusterRollout,
  desired: DesiredRollout,
  results: readonly ChangeResult[],
  now: number,
): DesiredRollout {
  const byName = new Map(results.map((r) => [r.name, r]));
  if (![...byName.values()].some((r) => r.result !== 'Applied')) return desired;
  const entries = (desired.status.clusters ?? []).map((e): Entry => {
    const result = byName.get(e.name);
    if (result === undefined || result.result === 'Applied') return e;
    const { changedAt: _changedAt, healthyAt: _healthyAt, baseGeneration: _base, ...rest } = e;
    return result.result === 'Refused'
      ? {
          ...rest,
          state: State.Failed,
          reason: Reason.ChangeRefused,
          message: `the change was refused: ${result.message}`,
        }
      : {
          ...rest,
          state: State.Pending,
          reason: Reason.WaitingForWave,
          message: `the change will be tried again: ${result.message}`,
        };
  });
  const current = Math.max(0, (desired.status.currentWave ?? 1) - 1);
  const refused = results.some((r) => r.result === 'Refused');
  const waves = (desired.status.waves ?? []).map((w, i) =>
    i === current && refused ? { ...w, state: WaveState.Failed } : w,
  );
  const phase: Phase = refused ? RolloutPhase.Halted : ((desired.status.phase ?? RolloutPhase.Progressing) as Phase);
  const retryAt = results.some((r) => r.result === 'Retry') ? now + retryChangeAfterMs : undefined;
  // NOTE: once halted, only the health gate timeouts of the Clusters still changing are due.
  const timeoutMs = computeDurationMs(rollout.spec.healthGate?.timeout ?? defaultHealthTimeout) ?? 0;
  const timeouts = entries
    .filter((e) => e.state === State.Changing)
    .map((e) => parseTime(e.changedAt, now) + timeoutMs);
  const due = [
    ...(refused ? timeouts : desired.nextDueAt === undefined ? [] : [desired.nextDueAt]),
    ...(retryAt === undefined ? [] : [retryAt]),
  ];
  const nextDueAt = due.length > 0 ? Math.min(...due) : undefined;
  return {
    status: computeRolloutStatus({ rollout, entries, waves, current, phase, now, nextDueAt }),
    changes: desired.changes.filter((c) => byName.get(c.name)?.result === 'Applied'),
    nextDueAt,
  };
}
