// Side B's pass errors and failed invocations, read from the functions process's output (pure): the functions log
// every pass that ends in Error (`pass finished` at level ERROR, shared/runtime/run-pass.ts) and every pass that timed
// out before recording (`pass timed out`); the bench's own wrapper logs each invocation that threw in the same JSON
// shape (`invocation failed`). The bench keeps them with their time, controller, object, bench phase and message, so
// a result says what each error was without BENCH_SIDE_LOGS.

/** One error line of side B's functions. */
export type PassErrorRecord = {
  /** When the function logged it (ISO 8601). */
  readonly at: string;
  readonly controller: string;
  /** `Kind namespace/name` of the pass's object; for a failed invocation, the objects its event named ('' for a tick). */
  readonly object: string;
  /** `pass error`, `pass timed out`, `invocation failed`, or the message of another error line. */
  readonly what: string;
  readonly error: string;
  /** The bench phase it fell in (see {@link computePassErrorPhases}). */
  readonly phase?: string;
  /** What started the pass: an event id, `tick …`, `schedule …`. */
  readonly trigger?: string;
  /** The pass's attempts in a row that ended in Error, this one included (from the checkpoint). */
  readonly attempts?: number;
  /** The dependency (kubernetes, dynamodb, …) whose call timed out, when one did. */
  readonly dependency?: string;
};

/** The longest error message kept per record (a webhook's or the server's message can be long). */
export const maxErrorChars = 2_000;

/** The phase name of an error outside every measured phase (the pause before the idle window, the tail). */
export const betweenPhases = 'between phases';

const whatOf: Readonly<Record<string, string>> = {
  'pass finished': 'pass error',
  'pass timed out': 'pass timed out',
  'invocation failed': 'invocation failed',
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The error records in a process's output: every JSON line at level ERROR or CRITICAL (Powertools Logger's format);
 * other lines are skipped, so stray text and lines cut by a crash do no harm.
 *
 * @example
 * computePassErrors('{"level":"ERROR","message":"pass finished","timestamp":"2026-11-28T13:28:05.120Z",' +
 *   '"controller":"topology","object":"Cluster bench/c-0003","error":"failed to update status of …"}\n');
 * // [{ at: '2026-11-28T13:28:05.120Z', controller: 'topology', object: 'Cluster bench/c-0003', what: 'pass error', error: 'failed to update status of …' }]
 */
export function computePassErrors(output: string): PassErrorRecord[] {
  const records: PassErrorRecord[] = [];
  for (const line of output.split('\n')) {
    const start = line.indexOf('{');
    if (start < 0 || !line.includes('"level"')) continue;
    let entry: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line.slice(start));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
      entry = parsed as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry['level'] !== 'ERROR' && entry['level'] !== 'CRITICAL') continue;
    const message = str(entry['message']) ?? '';
    const controller = str(entry['controller']) ?? str(entry['service'])?.replace(/^capi-serverless-/, '') ?? '';
    const error = str(entry['error']) ?? str(entry['reason']) ?? message;
    const trigger = str(entry['trigger']);
    const dependency = str(entry['dependency']);
    const attempts = typeof entry['attempts'] === 'number' ? entry['attempts'] : undefined;
    records.push({
      at: str(entry['timestamp']) ?? '',
      controller,
      object: str(entry['object']) ?? '',
      what: whatOf[message] ?? message,
      error: error.length > maxErrorChars ? `${error.slice(0, maxErrorChars)}…` : error,
      ...(trigger === undefined ? {} : { trigger }),
      ...(attempts === undefined ? {} : { attempts }),
      ...(dependency === undefined ? {} : { dependency }),
    });
  }
  return records;
}

type EventLike = {
  readonly 'detail-type'?: unknown;
  readonly detail?: {
    readonly kind?: unknown;
    readonly namespace?: unknown;
    readonly name?: unknown;
    readonly key?: { readonly kind?: unknown; readonly namespace?: unknown; readonly name?: unknown };
    readonly keys?: readonly { readonly kind?: unknown; readonly namespace?: unknown; readonly name?: unknown }[];
  };
};

