// Middleware: read the checkpoint (one DynamoDB read) and the object's facts (≤ 2 GETs) and end the pass early,
// writing nothing, when nothing is due.
import type { MiddlewareObj } from '@middy/core';
import { computeDueReason, forgetObject, getCheckpoint } from '#shared/checkpoint/index.ts';
import { passStateOf, type PassRequest } from '#shared/runtime/pass-state.ts';
import type { PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

/**
 * Skips the pass (early response `Skipped`) when the object is gone (forgetting its due rows), or when its generation and input hash match
 * the checkpoint and no retry or requeue is due. A `force` request skips only when the object is gone; a `wake`
 * request runs a requeued pass early when that requeue waits for the pass's own objects (`wakeOnOwnedChange`).
 *
 * @example
 * middy(runReconcile).use(createPassState(...)).use(skipUnchanged(reconciler, deps));
 */
export function skipUnchanged(
  reconciler: Pick<Reconciler, 'getFacts'>,
  deps: RuntimeDeps,
): MiddlewareObj<PassRequest, PassReport> {
  return {
    name: 'skipUnchanged',
    before: async (request) => {
      const state = passStateOf(request);
      const { key, force } = request.event;
      state.previous = await getCheckpoint(deps.store, state.checkpointKey);
      const facts = await reconciler.getFacts(deps, key);
      const skip = (reason: string): PassReport => {
        state.logger.debug('skipped pass', { reason });
        return { key, passId: state.passId, status: 'Skipped', reason };
      };
      if (facts === undefined) {
        // NOTE: a gone object whose rows are in the due index (a retry pending, or a lapsed lease the tick found)
        // would be found again by every tick: forget it, once.
        if ((state.previous !== undefined && state.previous.result !== 'Success') || request.event.lapsedLease) {
          await forgetObject(deps.store, state.checkpointKey, deps.now());
        }
        return skip('NotFound');
      }
      state.facts = facts;
      const due = computeDueReason(state.previous, {
        now: deps.now(),
        generation: facts.generation,
        inputHash: facts.inputHash,
      });
      if (force) return undefined;
      if (due === 'BackingOff' && request.event.wake === true && state.previous?.wakeOnOwnedChange === true) {
        state.logger.debug('pass is due', { reason: 'OwnedObjectChanged' });
        return undefined;
      }
      if (due === 'UpToDate' || due === 'BackingOff') return skip(due);
      state.logger.debug('pass is due', { reason: due });
      return undefined;
    },
  };
}
