// The stack's alarms and where they notify: a dead-letter queue that holds a message, a function invocation that
// failed (the webhooks function adds its own), each notifying one SNS topic when it fires and when it clears.
import { CfnOutput, Duration, type Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Controller } from '#shared/checkpoint/table.ts';
import { constructPrefixOf } from './controller-function.ts';

const atLeastOnce = {
  threshold: 1,
  evaluationPeriods: 1,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
} as const;

/**
 * A controller's alarms: its dead-letter queue holds a message, an invocation failed (construct ids
 * `<Name>DlqAlarm`, `<Name>ErrorsAlarm`).
 *
 * @example
 * const alarms = createControllerAlarms(stack, 'topology', { fn, dlq });
 */
export function createControllerAlarms(
  stack: Stack,
  controller: Controller,
  options: { readonly fn: lambda.IFunction; readonly dlq: sqs.Queue },
): cloudwatch.Alarm[] {
  const name = constructPrefixOf(controller);
  const period = Duration.minutes(5);
  return [
    options.dlq.metricApproximateNumberOfMessagesVisible({ period }).createAlarm(stack, `${name}DlqAlarm`, {
      ...atLeastOnce,
      alarmDescription: `events for ${name} that could not be delivered or processed`,
    }),
    options.fn.metricErrors({ period }).createAlarm(stack, `${name}ErrorsAlarm`, {
      ...atLeastOnce,
      alarmDescription: `${controller} invocations that failed (not recorded as a pass outcome)`,
    }),
  ];
}

/**
 * Points every alarm at the topic (the given one, or one created with construct id `AlarmTopic`) for both ALARM and
 * OK, and outputs the topic's ARN.
 *
 * @example
 * const topic = notifyAlarmTopic(stack, alarms, props.alarmTopicArn);
 */
export function notifyAlarmTopic(
  stack: Stack,
  alarms: readonly cloudwatch.Alarm[],
  alarmTopicArn: string | undefined,
): sns.ITopic {
  const topic = alarmTopicArn
    ? sns.Topic.fromTopicArn(stack, 'AlarmTopic', alarmTopicArn)
    : new sns.Topic(stack, 'AlarmTopic', { displayName: 'capi-serverless alarms', enforceSSL: true });
  const notify = new cloudwatchActions.SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(notify);
    alarm.addOkAction(notify);
  }
  new CfnOutput(stack, 'AlarmTopicArn', {
    description: 'subscribe to be told when an alarm fires (or clears)',
    value: topic.topicArn,
  });
  return topic;
}
