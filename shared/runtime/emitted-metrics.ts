// The custom CloudWatch metrics the functions publish (EMF log lines): name, unit, dimensions and what each counts,
// declared once. The emitter (middlewares/record-metrics.ts) and the cost model (shared/pricing) both import this, so a
// metric cannot be published without a price.
//
// NOTE: CloudWatch bills every unique namespace + name + dimension set as one custom metric ($0.30 a metric-month),
// prorated by the hour and metered only in the hours it is sent (AWS CloudWatch User Guide, "Analyzing, optimizing,
// and reducing CloudWatch costs"; EMF: "charges are incurred for logs ingestion and archival, and custom metrics that
// are generated"). So a metric is published only when its value is not zero, and without a per-function dimension:
// a quiet hour costs nothing and each name is one metric whichever function sends it. Routine counts (passes run,
// skipped, requeued, objects changed) are in the pass and tick log lines instead, free to query with Logs Insights.

/** The namespace of every metric the functions publish. */
export const metricsNamespace = 'CapiServerless';

/** The dimension keys of every published metric: none (one billed metric per name). */
export const metricDimensions: readonly string[] = [];

/** What makes a metric non-zero, for the cost model: it prices one metric-hour per occurrence at most. */
export type MetricOccurrence = 'pass error' | 'rejected event' | 'health finding';

export type EmittedMetric = {
  readonly unit: 'Count';
  /** What one unit counts. */
  readonly counts: string;
  /** The event that makes it non-zero (a dependency timeout ends its pass in an error, so it is a pass error too). */
  readonly occursOn: MetricOccurrence;
};

/** Every metric the functions may publish, by name; published only in invocations where it is not zero. */
export const emittedMetrics = {
  Unhealthy: {
    unit: 'Count',
    counts:
      'things wrong: passes that ended in Error, controller invocations that failed, a stale forwarder heartbeat, webhooks the forwarder’s probe could not reach (the one alarmed metric)',
    occursOn: 'health finding',
  },
  PassErrors: { unit: 'Count', counts: 'passes that ended in an error', occursOn: 'pass error' },
  EventsRejected: {
    unit: 'Count',
    counts: 'malformed events answered Rejected (never retried)',
    occursOn: 'rejected event',
  },
  DynamoDBTimeouts: { unit: 'Count', counts: 'passes ended by DynamoDB not answering in time', occursOn: 'pass error' },
  KubernetesTimeouts: {
    unit: 'Count',
    counts: 'passes ended by the API server not answering in time',
    occursOn: 'pass error',
  },
  EventBridgeTimeouts: {
    unit: 'Count',
    counts: 'passes ended by EventBridge not answering in time',
    occursOn: 'pass error',
  },
} as const satisfies Record<string, EmittedMetric>;

export type EmittedMetricName = keyof typeof emittedMetrics;

/** The metric the stack's one alarm watches (infra/alarms.ts). */
export const healthMetricName = 'Unhealthy' satisfies EmittedMetricName;
