// One reconcile pass over one object, as a middy chain: state → skip when unchanged → lease → reconcile →
// record the checkpoint (and release the lease). Events and ticks both run passes through this.
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { findDependencyTimeout, remainingBeforeDeadlineMs, runWithDeadline } from '#shared/deadline/index.ts';
import { attachPassState, describeKey, passStateOf, type PassRequest } from '#shared/runtime/pass-state.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { holdLease } from '#shared/runtime/middlewares/hold-lease.ts';
import { recordOutcome } from '#shared/runtime/middlewares/record-outcome.ts';
import { skipUnchanged } from '#shared/runtime/middlewares/skip-unchanged.ts';
import type { PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

/** How much earlier than the pass's early timeout its calls to other services give up (at most a quarter). */
const callsStopEarlierMs = 500;

/** How many more passes one request runs when other passes keep asking for a rerun while it holds the lease. */
const maxReruns = 5;

export type PassRunner = (request: PassRequest, context: LambdaContextLike) => Promise<PassReport>;

/** Middleware: names the pass (`<request id>#<Kind ns/name>`) and gives it a logger that says so on every line. */
function namePass(reconciler: Reconciler, deps: RuntimeDeps): MiddlewareObj<PassRequest, PassReport> {
  return {
    name: 'namePass',
    before: (request) => {
      const { key } = request.event;
      const context = request.context as unknown as LambdaContextLike;
      const passId = `${context.awsRequestId}#${describeKey(key)}`;
      attachPassState(request.event, {
        passId,
        checkpointKey: { controller: reconciler.controller, kind: key.kind, namespace: key.namespace, name: key.name },
        logger: deps.logger.createChild({
          persistentKeys: {
            controller: reconciler.controller,
            object: describeKey(key),
            passId,
            trigger: request.event.trigger,
          },
        }),
      });
      return undefined;
    },
  };
}

/**
 * Builds the pass pipeline of a reconciler. middy's early timeout aborts the pass `config.stopBeforeTimeoutMs`
 * before the Lambda deadline (the reconciler sees `ctx.signal` abort) and the checkpoint is still written. Every
 * call to DynamoDB and Kubernetes made by the pass is bounded by that same moment (the checkpoint write by the
 * Lambda deadline itself); a call that misses it ends the pass as an `Error` naming the dependency
 * (`timedOut` in the report, an error log line `pass timed out`, a `<Dependency>Timeouts` metric).
 *
 * @example
 * const runPass = createPassRunner(topologyReconciler, deps);
 * await runPass({ key, trigger: event.id }, context); // { status: 'Ran', result: 'Success', changed: [...] }
 */
export function createPassRunner(reconciler: Reconciler, deps: RuntimeDeps): PassRunner {
  const handler = middy<PassRequest, PassReport>(
    async (event: PassRequest, _context: unknown, { signal }: { signal: AbortSignal }): Promise<PassReport> => {
      const state = passStateOf(event);
      if (!state.facts) throw new Error('the pass handler runs after skipUnchanged, which reads the facts');
      state.logger.info('pass started');
      // NOTE: calls give up a little before middy's early timeout, so a call that hangs is named in the outcome
      // rather than reported as a plain early timeout.
      const remaining = remainingBeforeDeadlineMs() ?? Number.POSITIVE_INFINITY;
      const earlierMs = Math.min(callsStopEarlierMs, remaining / 4);
      state.outcome = await runWithDeadline(Date.now() + remaining - earlierMs, () =>
        reconciler.reconcile(deps, event.key, {
          passId: state.passId,
          facts: state.facts as NonNullable<typeof state.facts>,
          previous: state.previous,
          signal,
          logger: state.logger,
        }),
      );
      return { key: event.key, passId: state.passId, status: 'Ran', reason: state.outcome.result };
    },
    { timeoutEarlyInMillis: deps.config.stopBeforeTimeoutMs },
  )
    .use(namePass(reconciler, deps))
    .use(skipUnchanged(reconciler, deps))
    .use(holdLease(deps))
    .use(recordOutcome(deps));
  const runOnce = async (request: PassRequest, context: LambdaContextLike): Promise<PassReport> => {
    // NOTE: a fresh request object per pass: the pass state is keyed by it.
    const event = { ...request };
    const deadlineAtMs = Date.now() + context.getRemainingTimeInMillis() - deps.config.stopBeforeTimeoutMs;
    try {
      return await runWithDeadline(deadlineAtMs, () => handler(event, context as never));
    } catch (err) {
      const timeout = findDependencyTimeout(err);
      if (timeout === undefined) throw err;
      // NOTE: the timeout hit before the lease was taken or while recording; nothing was recorded, so an event
      // invocation fails (Lambda retries it) and a due-index entry stays due for the next tick.
      const passId = `${context.awsRequestId}#${describeKey(request.key)}`;
      const message = err instanceof Error ? err.message : timeout.message;
      deps.logger.error('pass timed out', {
        controller: reconciler.controller,
        object: describeKey(request.key),
        passId,
        dependency: timeout.dependency,
        operation: timeout.operation,
        timeoutMs: timeout.timeoutMs,
        error: message,
      });
      const report: PassReport = {
        key: request.key,
        passId,
        status: 'Ran',
        reason: message,
        result: 'Error',
        changed: [],
        timedOut: timeout.dependency,
        unrecorded: true,
      };
      return report;
    }
  };
  return async (request, context) => {
    let report = await runOnce(request, context);
    let latestRan = report.status === 'Ran' ? report : undefined;
    // NOTE: what every pass of the request changed, in order: a rerun that finds nothing to do must not hide what
    // the first pass did (logs, the local bus's output, metrics).
    const changed: string[] = [...(report.changed ?? [])];
    let runs = 1;
    while (report.rerun !== undefined && runs <= maxReruns) {
      // NOTE: another pass found the lease held while this one ran: a change may have landed after this pass read
      // the object. The rerun goes through the usual checks, so it is skipped when nothing changed after all.
      const { force, wake } = report.rerun;
      deps.logger.info('pass runs again: asked while it held the lease', {
        controller: reconciler.controller,
        object: describeKey(request.key),
        force,
        wake,
      });
      report = await runOnce(
        {
          key: request.key,
          ...(force ? { force: true } : {}),
          ...(wake ? { wake: true } : {}),
          trigger: `${request.trigger} (run again)`,
        },
        context,
      );
      runs++;
      if (report.status === 'Ran') latestRan = report;
      changed.push(...(report.changed ?? []));
    }
    if (report.rerun !== undefined) {
      deps.logger.warn('pass asked to run again too often; the next event, tick or sweep picks the object up', {
        controller: reconciler.controller,
        object: describeKey(request.key),
        runs,
      });
    }
    const last = latestRan ?? report;
    const { rerun: _rerun, ...rest } = last;
    return runs > 1 ? { ...rest, ...(last.status === 'Ran' ? { changed } : {}), runs } : last;
  };
}
