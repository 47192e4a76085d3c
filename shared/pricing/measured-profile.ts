// The side-by-side bench's measured per-Cluster and per-change usage the cost model scales (regenerate with
// `node --import tsx test/bench/side/print-profile.ts` after `npm run bench:side`).
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';

export const measuredProfile: MeasuredProfile = {
  basis:
    'test/bench/results/side-by-side.json, 10 Clusters per side, 2026-11-25, 2 \u00d7 AMD EPYC, 24 GiB RAM, linux/x64, Node v22.23.3',
  idleInvocationsPerClusterHour: 0,
  invocationsPerChange: 4.6923,
  eventsPerChange: 4.0769,
  idleEventsPerClusterHour: 0,
  passesRunPerChange: 1.1538,
  passesSkippedPerChange: 3.3462,
  invocationMs: 15061.0873,
  tickMs: 15061.0873,
  functionRequestsPerChange: 47.8846,
  forwarderRssMiB: 87.7625,
  forwarderRssMiBPerObject: 0,
  forwarderCpuSecondsPerHour: 0.42,
  replacedRssMiB: 11.2523,
  replacedCpuSecondsPerHour: 0,
  replacedCpuSecondsPerChange: 0.2677,
};