const describeKeyLike = (k: { readonly kind?: unknown; readonly namespace?: unknown; readonly name?: unknown }) =>
  `${String(k.kind ?? '')} ${k.namespace ? `${String(k.namespace)}/` : ''}${String(k.name ?? '')}`;

/**
 * The objects a controller event names, as `Kind namespace/name` joined by `, ` (at most `limit`, then `+N more`):
 * an object change its object, a due pass its key, a fanned-out batch its keys, a tick none.
 *
 * @example
 * describeEventObjects({ 'detail-type': 'Pass Due', detail: { key: { kind: 'Cluster', namespace: 'bench', name: 'c-0001' } } });
 * // 'Cluster bench/c-0001'
 */
export function describeEventObjects(event: unknown, limit = 5): string {
  const e = (typeof event === 'object' && event !== null ? event : {}) as EventLike;
  const d = e.detail ?? {};
  const keys = d.keys ?? (d.key ? [d.key] : e['detail-type'] === 'Tick' || d.name === undefined ? [] : [d]);
  const named = keys.slice(0, limit).map(describeKeyLike);
  return keys.length > limit ? `${named.join(', ')} +${keys.length - limit} more` : named.join(', ');
}

/**
 * The JSON line the bench writes for an invocation that threw (the shape {@link computePassErrors} reads).
 *
 * @example
 * process.stderr.write(computeInvocationFailedLine({ at: new Date(), controller: 'topology', event, durationMs: 12, error: 'boom' }));
 */
export function computeInvocationFailedLine(failed: {
  readonly at: Date;
  readonly controller: string;
  readonly event: unknown;
  readonly durationMs: number;
  readonly error: string;
}): string {
  const detailType = (failed.event as EventLike | undefined)?.['detail-type'];
  return `${JSON.stringify({
    level: 'ERROR',
    message: 'invocation failed',
    timestamp: failed.at.toISOString(),
    controller: failed.controller,
    object: describeEventObjects(failed.event),
    ...(typeof detailType === 'string' ? { trigger: detailType } : {}),
    durationMs: Math.round(failed.durationMs),
    error: failed.error,
  })}\n`;
}

/**
 * Each record with the bench phase its time fell in (`from` ≤ time ≤ `to`), {@link betweenPhases} outside them all.
 *
 * @example
 * computePassErrorPhases(records, [{ name: 'create', from: 1764336000000, to: 1764336600000 }]);
 */
export function computePassErrorPhases(
  records: readonly PassErrorRecord[],
  phases: readonly { readonly name: string; readonly from: number; readonly to: number }[],
): PassErrorRecord[] {
  return records.map((r) => {
    const at = Date.parse(r.at);
    const phase = phases.find((p) => at >= p.from && at <= p.to)?.name ?? betweenPhases;
    return { ...r, phase };
  });
}

/** The longest message a line of the markdown section shows. */
const markdownErrorChars = 400;

/**
 * The "Pass errors" section of the side-by-side report: one line per record of side B, or a line saying there were
 * none; nothing for a result without records (side A only, or a run before they were kept).
 *
 * @example
 * computePassErrorsMarkdown([]); // ['', 'Pass errors (B: …): none.']
 */
export function computePassErrorsMarkdown(records: readonly PassErrorRecord[] | undefined): string[] {
  if (records === undefined) return [];
  const title = 'Pass errors (B: every pass that ended in Error and every failed invocation of the functions)';
  if (records.length === 0) return ['', `${title}: none.`];
  const line = (r: PassErrorRecord) => {
    const time = r.at.length >= 19 ? `${r.at.slice(11, 19)} UTC` : r.at || 'unknown time';
    const error = r.error.length > markdownErrorChars ? `${r.error.slice(0, markdownErrorChars)}…` : r.error;
    const details = [
      r.attempts === undefined ? undefined : `attempt ${r.attempts}`,
      r.dependency === undefined ? undefined : `${r.dependency} timed out`,
      r.trigger === undefined ? undefined : `trigger ${r.trigger}`,
    ].filter((d) => d !== undefined);
    const where = [r.controller, r.what, r.object].filter((p) => p !== '').join(' ');
    return `- ${time}, ${r.phase ?? betweenPhases}: ${where}: ${error.replaceAll('\n', ' ')}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
  };
  return ['', `${title}:`, '', ...records.map(line)];
}
