// The pass protocol, top to bottom: read the checkpoint and the facts, skip when nothing is due, take the lease,
// reconcile within the pass's deadline, record the checkpoint (releasing the lease with it). Events and ticks both run
// passes through this; middy stays at the Lambda edge (create-controller-handler.ts).
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  acquireLease,
  forgetObject,
  getCheckpoint,
  LeaseHeldError,
  recordCheckpointAndReleaseLease,
  releaseLease,
  requestRerun,
  type Checkpoint,
  type CheckpointKey,
  type Lease,
  type OwnedChange,
  type RerunRequest,
} from '#shared/checkpoint/index.ts';
import {
  findDependencyTimeout,
  lastDependencyTimeout,
  remainingBeforeDeadlineMs,
  runWithDeadline,
} from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { computeCheckpoint } from '#shared/runtime/compute-checkpoint.ts';
import { computePassDue } from '#shared/runtime/compute-pass-due.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import type {
  ObjectFacts,
  PassKey,
  PassOutcome,
  PassReport,
  PassTimings,
  Reconciler,
  RuntimeDeps,
} from '#shared/runtime/types.ts';

/** One object to reconcile, as the dispatcher (event or tick) hands it to the pass. */
export type PassRequest = {
  readonly key: PassKey;
  /** Skip the "nothing changed" check (drift correction by the tick). */
  readonly force?: boolean;
  /** Run before the due time when the last pass requeued waiting for its own objects (see `MappedKey.wake`). */
  readonly wake?: boolean;
  /** Changes of objects the pass owns (see `MappedKey.ownedChange`): due at once when one is someone else's write. */
  readonly ownedChanges?: readonly OwnedChange[];
  /** The tick found the object's lease lapsed: a pass died without recording its checkpoint. */
  readonly lapsedLease?: boolean;
  /** What asked for the pass, for logs: an event id or `tick`. */
  readonly trigger: string;
};

export type PassRunner = (request: PassRequest, context: LambdaContextLike) => Promise<PassReport>;

/** The scope of one pass: who it is, what it read, and whether it still holds the lease. */
type PassScope = {
  readonly request: PassRequest;
  readonly context: LambdaContextLike;
  readonly passId: string;
  readonly checkpointKey: CheckpointKey;
  readonly logger: Logger;
  readonly previous: Checkpoint | undefined;
  readonly facts: ObjectFacts;
  leaseHeld: boolean;
  recorded: boolean;
  /** The lease replaced another holder's lapsed one: that pass died unrecorded, so this one is forced. */
  readonly tookOverLapsedLease: boolean;
  rerun?: RerunRequest;
  /** How long each step took so far (the report's `timings`). */
  readonly timer: PassTimer;
};

/** Times the steps of one pass: `lap(step)` records the time since the previous lap under `step`. */
type PassTimer = { lap(step: keyof PassTimings): void; readonly timings: PassTimings };

function startPassTimer(): PassTimer {
  let last = performance.now();
  const timings: Record<string, number> = {};
  return {
    lap(step) {
      const at = performance.now();
      timings[step] = Math.round(at - last);
      last = at;
    },
    timings: timings as PassTimings,
  };
}

/** How much earlier than the pass's early timeout its calls to other services give up (at most a quarter). */
const callsStopEarlierMs = 500;
/** How many more passes one request runs when other passes keep asking for a rerun while it holds the lease. */
const maxReruns = 5;
/** How often a pass tries to take a lease that was released while it asked its holder to run again. */
const acquireAttempts = 3;
/** How long before the Lambda deadline the checkpoint write must have answered. */
const recordReserveMs = 500;

/** `Kind namespace/name`, the way logs and reports name a pass's object. */
export function describeKey(key: PassKey): string {
  return `${key.kind} ${key.namespace ? `${key.namespace}/` : ''}${key.name}`;
}

