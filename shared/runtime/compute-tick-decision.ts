// Whether a tick runs a pass over an object it listed, from the LIST item's generation and the stored checkpoint
// alone: no GETs, so an idle fleet costs one LIST per kind and one checkpoint read per object.
import type { Checkpoint } from '#shared/checkpoint/index.ts';

export const tickReasons = {
  noCheckpoint: 'NoCheckpoint',
  generationChanged: 'GenerationChanged',
  retryDue: 'RetryDue',
  resync: 'Resync',
  backingOff: 'BackingOff',
  upToDate: 'UpToDate',
} as const;
export type TickReason = (typeof tickReasons)[keyof typeof tickReasons];

export type TickDecision = {
  readonly due: boolean;
  readonly reason: TickReason;
  /** Run even though the object's facts look unchanged (drift correction). */
  readonly force: boolean;
};

/**
 * The tick's decision for one listed object.
 *
 * @example
 * computeTickDecision(checkpoint, { generation: 4 }, { now, resyncAfterMs: 6 * 3600_000 }); // { due: false, reason: 'UpToDate', force: false }
 */
export function computeTickDecision(
  checkpoint: Checkpoint | undefined,
  listed: { readonly generation: number },
  timing: { readonly now: number; readonly resyncAfterMs: number },
): TickDecision {
  const run = (reason: TickReason, force = false): TickDecision => ({ due: true, reason, force });
  if (checkpoint === undefined) return run(tickReasons.noCheckpoint);
  if (checkpoint.observedGeneration !== listed.generation) return run(tickReasons.generationChanged);
  if (checkpoint.result !== 'Success') {
    if (timing.now >= (checkpoint.nextAttemptAt ?? 0)) return run(tickReasons.retryDue);
    return { due: false, reason: tickReasons.backingOff, force: false };
  }
  if (timing.now - checkpoint.updatedAt >= timing.resyncAfterMs) return run(tickReasons.resync, true);
  return { due: false, reason: tickReasons.upToDate, force: false };
}
