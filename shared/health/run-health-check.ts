// The health check the topology function runs at the end of each sweep tick: the forwarder's heartbeat and its last
// probe of the webhooks, counted as `Unhealthy` (the stack's one alarm) and logged. A check that cannot read the
// Lease is a finding too: the alarm is meant to fire when the management plane cannot see its forwarder, whatever
// the reason.
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { errorMessage } from '#shared/errors/index.ts';
import { checkHealth, recordHealthFindings } from '#shared/health/check-health.ts';
import type { HealthFinding } from '#shared/health/compute-forwarder-health.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';

/**
 * Checks and records; never throws (the tick's passes are already recorded).
 *
 * @example
 * createFunctionHandler(topologyReconciler, process.env, {}, { onTick: runHealthCheck }); // functions/topology.ts
 */
export async function runHealthCheck(deps: RuntimeDeps, metrics: Metrics | undefined): Promise<HealthFinding[]> {
  let findings: HealthFinding[];
  try {
    findings = await checkHealth({
      kube: deps.kube,
      now: deps.now,
      ...(process.env['FORWARDER_NAMESPACE'] ? { forwarderNamespace: process.env['FORWARDER_NAMESPACE'] } : {}),
    });
  } catch (err) {
    findings = [{ check: 'forwarderHeartbeat', message: `cannot read the heartbeat Lease: ${errorMessage(err)}` }];
  }
  if (metrics) recordHealthFindings(metrics, findings);
  if (findings.length > 0) deps.logger.error('unhealthy', { findings });
  return findings;
}
