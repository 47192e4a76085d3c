// The functions' wake-ups on AWS: a pass that asked to run again at a time (a requeue, a bake time, backoff after an
// error) gets an EventBridge Scheduler one-time schedule at that time, which invokes the function for that object.
// The checkpoint's due time stays the source of truth: a schedule that could not be created only costs latency,
// since the sweep finds the object in the due index. A schedule whose pass has since stopped asking (it succeeded
// first, e.g. an upgrade that converged through events before its safety-net requeue) is deleted, so it does not fire
// into a pass with nothing to do; one that could not be deleted only costs that pass.
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import type { Controller } from '#shared/checkpoint/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import {
  computeAtExpression,
  computeWakeUpAction,
  computeWakeUpScheduleName,
  parseAtExpression,
  wakeUpActions,
} from '#shared/runtime/compute-wake-up.ts';
import { detailTypes, eventSources, type PassDue } from '#shared/runtime/events.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import type { PassKey } from '#shared/runtime/types.ts';

/** One object's pass and the time it asked to run again (epoch ms). */
export type WakeUpRequest = { readonly key: PassKey; readonly dueAtMs: number };

/** What became of an invocation's requests (failed ones are logged; the sweep picks them up). */
export type WakeUpReport = {
  readonly created: number;
  readonly updated: number;
  readonly kept: number;
  readonly failed: number;
};

/**
 * Schedules wake-ups for one controller's function (`targetArn`: the function's ARN, from the invocation's context).
 * Never throws: a failure is counted and logged.
 */
export type WakeUpSink = (
  controller: Controller,
  targetArn: string,
  requests: readonly WakeUpRequest[],
  /** True when the invocation is running out of time: requests not yet sent are left to the sweep (failed). */
  shouldStop?: () => boolean,
) => Promise<WakeUpReport>;

export type SchedulerWakeUpsOptions = {
  readonly client: SchedulerClient;
  /** The schedule group the stack creates (SCHEDULE_GROUP_NAME). */
  readonly groupName: string;
  /** The role EventBridge Scheduler assumes to invoke the function (SCHEDULER_ROLE_ARN). */
  readonly roleArn: string;
  readonly logger: Logger;
  readonly now?: () => number;
  /** The longest one Scheduler call may take, the SDK's retries included (default 3 s). */
  readonly timeoutMs?: number;
};

/** Requests sent at once: a fleet-wide failure is thousands of requeues; the CreateSchedule quota is in the thousands a second. */
const scheduleConcurrency = 8;

/**
 * A {@link WakeUpSink} on EventBridge Scheduler: per object, `CreateSchedule` named by
 * {@link computeWakeUpScheduleName} (`at(...)`, UTC, no flexible window, `ActionAfterCompletion: DELETE`); when the
 * name exists, `GetSchedule` and `UpdateSchedule` unless the existing one fires earlier (and is still to come).
 *
 * @example
 * const wakeUps = createSchedulerWakeUps({ client: new SchedulerClient({}), groupName, roleArn, logger });
 * await wakeUps('topology', context.invokedFunctionArn, [{ key, dueAtMs: report.nextAttemptAt }]);
 */
export function createSchedulerWakeUps(options: SchedulerWakeUpsOptions): WakeUpSink {
  const now = options.now ?? Date.now;
  return async (controller, targetArn, requests, shouldStop = () => false) => {
    // NOTE: one request per object, the earliest (a pass that ran again in the same invocation asks again).
    const byName = new Map<string, WakeUpRequest>();
    for (const r of requests) {
      const name = computeWakeUpScheduleName(controller, r.key);
      const seen = byName.get(name);
      if (seen === undefined || r.dueAtMs < seen.dueAtMs) byName.set(name, r);
    }
    const outcomes = await mapLimit([...byName], scheduleConcurrency, async ([name, request]) => {
      if (shouldStop()) return 'failed' as const;
      try {
        return await scheduleWakeUp(options, { controller, targetArn, name, request, now: now() });
      } catch (err) {
        options.logger.warn('failed to schedule the pass; the sweep runs it when due', {
          controller,
          schedule: name,
          dueAt: new Date(request.dueAtMs).toISOString(),
          error: errorMessage(err),
        });
        return 'failed' as const;
      }
    });
    const count = (o: (typeof outcomes)[number]) => outcomes.filter((x) => x === o).length;
    return { created: count('created'), updated: count('updated'), kept: count('kept'), failed: count('failed') };
  };
}

/** What became of an invocation's deletes (failed ones are logged; the schedule fires into a pass that is skipped). */
export type WakeUpDeleteReport = {
  /** Schedules deleted before they fired. */
  readonly deleted: number;
  /** No schedule there: never created, already fired, or deleted by an earlier pass. */
  readonly absent: number;
  readonly failed: number;
};

