// Middleware: after a pass (or when it threw or ran out of time) write its checkpoint with the attempts and the
// next attempt (exponential backoff with jitter), releasing the lease with it.
import type { MiddlewareObj } from '@middy/core';
import { LeaseHeldError } from '#shared/checkpoint/index.ts';
import { findDependencyTimeout, lastDependencyTimeout, runWithDeadline } from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { computeCheckpoint } from '#shared/runtime/compute-checkpoint.ts';
import { passStateOf, type PassRequest, type PassState } from '#shared/runtime/pass-state.ts';
import { recordCheckpointAndRelease } from '#shared/runtime/record-and-release.ts';
import type { PassOutcome, PassReport, RuntimeDeps } from '#shared/runtime/types.ts';

/** How long before the Lambda deadline the checkpoint write must have answered. */
const recordReserveMs = 500;

/** The Error outcome of a pass that threw; middy's early timeout becomes a message saying so. */
export function outcomeOfError(err: unknown): PassOutcome {
  const timedOut = err instanceof Error && err.name === 'TimeoutError';
  return {
    result: 'Error',
    changed: [],
    error: timedOut ? 'pass stopped before the Lambda timeout' : errorMessage(err),
  };
}

/**
 * Records the outcome the handler left in the pass state (after) or the thrown error (onError); an error that
 * is recorded is handled: the invocation succeeds and the retry happens through the checkpoint's backoff, not
 * through Lambda's retries. Nothing is recorded when the lease was never taken.
 *
 * @example
 * middy(runReconcile).use(createPassState(...)).use(skipUnchanged(r, deps)).use(holdLease(deps)).use(recordOutcome(deps));
 */
export function recordOutcome(deps: RuntimeDeps): MiddlewareObj<PassRequest, PassReport> {
  const { backoffBaseMs, backoffMaxMs, requeueAfterMs } = deps.config;
  if (!(backoffBaseMs > 0 && backoffMaxMs >= backoffBaseMs)) {
    throw new RangeError(`recordOutcome needs 0 < backoffBaseMs <= backoffMaxMs`);
  }
  const backoff = { baseMs: backoffBaseMs, maxMs: backoffMaxMs, jitter: deps.jitter };

  async function record(
    state: PassState,
    key: PassRequest['key'],
    outcome: PassOutcome,
    context: LambdaContextLike,
    error?: unknown,
  ): Promise<PassReport> {
    if (!state.facts) throw new Error('recordOutcome runs after skipUnchanged, which reads the facts');
    const timedOut =
      findDependencyTimeout(error)?.dependency ??
      (outcome.result === 'Error' ? lastDependencyTimeout()?.dependency : undefined);
    const checkpoint = computeCheckpoint({
      previous: state.previous,
      facts: state.facts,
      outcome,
      passId: state.passId,
      now: deps.now(),
      backoff,
      requeueAfterMs,
    });
    try {
      // NOTE: the pass's own deadline has passed when it ran out of time; the write gets what is left of the Lambda.
      const recordByMs = Date.now() + context.getRemainingTimeInMillis() - recordReserveMs;
      const rerun = await runWithDeadline(recordByMs, () =>
        recordCheckpointAndRelease(deps.store, state.checkpointKey, checkpoint, state.passId),
      );
      if (rerun !== undefined) state.rerun = rerun;
    } catch (err) {
      if (!(err instanceof LeaseHeldError)) throw err;
      // NOTE: our lease lapsed and another pass took over; its checkpoint wins, ours is dropped.
      state.logger.warn('lost the lease before recording the checkpoint', { holder: err.holder });
    }
    state.recorded = true;
    state.leaseHeld = false;
    const report: PassReport = {
      key,
      passId: state.passId,
      status: 'Ran',
      reason: outcome.result === 'Error' ? (outcome.error ?? 'Error') : outcome.result,
      result: outcome.result,
      changed: outcome.changed,
      ...(checkpoint.nextAttemptAt === undefined ? {} : { nextAttemptAt: checkpoint.nextAttemptAt }),
      ...(timedOut === undefined ? {} : { timedOut }),
      ...(state.rerun === undefined ? {} : { rerun: state.rerun }),
    };
    const log =
      outcome.result === 'Error' ? state.logger.error.bind(state.logger) : state.logger.info.bind(state.logger);
    log('pass finished', {
      result: outcome.result,
      changed: outcome.changed,
      attempts: checkpoint.attempts,
      ...(checkpoint.nextAttemptAt === undefined
        ? {}
        : { nextAttemptAt: new Date(checkpoint.nextAttemptAt).toISOString() }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(timedOut === undefined ? {} : { dependency: timedOut }),
    });
    return report;
  }

  return {
    name: 'recordOutcome',
    after: async (request) => {
      const state = passStateOf(request);
      if (!state.outcome) throw new Error('the pass handler returned without an outcome');
      request.response = await record(state, request.event.key, state.outcome, request.context as never);
    },
    onError: async (request) => {
      const state = passStateOf(request);
      if (!state.leaseHeld || state.recorded || !state.facts) return;
      state.outcome = outcomeOfError(request.error);
      request.response = await record(state, request.event.key, state.outcome, request.context as never, request.error);
    },
  };
}
