// The waves, in order: the first one not yet succeeded starts its Pending Clusters (at most maxConcurrent changing,
// only inside the maintenance window, never while paused or halted), halts on a Failed Cluster, and once every
// Cluster is settled bakes before the next wave starts, all in the same pass when nothing waits.
import {
  ClusterRolloutReason as Reason,
  ClusterRolloutState as State,
  WaveState,
  type ClusterRollout,
  type RolloutWaveStatus,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import type { Entry } from '#shared/rollout/desired/compute-cluster-entries.ts';
import { computeNextWindowStart, isWindowOpen } from '#shared/rollout/desired/compute-maintenance-window.ts';
import { waveName } from '#shared/rollout/desired/compute-wave-plan.ts';
import { formatTime, parseTime } from '#shared/rollout/desired/format-time.ts';
import { computeTarget, isSameTopology } from '#shared/rollout/desired/topology-target.ts';
import type { ClusterChange, RolloutClusterFacts } from '#shared/rollout/types.ts';

export type WavesInput = {
  readonly rollout: ClusterRollout;
  /** Entries in plan order (wave, then name); replaced in place by index as Clusters start. */
  readonly entries: readonly Entry[];
  readonly facts: ReadonlyMap<string, RolloutClusterFacts>;
  readonly now: number;
  readonly bakeMs: number;
  readonly timeoutMs: number;
};

export type WavesOutcome = {
  readonly entries: readonly Entry[];
  readonly waves: readonly RolloutWaveStatus[];
  readonly changes: readonly ClusterChange[];
  /** The wave the rollout stands at (0-based); the last one once every wave succeeded. */
  readonly current: number;
  readonly halted: boolean;
  readonly waitingForWindow: boolean;
  readonly dueTimes: readonly number[];
};

const unsettled = new Set<string>([State.Pending, State.Changing, State.Failed]);

/**
 * Moves the waves on. Pure: the time and every Cluster's facts are passed in.
 *
 * @example
 * computeWaves({ rollout, entries, facts, now, bakeMs: 600_000, timeoutMs: 1_800_000 }).changes; // the canary
 */
export function computeWaves(input: WavesInput): WavesOutcome {
  const { rollout, facts, now, bakeMs, timeoutMs } = input;
  const { spec } = rollout;
  const namespace = rollout.metadata.namespace ?? '';
  const entries = [...input.entries];
  const previous = new Map((rollout.status?.waves ?? []).map((w) => [w.name, w]));
  const waves: RolloutWaveStatus[] = [];
  const changes: ClusterChange[] = [];
  const dueTimes: number[] = [];
  let current: number | undefined;
  let halted = false;
  let waitingForWindow = false;
  const nowText = formatTime(now);
  const lastWave = spec.waves.length - 1;
  const waveOf = (e: Entry) => Math.min(e.wave, lastWave);

  for (let i = 0; i <= lastWave; i++) {
    const name = waveName(spec.waves, i);
    const stored = previous.get(name);
    const indices = entries.flatMap((e, at) => (waveOf(e) === i ? [at] : []));
    const clusters = indices.length;
    if (stored?.state === WaveState.Succeeded || current !== undefined) {
      waves.push(
        stored?.state === WaveState.Succeeded ? { ...stored, clusters } : { name, state: WaveState.Pending, clusters },
      );
      continue;
    }
    current = i;
    const at = () => indices.map((k) => entries[k] as Entry);
    for (const e of at()) {
      if (e.state === State.Changing) dueTimes.push(parseTime(e.changedAt, now) + timeoutMs);
    }
    if (at().some((e) => e.state === State.Failed)) {
      halted = true;
      waves.push({
        name,
        clusters,
        state: WaveState.Failed,
        ...(stored?.startedAt ? { startedAt: stored.startedAt } : {}),
      });
      continue;
    }
    let startedAt = stored?.startedAt;
    const pending = indices.filter((k) => entries[k]?.state === State.Pending);
    if (pending.length > 0 && spec.paused !== true) {
      const window = spec.maintenanceWindow;
      if (window !== undefined && !isWindowOpen(window, now)) {
        waitingForWindow = true;
        dueTimes.push(computeNextWindowStart(window, now));
      } else {
        let capacity =
          (spec.maxConcurrent ?? Number.POSITIVE_INFINITY) - at().filter((e) => e.state === State.Changing).length;
        for (const k of pending) {
          const entry = entries[k] as Entry;
          const cluster = facts.get(entry.name);
          const target = computeTarget(entry.original, spec.change);
          if (cluster?.topology !== undefined && isSameTopology(cluster.topology, target, namespace)) {
            entries[k] = {
              ...entry,
              state: State.Skipped,
              reason: Reason.AlreadyAtTarget,
              message: 'already at the target; not written',
            };
            continue;
          }
          if (capacity <= 0 || cluster === undefined) continue;
          capacity--;
          startedAt ??= nowText;
          entries[k] = {
            ...entry,
            state: State.Changing,
            reason: Reason.Changed,
            changedAt: nowText,
            baseGeneration: cluster.generation,
            message: 'changed; waiting for its health gate',
          };
          dueTimes.push(now + timeoutMs);
          changes.push({
            name: entry.name,
            resourceVersion: cluster.resourceVersion,
            wave: i,
            // NOTE: both fields of the target, also the one this rollout does not change: every rollout applies
            // with the same field manager, and a server-side apply drops the fields that manager owned and no longer
            // sends, so a version rollout after a rebase rollout would remove the rebase's classRef (seen beside
            // upstream's managers: refused, `spec.topology.classRef.name: Required value`).
            set: {
              ...(target.classRef ? { classRef: target.classRef } : {}),
              ...(target.version !== undefined ? { version: target.version } : {}),
            },
            from: entry.original ?? {},
            to: target,
          });
        }
      }
    }
    const base = { name, clusters, ...(startedAt ? { startedAt } : {}) };
    if (at().some((e) => unsettled.has(e.state))) {
      waves.push({ ...base, state: WaveState.Progressing });
      continue;
    }
    // NOTE: every Cluster of the wave is Healthy, Skipped or in Conflict: bake if the wave changed any.
    const healthyAt = stored?.state === WaveState.Baking && stored.healthyAt ? stored.healthyAt : nowText;
    const changedAny = at().some((e) => e.state === State.Healthy);
    const bakeUntil = parseTime(healthyAt, now) + (changedAny ? bakeMs : 0);
    if (now < bakeUntil) {
      waves.push({ ...base, state: WaveState.Baking, healthyAt, bakeUntil: formatTime(bakeUntil + 999) });
      dueTimes.push(bakeUntil);
      continue;
    }
    waves.push({ ...base, state: WaveState.Succeeded, healthyAt, completedAt: nowText });
    current = undefined;
  }
  return {
    entries,
    waves,
    changes,
    current: current ?? lastWave,
    halted,
    waitingForWindow,
    dueTimes,
  };
}
