// Whether the sweep of a tick runs a pass over an object it listed, from the LIST item's generation and the stored
// checkpoint alone: no GETs, and no pass over an object whose last pass saw its current generation.
import type { Checkpoint } from '#shared/checkpoint/index.ts';

export const tickReasons = {
  noCheckpoint: 'NoCheckpoint',
  generationChanged: 'GenerationChanged',
  retryDue: 'RetryDue',
  leaseLapsed: 'LeaseLapsed',
  resync: 'Resync',
  backingOff: 'BackingOff',
  upToDate: 'UpToDate',
} as const;
export type TickReason = (typeof tickReasons)[keyof typeof tickReasons];

export type TickDecision = {
  readonly due: boolean;
  readonly reason: TickReason;
  /** Run even though the object looks unchanged (the optional resync). */
  readonly force?: boolean;
};

/**
 * The sweep's decision for one listed object: due when it has no checkpoint (an event was missed), when its
 * generation moved since the last pass, or when a retry is due. An object whose last pass succeeded on its current
 * generation is up to date: drift of the objects it manages reaches it through their own events, not through a
 * periodic pass per object (unless the optional `resyncAfterMs` asks for one).
 *
 * @example
 * computeTickDecision(checkpoint, { generation: 4 }, { now }); // { due: false, reason: 'UpToDate' }
 */
export function computeTickDecision(
  checkpoint: Checkpoint | undefined,
  listed: { readonly generation: number },
  timing: { readonly now: number; readonly resyncAfterMs?: number | undefined },
): TickDecision {
  const run = (reason: TickReason): TickDecision => ({ due: true, reason });
  if (checkpoint === undefined) return run(tickReasons.noCheckpoint);
  if (checkpoint.observedGeneration !== listed.generation) return run(tickReasons.generationChanged);
  if (checkpoint.result !== 'Success') {
    if (timing.now >= (checkpoint.nextAttemptAt ?? 0)) return run(tickReasons.retryDue);
    return { due: false, reason: tickReasons.backingOff };
  }
  if (timing.resyncAfterMs !== undefined && timing.now - checkpoint.updatedAt >= timing.resyncAfterMs) {
    return { due: true, reason: tickReasons.resync, force: true };
  }
  return { due: false, reason: tickReasons.upToDate };
}
