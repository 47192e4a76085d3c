// Whether the forwarder's heartbeat is fresh: pure, the Lease (or its absence) and the time are arguments.

/** What the health check found wrong, one line each (logged; each counts 1 toward `Unhealthy`). */
export type HealthFinding = { readonly check: 'forwarderHeartbeat'; readonly message: string };

/** The fields of the heartbeat Lease the check reads. */
export type HeartbeatLease = {
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
