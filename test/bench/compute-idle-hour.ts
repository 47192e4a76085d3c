// The idle hour of a fleet of n Clusters, from what one tick and one sweep of each controller measured on a fleet of
// `measuredClusters`: 12 ticks an hour per controller (the due index only), one sweep per controller every
// SWEEP_INTERVAL_MS (a LIST per kind and batched checkpoint reads), and the forwarder re-opening each watch when the
// API server ends it.
import type { HourlyUsage } from '#shared/pricing/index.ts';
import type { Controller } from '#shared/checkpoint/index.ts';
import type { TickFigures } from '#test/bench/measure-passes.ts';

export type IdleHourInput = {
  readonly measuredClusters: number;
  /** A tick that does not sweep, per controller. */
  readonly ticks: Readonly<Record<Controller, TickFigures>>;
  /** A tick that sweeps, per controller. */
  readonly sweeps: Readonly<Record<Controller, TickFigures>>;
  /** Objects of each controller's primary kinds in the measured fleet. */
  readonly objects: Readonly<Record<Controller, number>>;
  readonly forwarderKinds: number;
  readonly ticksPerHour: number;
  readonly sweepIntervalHours: number;
  readonly lambdaMemoryGb: number;
  /** Mean lifetime of a watch the API server ends (kube-apiserver: uniform in [min-request-timeout, 2×), 1800 s). */
  readonly watchLifetimeSeconds: number;
};

export type IdleHour = {
  readonly clusters: number;
  readonly managementRequests: number;
  readonly managementBreakdown: { readonly ticks: number; readonly sweeps: number; readonly forwarder: number };
  readonly workloadRequests: number;
  readonly usage: HourlyUsage;
};

const controllers = ['topology', 'addons', 'providers'] as const;

/**
 * Scales the measurements to `clusters`: the topology sweep's checkpoint reads and duration grow linearly with the
 * fleet (its LIST count does not, at 500 objects a page); ticks, providers and the forwarder do not grow.
 *
 * @example
 * computeIdleHour(input, 1000).managementRequests;
 */
export function computeIdleHour(input: IdleHourInput, clusters: number): IdleHour {
  const scale = clusters / input.measuredClusters;
  const grows: Record<Controller, boolean> = { topology: true, addons: false, providers: false, rollout: false };
  const sweepsPerHour = 1 / input.sweepIntervalHours;
  let ticks = 0;
  let sweeps = 0;
  let workload = 0;
  let readUnits = 0;
  let writeUnits = 0;
  let durationMs = 0;
  for (const c of controllers) {
    const tick = input.ticks[c];
    const sweep = input.sweeps[c];
    const sweepScale = grows[c] ? scale : 1;
    ticks += input.ticksPerHour * (tick.kube.total - tick.workloadRequests);
    workload += input.ticksPerHour * tick.workloadRequests + sweepsPerHour * sweep.workloadRequests;
    readUnits += input.ticksPerHour * tick.dynamodb.readUnits + sweepsPerHour * sweep.dynamodb.readUnits * sweepScale;
    writeUnits +=
      input.ticksPerHour * tick.dynamodb.writeUnits + sweepsPerHour * sweep.dynamodb.writeUnits * sweepScale;
    durationMs += input.ticksPerHour * tick.durationMs + sweepsPerHour * sweep.durationMs * sweepScale;
    sweeps += sweepsPerHour * (sweep.kube.total - sweep.workloadRequests);
  }
  const forwarder = input.forwarderKinds * (3600 / input.watchLifetimeSeconds);
  const invocations = input.ticksPerHour * controllers.length;
  return {
    clusters,
    managementRequests: ticks + sweeps + forwarder,
    managementBreakdown: { ticks, sweeps, forwarder },
    workloadRequests: workload,
    usage: {
      lambdaInvocations: invocations,
      lambdaGbSeconds: (durationMs / 1000) * input.lambdaMemoryGb,
      schedulerInvocations: input.ticksPerHour * controllers.length,
      eventBridgeEvents: 0,
      dynamoDbReadUnits: readUnits,
      dynamoDbWriteUnits: writeUnits,
    },
  };
}
