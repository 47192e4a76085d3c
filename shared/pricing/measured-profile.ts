// The side-by-side bench's measured per-Cluster and per-change usage the cost model scales (regenerate with
// `node --import tsx test/bench/side/print-profile.ts` after `npm run bench:side`).
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';

export const measuredProfile: MeasuredProfile = {
  basis: 'PLACEHOLDER',
  idleInvocationsPerClusterHour: 0,
  invocationsPerChange: 0,
  eventsPerChange: 0,
  idleEventsPerClusterHour: 0,
  passesRunPerChange: 0,
  passesSkippedPerChange: 0,
  invocationMs: 0,
  functionRequestsPerChange: 0,
  forwarderRssMiB: 0,
  forwarderRssMiBPerObject: 0,
  forwarderCpuSecondsPerHour: 0,
  replacedRssMiB: 0,
  replacedCpuSecondsPerHour: 0,
  replacedCpuSecondsPerChange: 0,
};
