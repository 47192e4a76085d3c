// The side-by-side bench's measured per-Cluster and per-change usage the cost model scales (regenerate with
// `node --import tsx test/bench/side/print-profile.ts` after `npm run bench:side`).
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';

export const measuredProfile: MeasuredProfile = {
  basis:
    'test/bench/results/side-by-side-100.json, 100 Clusters per side, 2026-11-26, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3',
  idleInvocationsPerClusterHour: 0,
  invocationsPerChange: 1.0097,
  eventsPerChange: 0.9515,
  idleEventsPerClusterHour: 0,
  passesRunPerChange: 0.6117,
  passesSkippedPerChange: 0.767,
  invocationMs: 1222.2696,
  tickMs: 17.9466,
  functionRequestsPerChange: 16.7723,
  forwarderRssMiB: 93.8672,
  forwarderRssMiBPerObject: 0,
  forwarderCpuSecondsPerHour: 0.84,
  replacedRssMiB: 59.9713,
  replacedCpuSecondsPerHour: 24.3594,
  replacedCpuSecondsPerChange: 0.1482,
};
