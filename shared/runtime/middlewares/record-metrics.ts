// Middleware: what an invocation did, as CloudWatch metrics through Powertools Metrics (EMF log lines, no API calls):
// passes that ran, were skipped, failed or asked for a requeue, objects changed, and rejected events. Published by
// Powertools' `logMetrics` middleware at the end of the invocation.
import type { MiddlewareObj } from '@middy/core';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Dependency } from '#shared/deadline/index.ts';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';

/** The namespace of every metric the functions publish (dimension `service`: `capi-serverless-<controller>`). */
export const metricsNamespace = 'CapiServerless';

export const passMetricNames = {
  run: 'PassesRun',
  skipped: 'PassesSkipped',
  failed: 'PassErrors',
  requeued: 'PassRequeues',
  changed: 'ObjectsChanged',
  rejected: 'EventsRejected',
} as const;

/** Passes ended by a dependency that did not answer in time, one metric per dependency. */
export const timeoutMetricNames = {
  DynamoDB: 'DynamoDBTimeouts',
  Kubernetes: 'KubernetesTimeouts',
  EventBridge: 'EventBridgeTimeouts',
} as const satisfies Record<Dependency, string>;

/**
 * Adds the invocation's pass counts to `metrics` (after the handler, before `logMetrics` flushes them).
 *
 * @example
 * middy(dispatch).use(logMetrics(metrics)).use(recordPassMetrics(metrics));
 */
export function recordPassMetrics(metrics: Metrics): MiddlewareObj<unknown, HandlerResult> {
  const add = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Count, value);
  return {
    name: 'recordPassMetrics',
    after: (request) => {
      const result = request.response;
      if (!result) return;
      // NOTE: a rejected event ends before the `after` steps; rejectMalformed counts it.
      if (result.status === 'Rejected') return;
      const ran = result.passes.filter((p) => p.status === 'Ran');
      add(passMetricNames.run, ran.length);
      add(passMetricNames.skipped, result.passes.filter((p) => p.status === 'Skipped').length);
      add(passMetricNames.failed, ran.filter((p) => p.result === 'Error').length);
      add(passMetricNames.requeued, ran.filter((p) => p.result === 'Requeue').length);
      add(
        passMetricNames.changed,
        ran.reduce((n, p) => n + (p.changed?.length ?? 0), 0),
      );
      for (const pass of ran) if (pass.timedOut !== undefined) add(timeoutMetricNames[pass.timedOut], 1);
    },
  };
}
