// Requests per user as the API server saw them, from its audit log: every request once (a watch when it started, any
// other request when it completed), attributed to a time window by when it was received.
import type { AuditEvent } from '#test/support/harness/audit-log.ts';

/** Metadata of every request (one line each); the bench counts them per user. */
export const everyRequestAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

export type BenchAuditEvent = AuditEvent & {
  readonly stage?: string;
  readonly userAgent?: string;
  readonly objectRef?: AuditEvent['objectRef'] & { readonly subresource?: string };
};

export type RequestCounts = {
  readonly total: number;
  readonly mutating: number;
  readonly byVerb: Readonly<Record<string, number>>;
};

const mutatingVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** True for the one event per request the bench counts. */
export function isCountedEvent(e: BenchAuditEvent): boolean {
  return e.verb === 'watch' ? e.stage === 'ResponseStarted' : e.stage === 'ResponseComplete';
}

/**
 * Requests per user (or per `keyOf`, e.g. a component named from user and user agent) received in [from, to].
 *
 * @example
 * computeRequestCounts(audit.events(), phase.from, phase.to)['capi-manager']?.total;
 */
export function computeRequestCounts(
  events: readonly BenchAuditEvent[],
  from: number,
  to: number,
  keyOf: (e: BenchAuditEvent) => string = (e) => e.user.username,
): Record<string, RequestCounts> {
  const out: Record<string, { total: number; mutating: number; byVerb: Record<string, number> }> = {};
  for (const e of events) {
    if (!isCountedEvent(e)) continue;
    const at = Date.parse(e.requestReceivedTimestamp ?? e.stageTimestamp ?? '');
    if (!(at >= from && at <= to)) continue;
    const row = (out[keyOf(e)] ??= { total: 0, mutating: 0, byVerb: {} });
    row.total++;
    // NOTE: a server-side-apply dry run is a patch that changes nothing.
    if (mutatingVerbs.has(e.verb) && !e.requestURI.includes('dryRun=')) row.mutating++;
    row.byVerb[e.verb] = (row.byVerb[e.verb] ?? 0) + 1;
  }
  return out;
}

/** One line of a phase's request breakdown: who sent what to which objects, and how the server answered. */
export type RequestBreakdownRow = {
  readonly component: string;
  /** The user agent's program name (its first word, no version), e.g. `manager` or `cluster-api-controller`. */
  readonly userAgent: string;
  readonly verb: string;
  /** `group/resource[/subresource]` (core group: `core`), or the request's path when it names no object. */
  readonly resource: string;
  /** The object's name with Cluster names as `<cluster>` and generated suffixes as `<x>`; '' for a collection. */
  readonly name: string;
  readonly code: number;
  readonly count: number;
};

/**
 * The name pattern of an object: the bench's Cluster names (`c-0001`) become `<cluster>` and a generated five-letter
 * suffix `<x>`, so per-Cluster objects of one kind fall into one line.
 *
 * @example
 * computeNamePattern('c-0003-md-0-x7k2p'); // '<cluster>-md-0-<x>'
 */
export function computeNamePattern(name: string): string {
  return name.replace(/\bc-\d{4}\b/g, '<cluster>').replace(/-[a-z0-9]{5}(?=-|$)/g, (m) => (/\d/.test(m) ? '-<x>' : m));
}

/**
 * Every request received in [from, to], grouped per component × user agent × verb × resource × name pattern × status
 * code, the largest groups first.
 *
 * @example
 * computeRequestBreakdown(events, idle.from, idle.to, (e) => e.user.username)[0]?.count;
 */
export function computeRequestBreakdown(
  events: readonly BenchAuditEvent[],
  from: number,
  to: number,
  keyOf: (e: BenchAuditEvent) => string = (e) => e.user.username,
): RequestBreakdownRow[] {
  const rows = new Map<string, { -readonly [K in keyof RequestBreakdownRow]: RequestBreakdownRow[K] }>();
  for (const e of events) {
    if (!isCountedEvent(e)) continue;
    const at = Date.parse(e.requestReceivedTimestamp ?? e.stageTimestamp ?? '');
    if (!(at >= from && at <= to)) continue;
    const ref = e.objectRef;
    const resource = ref?.resource
      ? [ref.apiGroup || 'core', ref.resource, ...(ref.subresource ? [ref.subresource] : [])].join('/')
      : (e.requestURI.split('?')[0] ?? e.requestURI);
    const row = {
      component: keyOf(e),
      userAgent: (e.userAgent ?? '').split(/[/ ]/)[0] ?? '',
      verb: e.verb,
      resource,
      name: ref?.name ? computeNamePattern(ref.name) : '',
      code: e.responseStatus?.code ?? 0,
      count: 0,
    };
    const key = JSON.stringify([row.component, row.userAgent, row.verb, row.resource, row.name, row.code]);
    const found = rows.get(key) ?? (rows.set(key, row), row);
    found.count++;
  }
  return [...rows.values()].sort(
    (a, b) =>
      b.count - a.count ||
      a.component.localeCompare(b.component) ||
      a.resource.localeCompare(b.resource) ||
      a.verb.localeCompare(b.verb) ||
      a.name.localeCompare(b.name),
  );
}
