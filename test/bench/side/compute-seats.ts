// API server flow-control seats of a window: the server's own counters (`/metrics` before and after) and, since the
// harness's identities are in system:masters (the exempt priority level, whose requests the server does not
// estimate per user), the seats the v1.34 work estimator would charge each counted request, per component.
import type { BenchAuditEvent } from './count-requests.ts';

/** Every sample of `name` in a Prometheus text exposition, keyed by its label set (`{a="b",...}` or ''). */
export function parseMetricSamples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(name.length, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** Per label set: after − before (counters), samples that did not grow left out. */
export function computeCounterDelta(before: string, after: string, name: string): Record<string, number> {
  const from = parseMetricSamples(before, name);
  const out: Record<string, number> = {};
  for (const [labels, value] of parseMetricSamples(after, name)) {
    const delta = value - (from.get(labels) ?? 0);
    if (delta > 0) out[labels || '(none)'] = delta;
  }
  return out;
}

/** Stored objects per resource (`apiserver_resource_objects`, else `apiserver_storage_objects`), keyed `resource.group`. */
export function parseStoredObjects(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of ['apiserver_storage_objects', 'apiserver_resource_objects']) {
    for (const [labels, value] of parseMetricSamples(text, name)) {
      const resource = /resource="([^"]+)"/.exec(labels)?.[1];
      const group = /group="([^"]*)"/.exec(labels)?.[1];
      if (resource) out.set(group ? `${resource}.${group}` : resource, value);
    }
  }
  return out;
}

/**
 * kube-apiserver's LIST work estimate (v1.34, size-based, as the scale model takes it): the bytes the LIST loads from
 * the watch cache, at most 1 MB, one seat per 100 kB, at least 1 and at most 10; `bytesPerObject` as the model's
 * `listedObjectBytes`.
 *
 * @example
 * computeListSeats(1_000); // 10
 */
export function computeListSeats(storedObjects: number, bytesPerObject = 4_000): number {
  return Math.min(10, Math.max(1, Math.ceil(Math.min(storedObjects * bytesPerObject, 1_000_000) / 100_000)));
}

export type EstimatedSeats = { readonly requests: number; readonly seats: number; readonly listSeats: number };

/**
 * Seats the estimator would charge the counted requests in [from, to] per component: a LIST (not a watch) by the
 * objects stored of its resource then, every other request 1 (a write's extra seats for its watchers are left out).
 *
 * @example
 * computeEstimatedSeats(events, from, to, keyOf, new Map([['clusters.cluster.x-k8s.io', 1000]]))['upstream core'];
 */
export function computeEstimatedSeats(
  events: readonly BenchAuditEvent[],
  from: number,
  to: number,
  keyOf: (e: BenchAuditEvent) => string,
  stored: ReadonlyMap<string, number>,
): Record<string, EstimatedSeats> {
  const out: Record<string, { requests: number; seats: number; listSeats: number }> = {};
  for (const e of events) {
    const at = Date.parse(e.requestReceivedTimestamp ?? e.stageTimestamp ?? '');
    if (!(at >= from && at <= to)) continue;
    const row = (out[keyOf(e)] ??= { requests: 0, seats: 0, listSeats: 0 });
    row.requests++;
    if (e.verb !== 'list' || !e.objectRef?.resource) {
      row.seats++;
      continue;
    }
    const { resource, apiGroup } = e.objectRef;
    const seats = computeListSeats(stored.get(apiGroup ? `${resource}.${apiGroup}` : resource) ?? 0);
    row.seats += seats;
    row.listSeats += seats;
  }
  return out;
}
