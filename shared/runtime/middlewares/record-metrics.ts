// Middleware: the invocation's exceptional outcomes (failed passes, dependency timeouts) as CloudWatch metrics through
// Powertools Metrics (EMF log lines, no API calls), declared in shared/runtime/emitted-metrics.ts. Only non-zero
// values are published and an invocation with none writes no metrics line at all: a tick that did nothing costs no
// metric-hour (see the NOTE there).
import type { MiddlewareObj } from '@middy/core';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import type { Dependency } from '#shared/deadline/index.ts';
import { emittedMetrics, metricsNamespace, type EmittedMetricName } from '#shared/runtime/emitted-metrics.ts';
import type { HandlerResult } from '#shared/runtime/handler-result.ts';

export { metricsNamespace } from '#shared/runtime/emitted-metrics.ts';

export const passMetricNames = {
  failed: 'PassErrors',
  rejected: 'EventsRejected',
  unhealthy: 'Unhealthy',
} as const satisfies Record<string, EmittedMetricName>;

/** Passes ended by a dependency that did not answer in time, one metric per dependency. */
export const timeoutMetricNames = {
  DynamoDB: 'DynamoDBTimeouts',
  Kubernetes: 'KubernetesTimeouts',
  EventBridge: 'EventBridgeTimeouts',
} as const satisfies Record<Dependency, EmittedMetricName>;

/**
 * A Powertools Metrics instance without the `service` default dimension Powertools adds (from POWERTOOLS_SERVICE_NAME):
 * one billed metric per name, whichever function publishes it.
 *
 * @example
 * const metrics = createMetrics(); // module scope, once per cold start
 */
export function createMetrics(): Metrics {
  const metrics = new Metrics({ namespace: metricsNamespace });
  metrics.clearDefaultDimensions();
  return metrics;
}

/**
 * Adds a declared metric's value when it is not zero.
 *
 * @example
 * addMetricWhenNonZero(metrics, 'PassErrors', 0); // adds nothing
 */
export function addMetricWhenNonZero(metrics: Metrics, name: EmittedMetricName, value: number): void {
  if (value !== 0) metrics.addMetric(name, MetricUnit[emittedMetrics[name].unit], value);
}

/**
 * Writes the stored metrics as one EMF line with no dimension, and nothing (not even Powertools' "no metrics" warning)
 * when none were added.
 *
 * @example
 * publishMetricsWhenAny(metrics);
 */
export function publishMetricsWhenAny(metrics: Metrics): void {
  if (!metrics.hasStoredMetrics()) return;
  // NOTE: an empty dimension set is EMF's `Dimensions: [[]]`, a metric with no dimension.
  metrics.addDimensions({});
  metrics.publishStoredMetrics();
}

/**
 * Adds the invocation's failed passes and dependency timeouts to `metrics` when there are any, and publishes them at
 * the end of the invocation; a failed pass, and an invocation that fails, also count as `Unhealthy` (the alarmed
 * metric).
 *
 * @example
 * middy(dispatch).use(recordPassMetrics(metrics));
 */
export function recordPassMetrics(metrics: Metrics): MiddlewareObj<unknown, HandlerResult> {
  return {
    name: 'recordPassMetrics',
    after: (request) => {
      const result = request.response;
      // NOTE: a rejected event ends before the `after` steps; rejectMalformed counts it.
      if (result && result.status !== 'Rejected') {
        const ran = result.passes.filter((p) => p.status === 'Ran');
        const failed = ran.filter((p) => p.result === 'Error').length;
        addMetricWhenNonZero(metrics, passMetricNames.failed, failed);
        addMetricWhenNonZero(metrics, passMetricNames.unhealthy, failed);
        for (const [dependency, name] of Object.entries(timeoutMetricNames))
          addMetricWhenNonZero(metrics, name, ran.filter((p) => p.timedOut === dependency).length);
      }
      publishMetricsWhenAny(metrics);
    },
    onError: () => {
      addMetricWhenNonZero(metrics, passMetricNames.unhealthy, 1);
      publishMetricsWhenAny(metrics);
    },
  };
}
