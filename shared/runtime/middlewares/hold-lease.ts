// Middleware: take the object's lease before the pass (one conditional write) and give it back after, unless the
// checkpoint write already released it.
import type { MiddlewareObj } from '@middy/core';
import { acquireLease, LeaseHeldError, releaseLease } from '#shared/checkpoint/index.ts';
import { runWithDeadline } from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { passStateOf, type PassRequest } from '#shared/runtime/pass-state.ts';
import type { PassReport, RuntimeDeps } from '#shared/runtime/types.ts';

/**
 * Acquires the lease with the pass id as holder; when another pass holds it, ends this one early as `Skipped`
 * (that pass will record what it saw; an event arriving meanwhile is covered by its input-hash check or the next
 * tick). Releases in `after`/`onError` when `recordOutcome` did not.
 *
 * @example
 * middy(runReconcile).use(createPassState(...)).use(skipUnchanged(r, deps)).use(holdLease(deps)).use(recordOutcome(deps));
 */
export function holdLease(deps: RuntimeDeps): MiddlewareObj<PassRequest, PassReport> {
  if (!(deps.config.leaseTtlMs > 0)) throw new RangeError('holdLease needs config.leaseTtlMs > 0');
  const release = async (request: { readonly event: PassRequest; readonly context: unknown }): Promise<void> => {
    const state = passStateOf(request);
    if (!state.leaseHeld || state.recorded) return;
    try {
      // NOTE: after a pass that ran out of time, the release gets what is left of the Lambda, not of the pass.
      const context = request.context as LambdaContextLike;
      await runWithDeadline(Date.now() + context.getRemainingTimeInMillis(), () =>
        releaseLease(deps.store, state.checkpointKey, state.passId),
      );
      state.leaseHeld = false;
    } catch (err) {
      // NOTE: the lease lapses on its own after leaseTtlMs; failing the invocation would only re-run the pass.
      state.logger.warn('failed to release lease', { error: errorMessage(err) });
    }
  };
  return {
    name: 'holdLease',
    before: async (request) => {
      const state = passStateOf(request);
      try {
        await acquireLease(deps.store, state.checkpointKey, state.passId, {
          ttlMs: deps.config.leaseTtlMs,
          now: deps.now(),
        });
        state.leaseHeld = true;
        return undefined;
      } catch (err) {
        if (!(err instanceof LeaseHeldError)) throw err;
        state.logger.info('skipped pass: lease held', { holder: err.holder, leaseExpiresAtMs: err.expiresAtMs });
        const report: PassReport = {
          key: request.event.key,
          passId: state.passId,
          status: 'Skipped',
          reason: `LeaseHeld by ${err.holder ?? 'unknown'}`,
        };
        return report;
      }
    },
    after: release,
    onError: release,
  };
}
