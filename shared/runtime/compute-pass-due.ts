// Whether a pass request is due, judged from a checkpoint: pure, so the same rules judge it before the lease (the
// checkpoint read with the facts) and again once the lease is taken (the checkpoint the lease write found).
import {
  computeAwaitedOwnedObject,
  computeDueReason,
  computeEditedOwnedObject,
  type Checkpoint,
  type DueFacts,
  type OwnedChange,
} from '#shared/checkpoint/index.ts';

/** What of a pass request the judgement reads (see `PassRequest`). */
export type DueRequest = {
  readonly force?: boolean;
  readonly wake?: boolean;
  readonly ownedChanges?: readonly OwnedChange[];
};

export type PassDue =
  | {
      readonly due: true;
      /** A `DueReason`, `Forced`, `OwnedObjectChanged`, `AwaitedObjectChanged` or `OwnedObjectEdited`. */
      readonly reason: string;
      /** The owned object someone else edited or another controller acted on, when that made it due. */
      readonly object?: string;
    }
  | { readonly due: false; readonly reason: 'UpToDate' | 'BackingOff'; readonly nextAttemptAt?: number };

/**
 * Whether the pass is due: forced; or its generation or inputs changed, or its retry time came (`computeDueReason`);
 * or, while up to date or backing off, an owned object it waits for changed (`wake` after a requeue that waits for
 * them), another controller acted on an object it awaits, or someone else edited an object it owns.
 *
 * @example
 * computePassDue(checkpoint, { ownedChanges: [{ object: 'MachineDeployment default/md-0', generation: 4 }] }, facts);
 * // { due: true, reason: 'OwnedObjectEdited', object: 'MachineDeployment default/md-0' }
 */
export function computePassDue(checkpoint: Checkpoint | undefined, request: DueRequest, facts: DueFacts): PassDue {
  if (request.force === true) return { due: true, reason: 'Forced' };
  const reason = computeDueReason(checkpoint, facts);
  if (reason !== 'UpToDate' && reason !== 'BackingOff') return { due: true, reason };
  if (reason === 'BackingOff' && request.wake === true && checkpoint?.wakeOnOwnedChange === true)
    return { due: true, reason: 'OwnedObjectChanged' };
  // NOTE: the last pass waits for another controller to act on this object (e.g. adopt it): its metadata changed,
  // which neither the facts nor the generation show.
  const awaited = computeAwaitedOwnedObject(checkpoint, request.ownedChanges);
  if (awaited !== undefined) return { due: true, reason: 'AwaitedObjectChanged', object: awaited };
  // NOTE: someone else wrote the spec of an object the pass owns (upstream reconciles on any such change).
  const edited = computeEditedOwnedObject(checkpoint, request.ownedChanges);
  if (edited !== undefined) return { due: true, reason: 'OwnedObjectEdited', object: edited };
  // NOTE: a pass woken by its one-time schedule before the checkpoint's time schedules that time instead.
  return reason === 'BackingOff' && checkpoint?.nextAttemptAt !== undefined
    ? { due: false, reason, nextAttemptAt: checkpoint.nextAttemptAt }
    : { due: false, reason };
}