/** The Error outcome of a pass that threw; the early timeout becomes a message saying so. */
export function outcomeOfError(err: unknown): PassOutcome {
  const timedOut = err instanceof Error && err.name === 'TimeoutError';
  return {
    result: 'Error',
    changed: [],
    error: timedOut ? 'pass stopped before the Lambda timeout' : errorMessage(err),
  };
}

/**
 * One pass over one object. An error the reconciler throws (or its early timeout) is recorded as an `Error` outcome:
 * the retry happens through the checkpoint's backoff, not through Lambda's retries. An error before the lease is
 * taken, or while recording, is thrown.
 *
 * @example
 * const report = await runPass(topologyReconciler, deps, { key, trigger: event.id }, context);
 */
export async function runPass(
  reconciler: Reconciler,
  deps: RuntimeDeps,
  request: PassRequest,
  context: LambdaContextLike,
): Promise<PassReport> {
  const { key } = request;
  const passId = `${context.awsRequestId}#${describeKey(key)}`;
  const checkpointKey = { controller: reconciler.controller, kind: key.kind, namespace: key.namespace, name: key.name };
  const logger = deps.logger.createChild({
    persistentKeys: { controller: reconciler.controller, object: describeKey(key), passId, trigger: request.trigger },
  });
  const skipped = (reason: string): PassReport => ({ key, passId, status: 'Skipped', reason });

  // 1. Checkpoint and facts (one DynamoDB read, the reconciler's few GETs, at once); skip when nothing is due.
  const timer = startPassTimer();
  const [previous, facts] = await Promise.all([
    getCheckpoint(deps.store, checkpointKey),
    reconciler.getFacts(deps, key),
  ]);
  timer.lap('readMs');
  if (facts === undefined) {
    // NOTE: a gone object whose rows are in the due index (a retry pending, or a lapsed lease the tick found)
    // would be found again by every tick: forget it, once.
    if ((previous !== undefined && previous.result !== 'Success') || request.lapsedLease) {
      await forgetObject(deps.store, checkpointKey, deps.now());
    }
    logger.debug('skipped pass', { reason: 'NotFound' });
    // NOTE: a gone object's one-time schedule would only fire into a pass that finds it gone.
    const dueBefore = previous?.nextAttemptAt;
    return { ...skipped('NotFound'), ...(dueBefore === undefined ? {} : { previousNextAttemptAt: dueBefore }) };
  }
  const dueFacts = { now: deps.now(), generation: facts.generation, inputHash: facts.inputHash };
  const due = computePassDue(previous, request, dueFacts);
  if (!due.due) {
    logger.debug('skipped pass', { reason: due.reason });
    return { ...skipped(due.reason), ...(due.nextAttemptAt === undefined ? {} : { nextAttemptAt: due.nextAttemptAt }) };
  }
  if (due.reason === 'OwnedObjectEdited') logger.info('pass is due', { reason: due.reason, edited: due.object });
  else logger.debug('pass is due', { reason: due.reason, ...(due.object === undefined ? {} : { object: due.object }) });

  // 2. The lease; a pass that finds it held asks the holder to run again and ends here.
  const leaseHeld = await acquireLeaseOrAskRerun(deps, request, checkpointKey, passId, logger);
  timer.lap('leaseMs');
  if ('reason' in leaseHeld) return { key, passId, status: 'Skipped', reason: leaseHeld.reason };
  if (leaseHeld.lapsedHolder !== undefined)
    logger.warn('took over a lapsed lease: its pass died before recording', { holder: leaseHeld.lapsedHolder });
  // NOTE: the checkpoint was read before the lease. A pass that recorded and let the lease go in between is named
  // only in the row the lease write found: the pass goes on from that one (read by the older one's names, it would not
  // see what the other pass created and would create it again: the differential's d16 and d46 of 2026-11-28).
  const atLease = leaseHeld.atLease;
  const latest = atLease === undefined ? previous : atLease.checkpoint;
  if (!request.force && leaseHeld.lapsedHolder === undefined && atLease !== undefined) {
    // NOTE: that pass (the one whose own write this event is, or one that ran for the same change) may make this one
    // needless: judged again against the checkpoint the lease write found, at no extra read.
    const again = isDeepStrictEqual(latest, previous) ? due : computePassDue(latest, request, dueFacts);
    if (!again.due) {
      logger.debug('skipped pass', { reason: again.reason, recheckedAfterLease: true });
      const rerun = await releaseLease(deps.store, checkpointKey, passId);
      return {
        ...skipped(again.reason),
        ...(again.nextAttemptAt === undefined ? {} : { nextAttemptAt: again.nextAttemptAt }),
        ...(rerun === undefined ? {} : { rerun }),
      };
    }
  }
  const scope: PassScope = {
    request,
    context,
    passId,
    checkpointKey,
    logger,
    previous: latest,
    facts,
    leaseHeld: true,
    recorded: false,
    tookOverLapsedLease: leaseHeld.lapsedHolder !== undefined,
    timer,
  };

  // 3. Reconcile, then 4. record the checkpoint and release the lease in one write.
  let report: PassReport;
  try {
    const outcome = await reconcileWithinDeadline(reconciler, deps, scope);
    timer.lap('reconcileMs');
    report = await recordPass(deps, scope, outcome);
  } catch (err) {
    if (!scope.leaseHeld || scope.recorded) throw err;
    if (scope.timer.timings.reconcileMs === undefined) timer.lap('reconcileMs');
    report = await recordPass(deps, scope, outcomeOfError(err), err);
  }
  // NOTE: only reached when the checkpoint write did not release the lease (it normally does).
  return releaseUnrecordedLease(deps, scope, report);
}

