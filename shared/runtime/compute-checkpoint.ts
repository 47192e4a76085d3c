// The checkpoint a pass leaves behind, computed from what it saw and how it ended: pure, so the backoff and the
// "what counts as a change" rules are tested without servers.
import { computeBackoff, type BackoffOptions, type Checkpoint } from '#shared/checkpoint/index.ts';
import type { ObjectFacts, PassOutcome } from '#shared/runtime/types.ts';

export type CheckpointInput = {
  readonly previous: Checkpoint | undefined;
  readonly facts: ObjectFacts;
  readonly outcome: PassOutcome;
  readonly passId: string;
  readonly now: number;
  readonly backoff: BackoffOptions;
  /** Used when a `Requeue` outcome does not say when. */
  readonly requeueAfterMs: number;
};

/**
 * The new checkpoint. `Success` resets the attempts; `Requeue` asks for another pass at `now + requeueAfterMs`
 * without growing the backoff; `Error` counts one more attempt and waits `computeBackoff(attempts)`.
 *
 * @example
 * computeCheckpoint({ previous, facts, outcome: { result: 'Error', changed: [], error: 'boom' }, passId, now, backoff, requeueAfterMs });
 * // { result: 'Error', attempts: previous.attempts + 1, nextAttemptAt: now + backoff, lastError: 'boom', ... }
 */
export function computeCheckpoint(input: CheckpointInput): Checkpoint {
  const { previous, facts, outcome, passId, now } = input;
  const awaited =
    outcome.wakeOnChangeOf !== undefined && outcome.wakeOnChangeOf.length > 0
      ? { wakeOnChangeOf: [...outcome.wakeOnChangeOf] }
      : {};
  const base = {
    observedGeneration: facts.generation,
    inputHash: facts.inputHash,
    // NOTE: the version after the pass's own writes, so the next event about those writes is not a change.
    resourceVersion: outcome.resourceVersion ?? facts.resourceVersion,
    lastPassId: passId,
    updatedAt: now,
  };
  switch (outcome.result) {
    case 'Success':
      return {
        ...base,
        result: 'Success',
        attempts: 0,
        ...(outcome.noChange ? { noChange: outcome.noChange } : {}),
        ...awaited,
        ...(outcome.ownedGenerations ? { ownedGenerations: outcome.ownedGenerations } : {}),
        ...(outcome.ownedMetadata ? { ownedMetadata: outcome.ownedMetadata } : {}),
        ...(outcome.ownWrites && Object.keys(outcome.ownWrites).length > 0
          ? { ownWrites: { ...outcome.ownWrites } }
          : {}),
      };
    case 'Requeue': {
      const after = outcome.requeueAfterMs ?? input.requeueAfterMs;
      return {
        ...base,
        result: 'Requeue',
        attempts: 0,
        nextAttemptAt: now + Math.max(0, Math.floor(after)),
        ...(outcome.noChange ? { noChange: outcome.noChange } : {}),
        ...(outcome.wakeOnOwnedChange === true ? { wakeOnOwnedChange: true as const } : {}),
        ...awaited,
        ...(outcome.ownedGenerations ? { ownedGenerations: outcome.ownedGenerations } : {}),
        ...(outcome.ownedMetadata ? { ownedMetadata: outcome.ownedMetadata } : {}),
      };
    }
    case 'Error': {
      const attempts = (previous?.result === 'Error' ? previous.attempts : 0) + 1;
      return {
        ...base,
        result: 'Error',
        attempts,
        nextAttemptAt: now + computeBackoff(attempts, input.backoff),
        lastError: outcome.error ?? 'the pass failed without a message',
      };
    }
  }
}
