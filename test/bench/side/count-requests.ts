// Requests per user as the API server saw them, from its audit log: every request once (a watch when it started, any
// other request when it completed), attributed to a time window by when it was received.
import type { AuditEvent } from '#test/harness/audit-log.ts';

/** Metadata of every request (one line each); the bench counts them per user. */
export const everyRequestAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

export type BenchAuditEvent = AuditEvent & { readonly stage?: string; readonly userAgent?: string };

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