/**
 * Takes the lease with the pass id as holder (saying whose lapsed lease it replaced, if any), or marks it "run again"
 * (upstream's work queue re-queues the same way).
 */
async function acquireLeaseOrAskRerun(
  deps: RuntimeDeps,
  request: PassRequest,
  checkpointKey: CheckpointKey,
  passId: string,
  logger: Logger,
): Promise<{ lapsedHolder?: string; atLease?: Lease['atLease'] } | { reason: string }> {
  const { force = false, wake = false, ownedChanges = [] } = request;
  for (let attempt = 1; ; attempt++) {
    try {
      const lease = await acquireLease(deps.store, checkpointKey, passId, {
        ttlMs: deps.config.leaseTtlMs,
        now: deps.now(),
      });
      return {
        ...(lease.lapsedHolder === undefined ? {} : { lapsedHolder: lease.lapsedHolder }),
        ...(lease.atLease === undefined ? {} : { atLease: lease.atLease }),
      };
    } catch (err) {
      if (!(err instanceof LeaseHeldError)) throw err;
      // NOTE: the owned changes go with the request: the holder's own write is judged against its new checkpoint.
      const rerun = { force, wake, ...(ownedChanges.length > 0 ? { owned: ownedChanges } : {}) };
      const asked = await requestRerun(deps.store, checkpointKey, rerun, deps.now());
      if (!asked && attempt < acquireAttempts) continue;
      logger.info('skipped pass: lease held', {
        holder: err.holder,
        leaseExpiresAtMs: err.expiresAtMs,
        rerunRequested: asked,
      });
      return { reason: `LeaseHeld by ${err.holder ?? 'unknown'}${asked ? ', asked to run again' : ''}` };
    }
  }
}

/**
 * Runs the reconciler until `config.stopBeforeTimeoutMs` before the Lambda deadline: then its `signal` aborts and
 * the pass ends with a `TimeoutError` (recorded as an Error outcome), leaving time to write the checkpoint. Its
 * calls to other services give up a little earlier, so a call that hangs is named in the outcome.
 */
