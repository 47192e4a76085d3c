// The side-by-side bench's measured per-Cluster and per-change usage the cost model scales (regenerate with
// `node --import tsx test/bench/side/print-profile.ts` after `npm run bench:side`).
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';

export const measuredProfile: MeasuredProfile = {
  basis:
    'test/bench/results/side-by-side.json, 5 Clusters per side, 2026-11-24, 2 \u00d7 AMD EPYC, 24 GiB RAM, linux/x64, Node v22.23.3',
  idleInvocationsPerClusterHour: 1.2,
  invocationsPerChange: 20.125,
  eventsPerChange: 11.375,
  idleEventsPerClusterHour: 1.2,
  passesRunPerChange: 1.4375,
  passesSkippedPerChange: 17.9375,
  invocationMs: 244.4179,
  functionRequestsPerChange: 100.3125,
  forwarderRssMiB: 80.7015,
  forwarderRssMiBPerObject: 0.0005,
  forwarderCpuSecondsPerHour: 0.36,
  replacedRssMiB: 4.8967,
  replacedCpuSecondsPerHour: 1.2,
  replacedCpuSecondsPerChange: 0.1494,
};
