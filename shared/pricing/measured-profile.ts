// The side-by-side bench's measured per-Cluster and per-change usage the cost model scales (regenerate with
// `node --import tsx test/bench/side/print-profile.ts` after `npm run bench:side`).
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';

export const measuredProfile: MeasuredProfile = {
  basis:
    'test/bench/results/side-by-side-100-epyc.json, 100 Clusters per side, 2026-11-27, 2 × AMD EPYC, 24 GiB RAM, linux/x64, Node v22.23.3',
  idleInvocationsPerClusterHour: 0,
  invocationsPerChange: 1.0146,
  eventsPerChange: 0.9563,
  idleEventsPerClusterHour: 0,
  passesRunPerChange: 0.6019,
  passesSkippedPerChange: 0.7816,
  invocationMs: 678.3178,
  tickMs: 26.2665,
  functionRequestsPerChange: 12.0146,
  forwarderRssMiB: 94.4492,
  forwarderRssMiBPerObject: 0,
  forwarderCpuSecondsPerHour: 0.24,
  replacedRssMiB: 53.7821,
  replacedCpuSecondsPerHour: 5.8799,
  replacedCpuSecondsPerChange: 0.1517,
};
