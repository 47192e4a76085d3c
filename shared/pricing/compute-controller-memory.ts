// The controllers' memory size, chosen from their measured passes: Lambda gives a function CPU in proportion to its
// memory (one vCPU at 1,769 MB) and bills GB-seconds, so a pass that mostly waits on the API server costs less at a
// smaller size until its CPU time, stretched, outweighs the wait. Pure: the measured passes and the bounds are
// arguments.
import type { MeasuredProfile, PassFigures } from '#shared/pricing/measured-profile-types.ts';

/** How slow and how full a controller may get at a smaller memory size, and the sizes tried. */
export const controllerMemoryBounds = {
  /**
   * A pass of each kind (change, a new Cluster's first, skipped) at most this many times its duration on a whole
   * core, modelled conservatively as its wait plus its CPU time stretched: billed + CPU × (1,769 / MB − 1).
   */
  maxSlowdown: 1.5,
  /** Peak RSS of the measured passes at most this share of the memory size (room for a large fleet's sweep LIST). */
  maxRssShare: 0.5,
  /** INIT and the first invocation's CPU time, stretched, under Lambda's 10 s INIT limit. */
  maxColdCpuMs: 10_000,
  sizesMb: [128, 192, 256, 320, 384, 448, 512, 640, 768, 1024, 1769],
} as const;

export type MemoryCandidate = {
  readonly memoryMb: number;
  /** The slowest kind of pass, relative to a whole core (additive model). */
  readonly slowdown: number;
  readonly rssShare: number;
  readonly coldCpuMs: number;
  /** GB-ms billed per pass of each kind, max(billed, CPU × 1,769 / MB) × GB, as the cost model prices them. */
  readonly gbMs: { readonly change: number; readonly create: number; readonly skip: number };
  readonly withinBounds: boolean;
};

const lambdaMbPerVcpu = 1_769;

/**
 * Every size tried with its slowdown, fill and billed GB-ms per pass, and the chosen size: the smallest within the
 * bounds. Billed GB-ms never grow as the size shrinks (max(billed × GB, CPU × 1,769 / 1,024) per pass), so the
 * smallest size the bounds allow costs least for any mix of passes and any fleet size.
 *
 * @example
 * computeControllerMemory(measuredProfile.passMs).memoryMb; // 384
 */
export function computeControllerMemory(
  passes: NonNullable<MeasuredProfile['passMs']>,
  bounds: {
    readonly maxSlowdown: number;
    readonly maxRssShare: number;
    readonly maxColdCpuMs: number;
    readonly sizesMb: readonly number[];
  } = controllerMemoryBounds,
): { readonly memoryMb: number; readonly candidates: readonly MemoryCandidate[] } {
  const kinds = { change: passes.change, create: passes.create, skip: passes.skip };
  const candidates = bounds.sizesMb.map((memoryMb): MemoryCandidate => {
    const stretch = Math.max(1, lambdaMbPerVcpu / memoryMb);
    const slowed = (p: PassFigures) => (p.billedMs + p.cpuMs * (stretch - 1)) / Math.max(1, p.billedMs);
    const billed = (p: PassFigures) => (Math.max(p.billedMs, p.cpuMs * stretch) * memoryMb) / 1024;
    const slowdown = Math.max(...Object.values(kinds).map(slowed));
    const rssShare = passes.maxRssMiB / memoryMb;
    const coldCpuMs = passes.coldCpuMs * stretch;
    return {
      memoryMb,
      slowdown: Math.round(slowdown * 100) / 100,
      rssShare: Math.round(rssShare * 100) / 100,
      coldCpuMs: Math.round(coldCpuMs),
      gbMs: {
        change: Math.round(billed(kinds.change)),
        create: Math.round(billed(kinds.create)),
        skip: Math.round(billed(kinds.skip)),
      },
      withinBounds:
        slowdown <= bounds.maxSlowdown && rssShare <= bounds.maxRssShare && coldCpuMs <= bounds.maxColdCpuMs,
    };
  });
  const chosen = candidates.find((c) => c.withinBounds);
  if (!chosen) throw new Error('no memory size within the bounds for the measured passes');
  return { memoryMb: chosen.memoryMb, candidates };
}
