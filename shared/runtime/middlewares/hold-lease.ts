// Middleware: take the object's lease before the pass (one conditional write) and give it back after, unless the
// checkpoint write already released it. A pass that finds the lease held asks the holder to run again.
import type { MiddlewareObj } from '@middy/core';
import { acquireLease, LeaseHeldError, releaseLease, requestRerun } from '#shared/checkpoint/index.ts';
import { runWithDeadline } from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { passStateOf, type PassRequest } from '#shared/runtime/pass-state.ts';
import type { PassReport, RuntimeDeps } from '#shared/runtime/types.ts';

/** How often a pass tries to take a lease that was released while it asked its holder to run again. */
const acquireAttempts = 3;

/**
 * Acquires the lease with the pass id as holder. When another pass holds it, this one marks the lease "run again"
 * (with its force/wake flags) and ends early as `Skipped`: the holder may have read the object before the change
 * that brought this pass, so it runs once more when it is done (upstream's work queue re-queues a key that changed
 * mid-reconcile the same way). Nothing waits or polls. Releases in `after`/`onError` when `recordOutcome` did not,
 * keeping a rerun request found on the lease.
 *
 * @example
 * middy(runReconcile).use(createPassState(...)).use(skipUnchanged(r, deps)).use(holdLease(deps)).use(recordOutcome(deps));
 */
export function holdLease(deps: RuntimeDeps): MiddlewareObj<PassRequest, PassReport> {
  if (!(deps.config.leaseTtlMs > 0)) throw new RangeError('holdLease needs config.leaseTtlMs > 0');
  const release = async (request: {
    readonly event: PassRequest;
    readonly context: unknown;
    response?: PassReport | null;
  }): Promise<void> => {
    const state = passStateOf(request);
    if (!state.leaseHeld || state.recorded) return;
    try {
      // NOTE: after a pass that ran out of time, the release gets what is left of the Lambda, not of the pass.
      const context = request.context as LambdaContextLike;
      const rerun = await runWithDeadline(Date.now() + context.getRemainingTimeInMillis(), () =>
        releaseLease(deps.store, state.checkpointKey, state.passId),
      );
      state.leaseHeld = false;
      if (rerun !== undefined) {
        state.rerun = rerun;
        if (request.response) request.response = { ...request.response, rerun };
      }
    } catch (err) {
      // NOTE: the lease lapses on its own after leaseTtlMs; failing the invocation would only re-run the pass.
      state.logger.warn('failed to release lease', { error: errorMessage(err) });
    }
  };
  return {
    name: 'holdLease',
    before: async (request) => {
      const state = passStateOf(request);
      const { force = false, wake = false } = request.event;
      for (let attempt = 1; ; attempt++) {
        try {
          await acquireLease(deps.store, state.checkpointKey, state.passId, {
            ttlMs: deps.config.leaseTtlMs,
            now: deps.now(),
          });
          state.leaseHeld = true;
          return undefined;
        } catch (err) {
          if (!(err instanceof LeaseHeldError)) throw err;
          const asked = await requestRerun(deps.store, state.checkpointKey, { force, wake }, deps.now());
          if (!asked && attempt < acquireAttempts) continue;
          state.logger.info('skipped pass: lease held', {
            holder: err.holder,
            leaseExpiresAtMs: err.expiresAtMs,
            rerunRequested: asked,
          });
          const report: PassReport = {
            key: request.event.key,
            passId: state.passId,
            status: 'Skipped',
            reason: `LeaseHeld by ${err.holder ?? 'unknown'}${asked ? ', asked to run again' : ''}`,
          };
          return report;
        }
      }
    },
    after: release,
    onError: release,
  };
}