async function reconcileWithinDeadline(
  reconciler: Reconciler,
  deps: RuntimeDeps,
  scope: PassScope,
): Promise<PassOutcome> {
  scope.logger.info('pass started');
  const abort = new AbortController();
  const remaining = remainingBeforeDeadlineMs() ?? Number.POSITIVE_INFINITY;
  const earlierMs = Math.min(callsStopEarlierMs, remaining / 4);
  const reconciling = runWithDeadline(Date.now() + remaining - earlierMs, () =>
    reconciler.reconcile(deps, scope.request.key, {
      passId: scope.passId,
      facts: scope.facts,
      previous: scope.previous,
      ...(scope.request.force === true || scope.request.lapsedLease === true || scope.tookOverLapsedLease
        ? { forced: true }
        : {}),
      signal: abort.signal,
      logger: scope.logger,
    }),
  );
  if (typeof scope.context.getRemainingTimeInMillis !== 'function') return reconciling;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      const err = new Error('[AbortError]: The operation was aborted.');
      err.name = 'TimeoutError';
      reject(err);
    }, scope.context.getRemainingTimeInMillis() - deps.config.stopBeforeTimeoutMs);
  });
  try {
    return await Promise.race([reconciling, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Writes the checkpoint (attempts, next attempt with backoff and jitter) and releases the lease in one conditional
 * update of the object's row; a lease lost meanwhile drops this checkpoint (the new holder's wins). Logs
 * `pass finished`.
 */
async function recordPass(
  deps: RuntimeDeps,
  scope: PassScope,
  outcome: PassOutcome,
  error?: unknown,
): Promise<PassReport> {
  const { backoffBaseMs, backoffMaxMs, requeueAfterMs } = deps.config;
  const timedOut =
    findDependencyTimeout(error)?.dependency ??
    (outcome.result === 'Error' ? lastDependencyTimeout()?.dependency : undefined);
  const dueBefore = scope.previous?.nextAttemptAt;
  const checkpoint = computeCheckpoint({
    previous: scope.previous,
    facts: scope.facts,
    outcome,
    passId: scope.passId,
    now: deps.now(),
    backoff: { baseMs: backoffBaseMs, maxMs: backoffMaxMs, jitter: deps.jitter },
    requeueAfterMs,
  });
  let lostLease = false;
  try {
    // NOTE: the pass's own deadline has passed when it ran out of time; the write gets what is left of the Lambda.
    const recordByMs = Date.now() + scope.context.getRemainingTimeInMillis() - recordReserveMs;
    const rerun = await runWithDeadline(recordByMs, () =>
      recordCheckpointAndReleaseLease(deps.store, scope.checkpointKey, checkpoint, scope.passId),
    );
    if (rerun !== undefined) scope.rerun = rerun;
  } catch (err) {
    if (!(err instanceof LeaseHeldError)) throw err;
    // NOTE: our lease lapsed and another pass took over; its checkpoint wins, ours is dropped.
    scope.logger.warn('lost the lease before recording the checkpoint', { holder: err.holder });
    lostLease = true;
  }
  scope.recorded = true;
  scope.leaseHeld = false;
  scope.timer.lap('recordMs');
  const log = outcome.result === 'Error' ? scope.logger.error.bind(scope.logger) : scope.logger.info.bind(scope.logger);
  log('pass finished', {
    result: outcome.result,
    changed: outcome.changed,
    attempts: checkpoint.attempts,
    ...(checkpoint.nextAttemptAt === undefined
      ? {}
      : { nextAttemptAt: new Date(checkpoint.nextAttemptAt).toISOString() }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(timedOut === undefined ? {} : { dependency: timedOut }),
    timings: scope.timer.timings,
  });
  return {
    key: scope.request.key,
    passId: scope.passId,
    status: 'Ran',
    reason: outcome.result === 'Error' ? (outcome.error ?? 'Error') : outcome.result,
    result: outcome.result,
    changed: outcome.changed,
    ...(checkpoint.nextAttemptAt === undefined ? {} : { nextAttemptAt: checkpoint.nextAttemptAt }),
    // NOTE: with the lease lost, the schedules are the new holder's to keep or delete.
    ...(lostLease || dueBefore === undefined ? {} : { previousNextAttemptAt: dueBefore }),
    ...(timedOut === undefined ? {} : { timedOut }),
    ...(scope.rerun === undefined ? {} : { rerun: scope.rerun }),
    timings: { ...scope.timer.timings },
  };
}

/** Gives the lease back when the checkpoint write did not; a failure only logs (the lease lapses after its TTL). */
async function releaseUnrecordedLease(deps: RuntimeDeps, scope: PassScope, report: PassReport): Promise<PassReport> {
  if (!scope.leaseHeld || scope.recorded) return report;
  try {
    // NOTE: after a pass that ran out of time, the release gets what is left of the Lambda, not of the pass.
    const rerun = await runWithDeadline(Date.now() + scope.context.getRemainingTimeInMillis(), () =>
      releaseLease(deps.store, scope.checkpointKey, scope.passId),
    );
    scope.leaseHeld = false;
    if (rerun !== undefined) return { ...report, rerun };
  } catch (err) {
    scope.logger.warn('failed to release lease', { error: errorMessage(err) });
  }
  return report;
}

/**
 * Builds the pass runner of a reconciler: `runPass` within the pass's deadline (every DynamoDB and Kubernetes call
 * bounded by `config.stopBeforeTimeoutMs` before the Lambda deadline), a dependency timeout outside the lease
 * reported as an unrecorded `Error`, and at most `maxReruns` more passes when another pass asked for one while
 * this one held the lease. Config is checked here, so a bad value fails at cold start.
 *
 * @example
 * const run = createPassRunner(topologyReconciler, deps);
 * await run({ key, trigger: event.id }, context); // { status: 'Ran', result: 'Success', changed: [...] }
 */
export function createPassRunner(reconciler: Reconciler, deps: RuntimeDeps): PassRunner {
  if (!(deps.config.leaseTtlMs > 0)) throw new RangeError('the pass runner needs config.leaseTtlMs > 0');
  const { backoffBaseMs, backoffMaxMs } = deps.config;
  if (!(backoffBaseMs > 0 && backoffMaxMs >= backoffBaseMs)) {
    throw new RangeError(`the pass runner needs 0 < backoffBaseMs <= backoffMaxMs`);
  }
  const runOnce = async (request: PassRequest, context: LambdaContextLike): Promise<PassReport> => {
    const deadlineAtMs = Date.now() + context.getRemainingTimeInMillis() - deps.config.stopBeforeTimeoutMs;
    try {
      return await runWithDeadline(deadlineAtMs, () => runPass(reconciler, deps, request, context));
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
      return {
        key: request.key,
        passId,
        status: 'Ran',
        reason: message,
        result: 'Error',
        changed: [],
        timedOut: timeout.dependency,
        unrecorded: true,
      };
    }
  };
  return async (request, context) => {
    let report = await runOnce(request, context);
    // NOTE: a one-time schedule can only wait for the due time the first pass found: the checkpoints this request's
    // own passes write get theirs after it (see create-controller-handler.ts).
    const { previousNextAttemptAt } = report;
    let latestRan = report.status === 'Ran' ? report : undefined;
    // NOTE: what every pass of the request changed, in order: a rerun that finds nothing to do must not hide what
    // the first pass did (logs, the local bus's output, metrics).
    const changed: string[] = [...(report.changed ?? [])];
    let runs = 1;
    while (report.rerun !== undefined && runs <= maxReruns) {
      // NOTE: another pass found the lease held while this one ran: a change may have landed after this pass read
      // the object. The rerun goes through the usual checks, so it is skipped when nothing changed after all.
      const { force, wake, owned } = report.rerun;
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
          ...(owned !== undefined ? { ownedChanges: owned } : {}),
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
    const { rerun: _rerun, previousNextAttemptAt: _theirs, ...rest } = last;
    return runs > 1
      ? {
          ...rest,
          ...(last.status === 'Ran' ? { changed } : {}),
          ...(previousNextAttemptAt === undefined ? {} : { previousNextAttemptAt }),
          runs,
        }
      : last;
  };
}
