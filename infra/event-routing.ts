// What invokes a controller's function: its rule for object changes on the bus, its rule for batches of passes it
// fanned out to itself, its sweep schedule (every delivery retried, then dead-lettered), and the one-time schedules
// its requeued passes create in the stack's schedule group.
import { ArnFormat, Duration, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Controller } from '#shared/checkpoint/table.ts';
import { detailTypes, eventSources } from '#shared/runtime/events.ts';
import { eventPatternOf, fanOutPatternOf, routes } from '#shared/runtime/routes.ts';

/** `topology` → `Topology`: the prefix of the controller's construct ids (its function's and its rules'). */
export const constructPrefixOf = (controller: Controller): string => controller[0]?.toUpperCase() + controller.slice(1);

export type EventRoutingOptions = {
  readonly bus: events.EventBus;
  readonly fn: lambda.IFunction;
  readonly dlq: sqs.IQueue;
  /** Minutes between sweeps (the tick schedule's rate). */
  readonly sweepMinutes: number;
  /** Add the fan-out rule (false in private subnets, where the functions do not put events). */
  readonly fanOut: boolean;
};

/**
 * Adds a controller's rules and sweep schedule to the stack (construct ids `<Name>Rule`, `<Name>FanOutRule`,
 * `<Name>Tick`, kept so a deployed stack replaces nothing).
 *
 * @example
 * addEventRouting(stack, 'topology', { bus, fn, dlq, sweepMinutes: 60, fanOut: true });
 */
export function addEventRouting(stack: Stack, controller: Controller, options: EventRoutingOptions): void {
  const name = constructPrefixOf(controller);
  const { bus, fn, dlq } = options;
  const target = () =>
    new eventTargets.LambdaFunction(fn, { deadLetterQueue: dlq, retryAttempts: 4, maxEventAge: Duration.hours(1) });
  const route = routes.find((r) => r.controller === controller);
  if (route)
    new events.Rule(stack, `${name}Rule`, {
      eventBus: bus,
      description: `object changes routed to ${controller}`,
      eventPattern: eventPatternOf(route),
    }).addTarget(target());
  // Batches of passes another invocation of this controller fanned out (fan-out.ts), retried as object changes.
  if (options.fanOut)
    new events.Rule(stack, `${name}FanOutRule`, {
      eventBus: bus,
      description: `batches of passes fanned out to ${controller}`,
      eventPattern: fanOutPatternOf(controller),
    }).addTarget(target());
  new scheduler.Schedule(stack, `${name}Tick`, {
    description: `${controller} sweep: list, compare with checkpoints, reconcile what is due or was missed`,
    schedule: scheduler.ScheduleExpression.rate(Duration.minutes(options.sweepMinutes)),
    target: new schedulerTargets.LambdaInvoke(fn, {
      input: scheduler.ScheduleTargetInput.fromObject({
        version: '0',
        id: scheduler.ContextAttribute.executionId,
        'detail-type': detailTypes.tick,
        source: eventSources.scheduler,
        time: scheduler.ContextAttribute.scheduledTime,
        resources: [],
        detail: { controller },
      }),
      deadLetterQueue: dlq,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(5),
    }),
  });
}

/** The schedule group and role of the one-time schedules requeued passes create (see scheduler-wake-ups.ts). */
export type WakeUpSchedules = {
  readonly group: scheduler.ScheduleGroup;
  /** Assumed by EventBridge Scheduler to invoke the functions; passed by the functions when they create schedules. */
  readonly role: iam.Role;
  /** Lets the role invoke this function (and its versions). */
  allowInvoking(fn: lambda.IFunction): void;
  /**
   * Lets this function create, update and delete schedules in the group (a pass that no longer asks to run again
   * deletes its schedule), and pass the role to EventBridge Scheduler.
   */
  grantScheduling(fn: lambda.IFunction): void;
  /** The function's environment: SCHEDULE_GROUP_NAME, SCHEDULER_ROLE_ARN. */
  readonly environment: Readonly<Record<string, string>>;
};

/**
 * Adds the group (`WakeUpSchedules`, its name generated from the stack's, so a second install has its own) and the role
 * (`WakeUpSchedulerRole`) of one-time schedules.
 *
 * @example
 * const wakeUps = createWakeUpSchedules(stack);
 * wakeUps.allowInvoking(fn);
 * wakeUps.grantScheduling(fn);
 */
export function createWakeUpSchedules(stack: Stack): WakeUpSchedules {
  const group = new scheduler.ScheduleGroup(stack, 'WakeUpSchedules', {});
  const role = new iam.Role(stack, 'WakeUpSchedulerRole', {
    description: 'EventBridge Scheduler invokes the controller functions with it at the due times of requeued passes',
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    }),
  });
  // NOTE: `schedule/<group>/*`: the schedules of this stack's group only, not every schedule in the account.
  const schedulesArn = stack.formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${group.scheduleGroupName}/*`,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  return {
    group,
    role,
    allowInvoking: (fn) =>
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [fn.functionArn, `${fn.functionArn}:*`],
        }),
      ),
    grantScheduling: (fn) => {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [
            'scheduler:CreateSchedule',
            'scheduler:UpdateSchedule',
            'scheduler:GetSchedule',
            'scheduler:DeleteSchedule',
          ],
          resources: [schedulesArn],
        }),
      );
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [role.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      );
    },
    environment: { SCHEDULE_GROUP_NAME: group.scheduleGroupName, SCHEDULER_ROLE_ARN: role.roleArn },
  };
}
