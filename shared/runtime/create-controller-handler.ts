// A controller's Lambda handler: a middy chain that adds the Lambda context to logs, rejects malformed events
// (dropped, never retried) and dispatches an object change, a tick, a pass that is due or a fanned-out batch to the
// pass pipeline; passes that asked to run again at a time get a one-time schedule at that time, and the schedule of
// a pass that no longer asks is deleted.
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import {
  addMetricWhenNonZero,
  passMetricNames,
  publishMetricsWhenAny,
  recordPassMetrics,
} from '#shared/runtime/middlewares/record-metrics.ts';
import { CapiError } from '#shared/errors/index.ts';
import { createPassRunner, describeKey } from '#shared/runtime/run-pass.ts';
import {
  MalformedEventError,
  parseRuntimeEvent,
  type ObjectChange,
  type RuntimeEvent,
} from '#shared/runtime/events.ts';
import { createFanOutStream, type FanOutSink } from '#shared/runtime/fan-out.ts';
import { mapChangeToFanOut } from '#shared/runtime/map-change-to-fan-out.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { runTick } from '#shared/runtime/run-tick.ts';
import { computeWakeUpDeletes } from '#shared/runtime/compute-wake-up.ts';
import type { WakeUpDeleteSink, WakeUpReport, WakeUpRequest, WakeUpSink } from '#shared/runtime/scheduler-wake-ups.ts';
import type { HandlerResult } from '#shared/runtime/handler-result.ts';
import type { ChangedObject, MappedKey, PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export type { HandlerResult } from '#shared/runtime/handler-result.ts';

export type ControllerHandler = (event: unknown, context: LambdaContextLike) => Promise<HandlerResult>;

export type ControllerHandlerOptions = {
  readonly reconciler: Reconciler;
  /** The module-level logger (Powertools); every pass logs through a child of it. */
  readonly logger: Logger;
  /** Dependencies of an invocation: built once per cold start, or per invocation for fresh credentials. */
  readonly getDeps: (context: LambdaContextLike) => Promise<RuntimeDeps>;
  /**
   * Powertools Metrics: failed passes and dependency timeouts published as EMF at the end of an invocation that had
   * any (Lambda); see shared/runtime/emitted-metrics.ts.
   */
  readonly metrics?: Metrics;
  /** Powertools Tracer: an X-Ray segment per invocation (Lambda with active tracing). */
  readonly tracer?: Tracer;
  /**
   * Where a change mapping to more than `config.fanOut.batch` objects hands its further batches (shared/runtime/
   * fan-out.ts); unset: every mapped pass runs in the invocation.
   */
  readonly fanOut?: FanOutSink;
  /**
   * Where a pass that asked to run again at a time (Requeue, Error with backoff) gets a one-time schedule
   * (shared/runtime/scheduler-wake-ups.ts); unset: only the sweep finds it in the due index.
   */
  readonly wakeUps?: WakeUpSink;
  /**
   * Where the one-time schedule of a pass that no longer asks to run again is deleted (shared/runtime/
   * scheduler-wake-ups.ts); unset: it fires into a pass that finds nothing due.
   */
  readonly wakeUpDeletes?: WakeUpDeleteSink;
  /** Runs after a tick's sweep (the topology function's health check, shared/health/); must not throw. */
  readonly onTick?: (deps: RuntimeDeps, metrics: Metrics | undefined) => Promise<unknown>;
};

/**
 * Middleware: validates the event with zod; a malformed one is logged with its reason and answered `Rejected`
 * (`onRejected` counts it). The early answer skips the `after` steps, so Powertools' cleanup (metrics flush, trace
 * segment) is run here.
 */
export function rejectMalformed(
  logger: Logger,
  controller: string,
  onRejected: () => void = () => undefined,
): MiddlewareObj<unknown, HandlerResult> {
  return {
    name: 'rejectMalformed',
    before: async (request) => {
      try {
        const event = parseRuntimeEvent(request.event);
        if (event['detail-type'] !== 'Object Changed' && event.detail.controller !== controller) {
          const what =
            event['detail-type'] === 'Tick' ? 'tick' : event['detail-type'] === 'Pass Due' ? 'pass due' : 'passes';
          throw new MalformedEventError(
            `rejected ${what} for controller ${event.detail.controller}, this is ${controller}`,
            {
              fieldPath: 'detail.controller',
              reason: 'MalformedEvent',
            },
          );
        }
        request.event = event;
        return undefined;
      } catch (err) {
        if (!(err instanceof MalformedEventError)) throw err;
        // NOTE: answering (not throwing) is what stops Lambda's async retries; the log line keeps the reason.
        logger.error('rejected malformed event', { reason: err.message });
        onRejected();
        await cleanupMiddlewares(request);
        const rejected: HandlerResult = { status: 'Rejected', reason: err.message };
        return rejected;
      }
    },
  };
}

function isPrimary(reconciler: Reconciler, change: ObjectChange): boolean {
  return reconciler.kinds.some((k) => k.apiVersion === change.apiVersion && k.kind === change.kind);
}

/**
 * A change of the pass's own object that carries a metadata hash (a Cluster's: its managed-fields mark) is also judged
 * as a change of an object the pass owns, against what the last pass recorded of it (`ownedGenerations`,
 * `ownedMetadata`; the topology pass records its Cluster): a write that dropped the pass's managed fields, which the
 * facts do not show, makes the pass due; the pass's own write, recorded, does not.
 */
function ownChangeOf(change: ChangedObject): Pick<MappedKey, 'ownedChange'> {
  if (change.generation === undefined || change.metadataHash === undefined) return {};
  const object = `${change.kind} ${change.namespace}/${change.name}`;
  return { ownedChange: { object, generation: change.generation, metadata: change.metadataHash } };
}

/** An event invocation whose passes ended before recording anything; thrown so that Lambda retries the event. */
export class UnrecordedPassesError extends CapiError {
  readonly passes: readonly PassReport[];
  constructor(passes: readonly PassReport[]) {
    super(
      `${passes.length} pass(es) ended before recording a checkpoint, the event is retried: ` +
        passes.map((p) => `${describeKey(p.key)}: ${p.reason}`).join('; '),
      { reason: 'PassNotRecorded' },
    );
    this.passes = passes;
  }
}

/**
 * Middleware: an event invocation with a pass that ended before recording anything fails, so Lambda retries the
 * event (asynchronous invocations are retried twice, then go to the dead-letter queue); no tick would find those
 * passes again, since nothing reached the due index. Ticks never fail this way: their due entries stay due.
 */
function failOnUnrecordedPasses(): MiddlewareObj<unknown, HandlerResult> {
  return {
    name: 'failOnUnrecordedPasses',
    after: (request) => {
      const result = request.response;
      if (result?.status !== 'Handled' || result.tick !== undefined) return;
      const unrecorded = result.passes.filter((p) => p.unrecorded === true);
      if (unrecorded.length > 0) throw new UnrecordedPassesError(unrecorded);
    },
  };
}

/**
 * One pass for a mapped key. A pass that finds the lease held asks its holder to run again (see `runPass`), so
 * nothing here waits.
 */
async function runMappedPass(
  runPass: ReturnType<typeof createPassRunner>,
  key: MappedKey,
  trigger: string,
  context: LambdaContextLike,
): Promise<PassReport> {
  const request = {
    key: { apiVersion: key.apiVersion, kind: key.kind, namespace: key.namespace, name: key.name },
    ...(key.force ? { force: true } : {}),
    ...(key.wake ? { wake: true } : {}),
    ...(key.ownedChange ? { ownedChanges: [key.ownedChange] } : {}),
    trigger,
  };
  return runPass(request, context);
}

/**
 * Builds the handler of one controller; `functions/<controller>.ts` exports it.
 *
 * @example
 * export const handler = createControllerHandler({ reconciler: topologyReconciler, logger, getDeps });
 */
export function createControllerHandler(options: ControllerHandlerOptions): ControllerHandler {
  const { reconciler, logger } = options;
  const dispatch = async (raw: unknown, context: LambdaContextLike, deps: RuntimeDeps): Promise<HandlerResult> => {
    const event = raw as RuntimeEvent;
    const runPass = createPassRunner(reconciler, deps);
    if (event['detail-type'] === 'Tick') {
      const { passes, ...tick } = await runTick(reconciler, deps, runPass, context, `tick ${event.id}`);
      await options.onTick?.(deps, options.metrics);
      return { status: 'Handled', eventId: event.id, passes, tick };
    }
    if (event['detail-type'] === 'Pass Due') {
      const report = await runMappedPass(runPass, event.detail.key, `schedule ${event.id}`, context);
      return { status: 'Handled', eventId: event.id, passes: [report] };
    }
    if (event['detail-type'] === 'Passes Requested') {
      const { keys, trigger, mapping } = event.detail;
      const fanOutTrigger = `${trigger} (fan-out ${event.id})`;
      if (mapping === undefined) {
        const passes = await mapLimit(keys, deps.config.tickConcurrency, (key) =>
          runMappedPass(runPass, key, fanOutTrigger, context),
        );
        return { status: 'Handled', eventId: event.id, passes };
      }
      // NOTE: the rest of a mapping another invocation started: listed from where it stopped, fanned out the same way.
      return runMapping(deps, runPass, context, {
        eventId: event.id,
        trigger,
        change: mapping.change,
        from: mapping.continue,
        keys,
      });
    }
    const change = event.detail;
    const trigger = `event ${event.id}`;
    if (isPrimary(reconciler, change)) {
      const key = {
        apiVersion: change.apiVersion,
        kind: change.kind,
        namespace: change.namespace,
        name: change.name,
        ...ownChangeOf(change),
      };
      return { status: 'Handled', eventId: event.id, passes: [await runMappedPass(runPass, key, trigger, context)] };
    }
    return runMapping(deps, runPass, context, { eventId: event.id, trigger, change, keys: [] });
  };

  /**
   * Maps a change (from its start, or from where another invocation stopped) into the fan-out, then runs this
   * invocation's batch. A batch the bus refused is run here: fanning out never loses a pass.
   */
  const runMapping = async (
    deps: RuntimeDeps,
    runPass: ReturnType<typeof createPassRunner>,
    context: LambdaContextLike,
    m: {
      eventId: string;
      trigger: string;
      change: ChangedObject;
      from?: string;
      keys: readonly MappedKey[];
    },
  ): Promise<HandlerResult> => {
    const stream = createFanOutStream(reconciler.controller, m.trigger, deps.config.fanOut.batch, options.fanOut);
    await stream.add(m.keys);
    const sink = options.fanOut;
    const { continued } = await mapChangeToFanOut({
      reconciler,
      deps,
      change: m.change,
      from: m.from,
      stream,
      handOff: sink
        ? async (rest) =>
            (await sink([{ controller: reconciler.controller, trigger: m.trigger, keys: [], mapping: rest }]))
              .length === 0
        : undefined,
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
    const { runHere, handedOff } = await stream.finish();
    if (runHere.length === 0 && handedOff === 0 && !continued)
      logger.debug('change maps to no object of this controller', { change: m.change });
    const trigger = m.from === undefined ? m.trigger : `${m.trigger} (fan-out ${m.eventId})`;
    const passes = await mapLimit(runHere, deps.config.tickConcurrency, (key) =>
      runMappedPass(runPass, key, trigger, context),
    );
    if (handedOff > 0 || continued)
      logger.info('fanned out mapped passes', {
        change: m.change,
        passes: runHere.length + handedOff,
        handedOff,
        continued,
      });
    return {
      status: 'Handled',
      eventId: m.eventId,
      passes,
      ...(handedOff > 0 ? { handedOff } : {}),
      ...(continued ? { mappingContinued: true } : {}),
    };
  };
  /**
   * Dispatches, then gives every pass that asked to run again at a time its one-time schedule, and deletes the
   * schedule of every pass that no longer asks (see {@link computeWakeUpDeletes}).
   */
  const dispatchAndScheduleWakeUps = async (raw: unknown, context: LambdaContextLike): Promise<HandlerResult> => {
    // NOTE: reads shared by this invocation's passes only: the next invocation reads again.
    const deps: RuntimeDeps = { ...(await options.getDeps(context)), invocationReads: new Map() };
    const result = await dispatch(raw, context, deps);
    if (result.status !== 'Handled') return result;
    const outOfTime = () => context.getRemainingTimeInMillis() < wakeUpReserveMs;
    const wakeUps = await scheduleWakeUps(result, raw, context, outOfTime);
    const deletes = options.wakeUpDeletes === undefined ? [] : computeWakeUpDeletes(result.passes, deps.now());
    if (options.wakeUpDeletes === undefined || deletes.length === 0)
      return wakeUps === undefined ? result : { ...result, wakeUps };
    // NOTE: a schedule left when the invocation runs out of time fires into a pass that is skipped (nothing due).
    const wakeUpsDeleted = await options.wakeUpDeletes(reconciler.controller, deletes, outOfTime);
    logger.info('deleted the schedules of passes that no longer ask to run again', { ...wakeUpsDeleted });
    return { ...result, ...(wakeUps === undefined ? {} : { wakeUps }), wakeUpsDeleted };
  };
  /** The one-time schedules of the passes that asked to run again; undefined when none was sent. */
  const scheduleWakeUps = async (
    result: Extract<HandlerResult, { status: 'Handled' }>,
    raw: unknown,
    context: LambdaContextLike,
    outOfTime: () => boolean,
  ): Promise<WakeUpReport | undefined> => {
    const sink = options.wakeUps;
    if (sink === undefined) return undefined;
    const requests = computeWakeUpRequests(result.passes, (raw as RuntimeEvent)['detail-type'] === 'Pass Due');
    if (requests.length === 0) return undefined;
    // NOTE: outside Lambda there is no function ARN to invoke; the sweep finds the passes in the due index.
    if (context.invokedFunctionArn === undefined) return undefined;
    // NOTE: a schedule left unsent when the invocation runs out of time is the sweep's to run (it is in the due index).
    const wakeUps = await sink(reconciler.controller, context.invokedFunctionArn, requests, outOfTime);
    logger.info('scheduled passes that asked to run again', { ...wakeUps });
    return wakeUps;
  };

  // NOTE: registered first so its `after` runs last, once the pass metrics are published.
  const handler = middy<unknown, HandlerResult>(dispatchAndScheduleWakeUps as never, { timeoutEarlyInMillis: 0 })
    .use(failOnUnrecordedPasses())
    .use(injectLambdaContext(logger, { resetKeys: true }));
  if (options.tracer) handler.use(captureLambdaHandler(options.tracer, { captureResponse: false }));
  const { metrics } = options;
  if (metrics) handler.use(recordPassMetrics(metrics));
  handler.use(
    rejectMalformed(logger, reconciler.controller, () => {
      if (!metrics) return;
      addMetricWhenNonZero(metrics, passMetricNames.rejected, 1);
      publishMetricsWhenAny(metrics);
    }),
  );
  return (event, context) => handler(event, context as never);
}

/**
 * Stop sending one-time schedules and their deletes with less than this left of the invocation (a call takes at most
 * 3 s).
 */
const wakeUpReserveMs = 5_000;

/**
 * The wake-ups an invocation's passes ask for: every recorded pass with a next attempt (Requeue, Error), and, in an
 * invocation a one-time schedule started, a pass it found still backing off (an earlier schedule won, or the pass
 * was requeued again meanwhile): its schedule moves to the checkpoint's own due time.
 *
 * @example
 * computeWakeUpRequests([{ key, status: 'Ran', result: 'Requeue', nextAttemptAt: 1_800_000, ... }], false);
 * // [{ key, dueAtMs: 1_800_000 }]
 */
export function computeWakeUpRequests(passes: readonly PassReport[], fromSchedule: boolean): WakeUpRequest[] {
  return passes.flatMap((p) => {
    if (p.nextAttemptAt === undefined || p.unrecorded === true) return [];
    const ran = p.status === 'Ran' && p.result !== 'Success';
    const stillBackingOff = fromSchedule && p.status === 'Skipped' && p.reason === 'BackingOff';
    return ran || stillBackingOff ? [{ key: p.key, dueAtMs: p.nextAttemptAt }] : [];
  });
}
