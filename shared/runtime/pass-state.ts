// What the per-object middlewares and the pass handler share while one pass runs, and the pass request.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Checkpoint, CheckpointKey, RerunRequest } from '#shared/checkpoint/index.ts';
import type { ObjectFacts, PassKey, PassOutcome } from '#shared/runtime/types.ts';

/** One object to reconcile, as the dispatcher (event or tick) hands it to the pass pipeline. */
export type PassRequest = {
  readonly key: PassKey;
  /** Skip the "nothing changed" check (drift correction by the tick). */
  readonly force?: boolean;
  /** Run before the due time when the last pass requeued waiting for its own objects (see `MappedKey.wake`). */
  readonly wake?: boolean;
  /** The tick found the object's lease lapsed: a pass died without recording its checkpoint. */
  readonly lapsedLease?: boolean;
  /** What asked for the pass, for logs: an event id or `tick`. */
  readonly trigger: string;
};

export type PassState = {
  passId: string;
  checkpointKey: CheckpointKey;
  logger: Logger;
  previous?: Checkpoint | undefined;
  facts?: ObjectFacts;
  /** Set once the lease was taken; the release in after/onError looks at it. */
  leaseHeld?: boolean;
  /** What the reconciler returned (or the Error outcome of what it threw). */
  outcome?: PassOutcome;
  /** Set once the checkpoint was written (and the lease released with it). */
  recorded?: boolean;
  /** Another pass asked this one, while it held the lease, to run once more (found when the lease was released). */
  rerun?: RerunRequest;
};

// NOTE: keyed by the pass request object (one fresh object per pass), so the middlewares and the handler, which
// middy gives only the event, share the state without untyped `request.internal` casts.
const states = new WeakMap<PassRequest, PassState>();

/** Attaches the state of a pass to its request. */
export function attachPassState(event: PassRequest, state: PassState): void {
  states.set(event, state);
}

/** The state of the pass a middy request (or its event) belongs to. */
export function passStateOf(request: { readonly event: PassRequest } | PassRequest): PassState {
  const event = 'event' in request ? request.event : request;
  const state = states.get(event);
  if (!state) throw new Error('pass state missing: pass middlewares run inside createPassRunner');
  return state;
}

/** `Kind namespace/name`, the way logs and reports name a pass's object. */
export function describeKey(key: PassKey): string {
  return `${key.kind} ${key.namespace ? `${key.namespace}/` : ''}${key.name}`;
}
