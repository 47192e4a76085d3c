// Whether the forwarder's heartbeat is fresh, and whether its last probe reached the webhooks: pure, the Lease (or
// its absence) and the time are arguments.
import { parseWebhookProbeResult, webhookProbeAnnotation } from '#shared/health/webhook-probe.ts';

/** What the health check found wrong, one line each (logged; each counts 1 toward `Unhealthy`). */
export type HealthFinding = {
  readonly check: 'forwarderHeartbeat' | 'webhookReachability';
  readonly message: string;
};

/** The fields of the heartbeat Lease the check reads. */
export type HeartbeatLease = {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly holderIdentity?: string;
    readonly renewTime?: string;
    readonly leaseDurationSeconds?: number;
  };
};

/**
 * The findings about the forwarder's heartbeat: none while the Lease was renewed within its duration.
 *
 * @example
 * computeForwarderHealth(undefined, Date.parse('2026-11-27T12:00:00Z')); // [{ check: 'forwarderHeartbeat', message: 'no forwarder heartbeat: ...' }]
 */
export function computeForwarderHealth(lease: HeartbeatLease | undefined, now: number): HealthFinding[] {
  if (lease === undefined)
    return [
      {
        check: 'forwarderHeartbeat',
        message: 'no forwarder heartbeat: the Lease does not exist (forwarder not installed or never started)',
      },
    ];
  const renewed = Date.parse(lease.spec?.renewTime ?? '');
  const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
  if (Number.isNaN(renewed) || durationMs <= 0)
    return [{ check: 'forwarderHeartbeat', message: 'forwarder heartbeat Lease has no renewTime or duration' }];
  const ageMs = now - renewed;
  if (ageMs <= durationMs) return [];
  return [
    {
      check: 'forwarderHeartbeat',
      message: `forwarder heartbeat stale: last renewed ${Math.round(ageMs / 1000)} s ago by ${lease.spec?.holderIdentity ?? 'unknown'} (expected within ${durationMs / 1000} s)`,
    },
  ];
}

/**
 * The findings about the webhooks' reachability: one per URL the forwarder's last probe failed to reach (DNS, egress,
 * a deleted URL, a refused token, a 5xx, no answer within the webhooks' timeout). Only a fresh heartbeat's probe
 * counts: a stale one is already a finding of {@link computeForwarderHealth}, and a Lease without the annotation (a
 * forwarder from before the probe) says nothing.
 *
 * @example
 * computeWebhookReachability(lease, Date.now());
 * // [{ check: 'webhookReachability', message: 'webhooks unreachable from the cluster: https://x.on.aws/…/healthz: ...' }]
 */
export function computeWebhookReachability(lease: HeartbeatLease | undefined, now: number): HealthFinding[] {
  if (lease === undefined || computeForwarderHealth(lease, now).length > 0) return [];
  const probe = parseWebhookProbeResult(lease.metadata?.annotations?.[webhookProbeAnnotation]);
  if (probe === undefined) return [];
  const holder = lease.spec?.holderIdentity ?? 'unknown';
  return probe.targets
    .filter((t) => t.error !== undefined)
    .map((t) => ({
      check: 'webhookReachability' as const,
      message: `webhooks unreachable from the cluster: ${t.url}: ${t.error} (probed at ${probe.checkedAt} by ${holder}; with failurePolicy Fail every Cluster and ClusterClass write they admit is refused)`,
    }));
}
