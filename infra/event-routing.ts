// What invokes a controller's function: its rule for object changes on the bus, its rule for batches of passes it
// fanned out to itself, and its tick schedule; every delivery retried, then dead-lettered.
import { Duration, type Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Controller } from '#shared/checkpoint/table.ts';
import { detailTypes, eventSources } from '#shared/runtime/events.ts';
import { eventPatternOf, fanOutPatternOf, routes } from '#shared/runtime/routes.ts';
import { constructPrefixOf } from './controller-function.ts';

export type EventRoutingOptions = {
  readonly bus: events.EventBus;
  readonly fn: lambda.IFunction;
  readonly dlq: sqs.IQueue;
  readonly tickMinutes: number;
  /** Add the fan-out rule (false in private subnets, where the functions do not put events). */
  readonly fanOut: boolean;
};

/**
 * Adds a controller's rules and tick schedule to the stack (construct ids `<Name>Rule`, `<Name>FanOutRule`,
 * `<Name>Tick`).
 *
 * @example
 * addEventRouting(stack, 'topology', { bus, fn, dlq, tickMinutes: 5, fanOut: true });
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
    description: `${controller} tick: list, compare with checkpoints, reconcile what is due`,
    schedule: scheduler.ScheduleExpression.rate(Duration.minutes(options.tickMinutes)),
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
