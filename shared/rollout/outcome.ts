// How a rollout pass ends, for the runtime: a due time becomes a Requeue at that time (recorded in the checkpoint,
// so an idle rollout runs no pass until then), no due time a Success (only an event moves it on).
import type { ObjectKey } from '#shared/api/object-meta.ts';
import type { ChangeResult, DesiredRollout } from '#shared/rollout/types.ts';

export type RolloutOutcome = {
  readonly result: 'Success' | 'Requeue';
  readonly requeueAfterMs?: number;
  readonly changed: readonly string[];
  readonly resourceVersion?: string;
};

export type OutcomeInput = {
  readonly key: ObjectKey;
  readonly final: DesiredRollout;
  readonly results: readonly ChangeResult[];
  readonly statusWritten: boolean;
  readonly resourceVersion: string;
  readonly now: number;
};

/**
 * The pass's outcome.
 *
 * @example
 * computeRolloutOutcome({ key, final, results, statusWritten: true, resourceVersion: '9', now }); // { result: 'Requeue', requeueAfterMs: 600000, ... }
 */
export function computeRolloutOutcome(input: OutcomeInput): RolloutOutcome {
  const { key, final, results, statusWritten, resourceVersion, now } = input;
  const waveNames = (final.status.waves ?? []).map((w) => w.name);
  const changed = [
    ...final.changes.map((c) => `changed Cluster ${key.namespace}/${c.name} (${waveNames[c.wave] ?? ''})`),
    ...results.flatMap((r) =>
      r.result === 'Refused' ? [`refused Cluster ${key.namespace}/${r.name}: ${r.message}`] : [],
    ),
    ...(statusWritten ? [`status of ClusterRollout ${key.namespace}/${key.name}`] : []),
  ];
  const base = { changed, ...(resourceVersion ? { resourceVersion } : {}) };
  return final.nextDueAt === undefined
    ? { result: 'Success', ...base }
    : { result: 'Requeue', requeueAfterMs: Math.max(0, final.nextDueAt - now), ...base };
}