/**
 * Deletes the one-time schedules of one controller's function for objects whose passes no longer ask to run again.
 * Never throws: a failure is counted and logged.
 */
export type WakeUpDeleteSink = (
  controller: Controller,
  keys: readonly PassKey[],
  /** True when the invocation is running out of time: deletes not yet sent are left (failed). */
  shouldStop?: () => boolean,
) => Promise<WakeUpDeleteReport>;

/**
 * A {@link WakeUpDeleteSink} on EventBridge Scheduler: `DeleteSchedule` of the name {@link computeWakeUpScheduleName}
 * gives the object; `ResourceNotFoundException` counts as absent, silently.
 *
 * @example
 * const deletes = createSchedulerWakeUpDeletes({ client: new SchedulerClient({}), groupName, logger });
 * await deletes('topology', [key]); // { deleted: 1, absent: 0, failed: 0 }
 */
export function createSchedulerWakeUpDeletes(
  options: Pick<SchedulerWakeUpsOptions, 'client' | 'groupName' | 'logger' | 'timeoutMs'>,
): WakeUpDeleteSink {
  return async (controller, keys, shouldStop = () => false) => {
    const names = [...new Set(keys.map((k) => computeWakeUpScheduleName(controller, k)))];
    const outcomes = await mapLimit(names, scheduleConcurrency, async (name) => {
      if (shouldStop()) return 'failed' as const;
      try {
        await options.client.send(new DeleteScheduleCommand({ Name: name, GroupName: options.groupName }), {
          abortSignal: AbortSignal.timeout(options.timeoutMs ?? 3_000),
        });
        return 'deleted' as const;
      } catch (err) {
        if (err instanceof ResourceNotFoundException) return 'absent' as const;
        options.logger.warn('failed to delete the schedule of a pass that no longer asks to run again', {
          controller,
          schedule: name,
          error: errorMessage(err),
        });
        return 'failed' as const;
      }
    });
    const count = (o: (typeof outcomes)[number]) => outcomes.filter((x) => x === o).length;
    return { deleted: count('deleted'), absent: count('absent'), failed: count('failed') };
  };
}

async function scheduleWakeUp(
  options: SchedulerWakeUpsOptions,
  s: { controller: Controller; targetArn: string; name: string; request: WakeUpRequest; now: number },
): Promise<'created' | 'updated' | 'kept'> {
  const { groupName, roleArn, client } = options;
  const detail: PassDue = { controller: s.controller, key: s.request.key, dueAt: s.request.dueAtMs };
  const schedule = {
    Name: s.name,
    GroupName: groupName,
    ScheduleExpression: computeAtExpression(s.request.dueAtMs),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    ActionAfterCompletion: 'DELETE' as const,
    Description:
      `${s.controller} pass of ${s.request.key.kind} ${s.request.key.namespace ? `${s.request.key.namespace}/` : ''}${s.request.key.name}`.slice(
        0,
        512,
      ),
    Target: {
      Arn: s.targetArn,
      RoleArn: roleArn,
      // NOTE: the same envelope as an EventBridge event, so the handler's one parser accepts it.
      Input: JSON.stringify({
        version: '0',
        id: `<aws.scheduler.execution-id>`,
        'detail-type': detailTypes.passDue,
        source: eventSources.scheduler,
        time: `<aws.scheduler.scheduled-time>`,
        resources: [],
        detail,
      }),
      // NOTE: a delivery that fails is retried for a few minutes; after that the sweep is the net.
      RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 600 },
    },
  };
  const call = () => ({ abortSignal: AbortSignal.timeout(options.timeoutMs ?? 3_000) });
  try {
    await client.send(new CreateScheduleCommand(schedule), call());
    return 'created';
  } catch (err) {
    if (!(err instanceof ConflictException)) throw err;
  }
  let existingAtMs: number | undefined;
  try {
    const existing = await client.send(new GetScheduleCommand({ Name: s.name, GroupName: groupName }), call());
    existingAtMs = parseAtExpression(existing.ScheduleExpression);
  } catch (err) {
    // NOTE: it fired and was deleted between the two calls: create it again.
    if (!(err instanceof ResourceNotFoundException)) throw err;
    await client.send(new CreateScheduleCommand(schedule), call());
    return 'created';
  }
  if (computeWakeUpAction({ existingAtMs, requestedAtMs: s.request.dueAtMs, now: s.now }) === wakeUpActions.keep)
    return 'kept';
  // NOTE: UpdateSchedule replaces every field, so the whole schedule is sent again.
  await client.send(new UpdateScheduleCommand(schedule), call());
  return 'updated';
}
