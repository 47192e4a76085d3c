// The health check a scheduled invocation calls (the hourly sweep, or any schedule): read the heartbeat Lease, compute
// the findings (a stale heartbeat, webhooks the forwarder's probe could not reach), count them as `Unhealthy`.
// Nothing is published while everything is well.
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { findObject, type KubeClient } from '#shared/kube/index.ts';
import {
  computeForwarderHealth,
  computeWebhookReachability,
  type HealthFinding,
  type HeartbeatLease,
} from '#shared/health/compute-forwarder-health.ts';
import { forwarderHeartbeatLease } from '#shared/health/forwarder-heartbeat.ts';
import { addMetricWhenNonZero } from '#shared/runtime/middlewares/record-metrics.ts';
import { healthMetricName } from '#shared/runtime/emitted-metrics.ts';

export type HealthCheckDeps = {
  readonly kube: KubeClient;
  readonly now: () => number;
  /** The forwarder's namespace (default capi-serverless-system). */
  readonly forwarderNamespace?: string;
};

/**
 * Reads the forwarder's heartbeat Lease (and the webhook probe result on it) and returns what is wrong (empty when
 * healthy).
 *
 * @example
 * const findings = await checkHealth({ kube, now: Date.now });
 * recordHealthFindings(metrics, findings);
 */
export async function checkHealth(deps: HealthCheckDeps): Promise<HealthFinding[]> {
  const lease = await findObject(deps.kube, {
    apiVersion: forwarderHeartbeatLease.apiVersion,
    kind: forwarderHeartbeatLease.kind,
    namespace: deps.forwarderNamespace ?? forwarderHeartbeatLease.namespace,
    name: forwarderHeartbeatLease.name,
  });
  const heartbeat = lease as HeartbeatLease | undefined;
  return [...computeForwarderHealth(heartbeat, deps.now()), ...computeWebhookReachability(heartbeat, deps.now())];
}

/**
 * Counts the findings toward `Unhealthy` (published with the invocation's other metrics, and only when non-zero).
 *
 * @example
 * recordHealthFindings(metrics, await checkHealth({ kube, now: Date.now }));
 */
export function recordHealthFindings(metrics: Metrics, findings: readonly HealthFinding[]): void {
  addMetricWhenNonZero(metrics, healthMetricName, findings.length);
}
