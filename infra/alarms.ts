// The stack's one alarm and where it notifies. Everything that is wrong becomes one custom metric, `Unhealthy` (no
// dimension, published only when something is wrong, so a healthy month sends it in no hour and costs nothing): a pass
// that ended in Error, a controller invocation that failed, a forwarder heartbeat that went stale (shared/health/).
// One standard alarm watches it, together with the webhooks function's Lambda `Throttles` (a throttled admission is a
// refused write that the function never saw, so it cannot count it itself). Failed asynchronous invocations (after Lambda's retries) also reach the same SNS topic
// as an on-failure destination of each controller function, beside its dead-letter queue (kept for redrive): SNS
// publishes are free at these rates, an alarm per queue is not.
import { CfnOutput, Duration, type Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { healthMetricName, metricsNamespace } from '#shared/runtime/emitted-metrics.ts';

/**
 * The alarm topic: the given one, or one created with construct id `AlarmTopic`; its ARN is output.
 *
 * @example
 * const topic = createAlarmTopic(stack, props.alarmTopicArn);
 */
export function createAlarmTopic(stack: Stack, alarmTopicArn: string | undefined): sns.ITopic {
  const topic = alarmTopicArn
    ? sns.Topic.fromTopicArn(stack, 'AlarmTopic', alarmTopicArn)
    : new sns.Topic(stack, 'AlarmTopic', { displayName: 'capi-serverless alarms', enforceSSL: true });
  new CfnOutput(stack, 'AlarmTopicArn', {
    description: 'subscribe to be told when the health alarm fires (or clears) and when an event failed every retry',
    value: topic.topicArn,
  });
  return topic;
}

/**
 * The one alarm (construct id `HealthAlarm`): `Unhealthy` summed over 5 minutes, plus the `Throttles` of the
 * `webhooks` function when given (with `failurePolicy: Fail` each is a refused write), is at least 1. Missing data is
 * healthy: the metrics are sent only when something is wrong. Notifies the topic when it fires and when it clears.
 *
 * @example
 * const alarm = createHealthAlarm(stack, topic, webhooks.function);
 */
export function createHealthAlarm(stack: Stack, topic: sns.ITopic, webhooks?: lambda.IFunction): cloudwatch.Alarm {
  const period = Duration.minutes(5);
  const unhealthy = new cloudwatch.Metric({
    namespace: metricsNamespace,
    metricName: healthMetricName,
    statistic: cloudwatch.Stats.SUM,
    period,
  });
  // NOTE: one alarm still (metric math over two metrics bills as two alarm metrics); FILL makes a period with only
  // one of them count.
  const watched =
    webhooks === undefined
      ? unhealthy
      : new cloudwatch.MathExpression({
          expression: 'FILL(unhealthy, 0) + FILL(throttled, 0)',
          // NOTE: the FunctionName dimension sums every version and alias (the URL targets the alias `live` when
          // provisioned concurrency is set).
          usingMetrics: { unhealthy, throttled: webhooks.metricThrottles({ statistic: cloudwatch.Stats.SUM, period }) },
          period,
          label: 'Unhealthy + webhooks Throttles',
        });
  const alarm = watched.createAlarm(stack, 'HealthAlarm', {
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription:
      'capi-serverless is unhealthy: a pass ended in Error, a controller invocation failed, the forwarder ' +
      "heartbeat is stale (the functions' logs name which), or Lambda throttled webhook calls (refused writes: " +
      "the webhooks function's Throttles metric)",
  });
  const notify = new cloudwatchActions.SnsAction(topic);
  alarm.addAlarmAction(notify);
  alarm.addOkAction(notify);
  return alarm;
}
