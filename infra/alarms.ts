// The stack's one alarm and where it notifies. Everything that is wrong becomes one custom metric, `Unhealthy` (no
// dimension, published only when something is wrong, so a healthy month sends it in no hour and costs nothing): a pass
// that ended in Error, a controller invocation that failed, a forwarder heartbeat that went stale (shared/health/).
// One standard alarm watches it. Failed asynchronous invocations (after Lambda's retries) also reach the same SNS topic
// as an on-failure destination of each controller function, beside its dead-letter queue (kept for redrive): SNS
// publishes are free at these rates, an alarm per queue is not.
import { CfnOutput, Duration, type Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
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
 * The one alarm (construct id `HealthAlarm`): `Unhealthy` summed over 5 minutes is at least 1. Missing data is
 * healthy: the metric is sent only when something is wrong. Notifies the topic when it fires and when it clears.
 *
 * @example
 * const alarm = createHealthAlarm(stack, topic);
 */
export function createHealthAlarm(stack: Stack, topic: sns.ITopic): cloudwatch.Alarm {
  const alarm = new cloudwatch.Metric({
    namespace: metricsNamespace,
    metricName: healthMetricName,
    statistic: cloudwatch.Stats.SUM,
    period: Duration.minutes(5),
  }).createAlarm(stack, 'HealthAlarm', {
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription:
      'capi-serverless is unhealthy: a pass ended in Error, a controller invocation failed, or the forwarder ' +
      "heartbeat is stale (the functions' logs name which)",
  });
  const notify = new cloudwatchActions.SnsAction(topic);
  alarm.addAlarmAction(notify);
  alarm.addOkAction(notify);
  return alarm;
}
