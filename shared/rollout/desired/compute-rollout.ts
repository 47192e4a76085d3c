// The rollout's pure step: from the ClusterRollout, the facts of its Clusters and the time, the Clusters to change
// now, the new status and when to look again. Nothing here reads the network, the clock or randomness.
import {
  ClusterRolloutReason as Reason,
  ClusterRolloutState as State,
  RolloutPhase,
  WaveState,
  healthChecks,
  type ClusterRollout,
  type RolloutPhase as Phase,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import {
  computeClusterEntry,
  computePlannedEntries,
  type Entry,
} from '#shared/rollout/desired/compute-cluster-entries.ts';
import { computeRolloutStatus } from '#shared/rollout/desired/compute-rollout-status.ts';
import {
  computeDurationMs,
  computeSpecProblems,
  defaultHealthTimeout,
} from '#shared/rollout/desired/compute-spec-problems.ts';
import { compareNames, waveName } from '#shared/rollout/desired/compute-wave-plan.ts';
import { computeWaves } from '#shared/rollout/desired/compute-waves.ts';
import type { DesiredRollout, RolloutClusterFacts } from '#shared/rollout/types.ts';

export type RolloutInput = {
  readonly rollout: ClusterRollout;
  /** The Clusters the selector matches, and those the status lists that still exist (`selected` says which). */
  readonly clusters: readonly RolloutClusterFacts[];
  /** The time (epoch ms), passed in. */
  readonly now: number;
};

const terminal = new Set<string>([RolloutPhase.Completed, RolloutPhase.Aborted]);

const planOrder = (a: Entry, b: Entry) => a.wave - b.wave || compareNames(a.name, b.name);

/**
 * The next step of a rollout.
 *
 * @example
 * const desired = computeRollout({ rollout, clusters, now: Date.parse('2026-11-27T13:00:00Z') });
 * desired.changes; // [{ name: 'c1', set: { version: 'v1.34.1' }, ... }] — the canary
 * desired.nextDueAt; // the canary's health gate timeout
 */
export function computeRollout(input: RolloutInput): DesiredRollout {
  const { rollout, now } = input;
  const { spec } = rollout;
  const status = rollout.status;
  const previousEntries = status?.clusters ?? [];
  const facts = new Map(input.clusters.map((c) => [c.name, c]));
  const summary = (
    entries: readonly Entry[],
    waves: DesiredRollout['status']['waves'],
    current: number,
    phase: Phase,
    nextDueAt: number | undefined,
    problems?: readonly string[],
  ): DesiredRollout => ({
    status: computeRolloutStatus({
      rollout,
      entries,
      waves: waves ?? [],
      current,
      phase,
      now,
      nextDueAt,
      ...(problems ? { problems } : {}),
    }),
    changes: [],
    nextDueAt,
  });

  if (status?.phase !== undefined && terminal.has(status.phase)) {
    return summary(
      previousEntries,
      status.waves,
      Math.max(0, (status.currentWave ?? 1) - 1),
      status.phase as Phase,
      undefined,
    );
  }
  const problems = computeSpecProblems(spec);
  if (problems.length > 0) {
    return summary(
      previousEntries,
      status?.waves,
      Math.max(0, (status?.currentWave ?? 1) - 1),
      RolloutPhase.Invalid,
      undefined,
      problems,
    );
  }

  const bakeMs = computeDurationMs(spec.bakeTime ?? '0s') ?? 0;
  const timeoutMs = computeDurationMs(spec.healthGate?.timeout ?? defaultHealthTimeout) ?? 0;
  const checks = spec.healthGate?.checks ?? healthChecks;
  const selected = input.clusters.filter((c) => c.selected);
  const known = new Set(previousEntries.map((e) => e.name));
  const lastWave = spec.waves.length - 1;
  // NOTE: the plan is made once, on the first pass that sees Clusters; Clusters selected later join the last wave.
  const planned =
    previousEntries.length === 0
      ? computePlannedEntries(rollout, selected)
      : [
          ...previousEntries,
          ...computePlannedEntries(
            rollout,
            selected.filter((c) => !known.has(c.name)),
            lastWave,
          ),
        ];
  const succeededWaves = new Set(
    (status?.waves ?? []).flatMap((w) =>
      w.state === WaveState.Succeeded ? [spec.waves.findIndex((_, i) => waveName(spec.waves, i) === w.name)] : [],
    ),
  );
  const ctx = { rollout, facts, now, checks, timeoutMs, succeededWaves };
  let entries = planned.map((e) => computeClusterEntry(e, facts.get(e.name), ctx)).sort(planOrder);

  if (spec.abort === true) {
    entries = entries.map((e) =>
      e.state === State.Pending
        ? { ...e, state: State.Skipped, reason: Reason.Aborted, message: 'the rollout was aborted before reaching it' }
        : e,
    );
    const waves = spec.waves.map((_, i) => {
      const name = waveName(spec.waves, i);
      const stored = status?.waves?.find((w) => w.name === name);
      const clusters = entries.filter((e) => Math.min(e.wave, lastWave) === i).length;
      return stored?.state === WaveState.Succeeded
        ? { ...stored, clusters }
        : { ...(stored ?? {}), name, clusters, state: WaveState.Aborted };
    });
    return summary(entries, waves, Math.max(0, (status?.currentWave ?? 1) - 1), RolloutPhase.Aborted, undefined);
  }

  const moved = computeWaves({ rollout, entries, facts, now, bakeMs, timeoutMs });
  const due = moved.dueTimes.filter((t) => t > now);
  // NOTE: a due time already passed (a bake that ends within this second) looks again a second later.
  const nextDueAt = due.length > 0 ? Math.min(...due) : moved.dueTimes.length > 0 ? now + 1000 : undefined;
  const changing = moved.entries.some((e) => e.state === State.Changing);
  const phase: Phase =
    moved.entries.length > 0 && moved.waves.every((w) => w.state === WaveState.Succeeded)
      ? RolloutPhase.Completed
      : moved.halted
        ? RolloutPhase.Halted
        : spec.paused === true
          ? RolloutPhase.Paused
          : moved.waitingForWindow && !changing
            ? RolloutPhase.WaitingForWindow
            : moved.waves[moved.current]?.state === WaveState.Baking
              ? RolloutPhase.Baking
              : RolloutPhase.Progressing;
  const finalDue = phase === RolloutPhase.Completed ? undefined : nextDueAt;
  return {
    status: computeRolloutStatus({
      rollout,
      entries: moved.entries,
      waves: moved.waves,
      current: moved.current,
      phase,
      now,
      nextDueAt: finalDue,
    }),
    changes: moved.changes,
    nextDueAt: finalDue,
  };
}
