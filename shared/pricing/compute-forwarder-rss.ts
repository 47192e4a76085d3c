// The forwarder's resident memory at a count of watched objects, from the points the forwarder bench measured
// (test/bench/measure-forwarder-only.ts): linear between two measured points, and beyond the first or last point
// along the nearest segment. Pure.

export type RssPoint = { readonly watchedObjects: number; readonly rssMiB: number };

export type ForwarderRss = {
  readonly rssMiB: number;
  /** `measured`: at a measured point; `interpolated`: between two; `extrapolated`: outside them. */
  readonly basis: 'measured' | 'interpolated' | 'extrapolated';
  /** The measured points the figure is derived from. */
  readonly from: readonly RssPoint[];
};

/** A figure at a count of watched objects, read off measured points (see {@link computeAlongPoints}). */
export type AlongPoints<P> = {
  readonly value: number;
  /** `measured`: at a measured point; `interpolated`: between two; `extrapolated`: outside them. */
  readonly basis: 'measured' | 'interpolated' | 'extrapolated';
  readonly from: readonly P[];
};

/**
 * `value` of the measured points at `watchedObjects`: a measured point's own, linear between two, and along the
 * nearest segment outside them; never below 0. Throws without a measured point.
 *
 * @example
 * computeAlongPoints([{ watchedObjects: 800, s: 4 }, { watchedObjects: 10_000, s: 6 }], 5_400, (p) => p.s).value; // 5
 */
export function computeAlongPoints<P extends { readonly watchedObjects: number }>(
  points: readonly P[],
  watchedObjects: number,
  value: (point: P) => number,
): AlongPoints<P> {
  const sorted = [...points].sort((a, b) => a.watchedObjects - b.watchedObjects);
  const [first] = sorted;
  if (first === undefined) throw new RangeError('no measured forwarder point');
  const exact = sorted.find((p) => p.watchedObjects === watchedObjects);
  if (exact) return { value: value(exact), basis: 'measured', from: [exact] };
  if (sorted.length === 1) return { value: value(first), basis: 'extrapolated', from: [first] };
  // NOTE: the segment holding the count, or the first / last segment outside the measured range.
  const above = sorted.findIndex((p) => p.watchedObjects > watchedObjects);
  const index = above === -1 ? sorted.length - 2 : Math.max(0, above - 1);
  const a = sorted[index]!;
  const b = sorted[index + 1]!;
  const slope = (value(b) - value(a)) / (b.watchedObjects - a.watchedObjects);
  const inside = watchedObjects > first.watchedObjects && watchedObjects < sorted.at(-1)!.watchedObjects;
  return {
    value: Math.max(0, value(a) + slope * (watchedObjects - a.watchedObjects)),
    basis: inside ? 'interpolated' : 'extrapolated',
    from: [a, b],
  };
}

/**
 * The forwarder's RSS with `watchedObjects` objects; never below 0. Throws without a measured point.
 *
 * @example
 * computeForwarderRss([{ watchedObjects: 10_002, rssMiB: 73.6 }, { watchedObjects: 50_002, rssMiB: 101.4 }], 30_002);
 * // { rssMiB: 87.5, basis: 'interpolated', from: [...both points] }
 */
export function computeForwarderRss(points: readonly RssPoint[], watchedObjects: number): ForwarderRss {
  const { value, basis, from } = computeAlongPoints(points, watchedObjects, (p) => p.rssMiB);
  return { rssMiB: value, basis, from };
}
