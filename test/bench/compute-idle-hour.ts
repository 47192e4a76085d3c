// The idle hour of a fleet of n Clusters, from what one tick and one forced pass of each controller measured on a
// fleet of `measuredClusters`: 12 ticks an hour per controller, a forced (drift-correction) pass over every object
// once per RESYNC_AFTER_MS, and the forwarder re-opening each watch when the API server ends it.
import type { HourlyUsage } from '#shared/pricing/index.ts';
import type { Controller } from '#shared/checkpoint/index.ts';
import type { PassFigures, TickFigures } from '#test/bench/measure-passes.ts';

export type IdleHourInput = {
  readonly measuredClusters: number;
  readonly ticks: Readonly<Record<Controller, TickFigures>>;
  readonly forced: Readonly<Record<Controller, PassFigures>>;
  /** Objects of each controller's primary kinds in the measured fleet. */
  readonly objects: Readonly<Record<Controller, number>>;
  readonly forwarderKinds: number;
  readonly ticksPerHour: number;
  readonly resyncAfterHours: number;
  readonly lambdaMemoryGb: number;
  /** Mean lifetime of a watch the API server ends (kube-apiserver: uniform in [min-request-timeout, 2×), 1800 s). */
  readonly watchLifetimeSeconds: number;
};

export type IdleHour = {
  readonly clusters: number;
  readonly managementRequests: number;
  readonly managementBreakdown: { readonly ticks: number; readonly resync: number; readonly forwarder: number };
  readonly workloadRequests: number;
  readonly resyncPasses: number;
  readonly usage: HourlyUsage;
};

const controllers = ['topology', 'addons', 'providers'] as const;

/**
 * Scales the measurements to `clusters`: the topology tick's checkpoint reads and duration and the add-on passes'
 * per-Cluster work grow linearly with the fleet; LISTs, providers and the forwarder do not.
 *
 * @example
 * computeIdleHour(input, 1000).managementRequests;
 */
export function computeIdleHour(input: IdleHourInput, clusters: number): IdleHour {
  const scale = clusters / input.measuredClusters;
  const grows: Record<Controller, boolean> = { topology: true, addons: false, providers: false };
  const objects: Record<Controller, number> = {
    topology: input.objects.topology * scale,
    addons: input.objects.addons,
    providers: input.objects.providers,
  };
  /** Work of one forced pass that grows with the fleet: a ClusterResourceSet pass visits every selected Cluster. */
  const passScale: Record<Controller, number> = { topology: 1, addons: scale, providers: 1 };
  let ticks = 0;
  let resync = 0;
  let workload = 0;
  let readUnits = 0;
  let writeUnits = 0;
  let durationMs = 0;
  let events = 0;
  let resyncPasses = 0;
  for (const c of controllers) {
    const tick = input.ticks[c];
    const forced = input.forced[c].max;
    const tickScale = grows[c] ? scale : 1;
    ticks += input.ticksPerHour * (tick.kube.total - tick.workloadRequests);
    workload += input.ticksPerHour * tick.workloadRequests;
    readUnits += input.ticksPerHour * tick.dynamodb.readUnits * tickScale;
    writeUnits += input.ticksPerHour * tick.dynamodb.writeUnits * tickScale;
    durationMs += input.ticksPerHour * tick.durationMs * tickScale;
    const passes = objects[c] / input.resyncAfterHours;
    resyncPasses += passes;
    const workloadOfPass = forced.byVerbAndResource;
    const workloadCount = Object.entries(workloadOfPass)
      .filter(([k]) => k.startsWith('workload '))
      .reduce((a, [, v]) => a + v, 0);
    resync += passes * (forced.kube.total - workloadCount) * passScale[c];
    workload += passes * workloadCount * passScale[c];
    // NOTE: the tick already read the checkpoint once; the pass reads it again (skipUnchanged).
    readUnits += passes * forced.dynamodb.readUnits;
    writeUnits += passes * forced.dynamodb.writeUnits;
    durationMs += passes * input.forced[c].meanDurationMs * passScale[c];
    events += passes * forced.kube.mutating * passScale[c];
  }
  const forwarder = input.forwarderKinds * (3600 / input.watchLifetimeSeconds);
  const invocations = input.ticksPerHour * controllers.length + events;
  return {
    clusters,
    managementRequests: ticks + resync + forwarder,
    managementBreakdown: { ticks, resync, forwarder },
    workloadRequests: workload,
    resyncPasses,
    usage: {
      lambdaInvocations: invocations,
      lambdaGbSeconds: (durationMs / 1000) * input.lambdaMemoryGb,
      schedulerInvocations: input.ticksPerHour * controllers.length,
      eventBridgeEvents: events,
      dynamoDbReadUnits: readUnits,
      dynamoDbWriteUnits: writeUnits,
    },
  };
}
