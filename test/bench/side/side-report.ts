// The side-by-side bench's result and its table for docs/benchmarks.md: per phase, requests per component at the API server, CPU and
// memory per process, write → converged latencies; and the ratios B/A the issue asks for, each labelled measured.
import { computePassErrorsMarkdown, type PassErrorRecord } from './compute-pass-errors.ts';
import type { RequestBreakdownRow, RequestCounts } from './count-requests.ts';

export type SideName = 'A' | 'B';

export type PhaseReport = {
  readonly name: string;
  readonly durationMs: number;
  /** Converged changes the phase made (Clusters created, changed, or reached by a fleet-wide change). */
  readonly changes: number;
  readonly latencyMs?: { p50: number; p99: number; max: number; samples: number };
  /** Per component (user of the requests): upstream managers, capi-serverless, the bench driver, the API server. */
  readonly requests: Readonly<Record<string, RequestCounts>>;
  /** The idle phase: every request per component × user agent × verb × resource × name pattern × status code. */
  readonly breakdown?: readonly RequestBreakdownRow[];
  readonly cpuSeconds: Readonly<Record<string, number>>;
  readonly memory: Readonly<Record<string, { meanMiB: number; peakMiB: number }>>;
  readonly error?: string;
  /** Side B: what the functions process counted during the phase (invocations per controller, passes). */
  readonly functions?: FunctionCounts;
};

/**
 * Invocations per controller (by an object change, a tick, a batch another invocation fanned out, or a one-time
 * schedule), passes (those that ran and asked to run again: `requeued`), and the one-time schedules the functions
 * created or moved and that fired, as the functions process counts them.
 */
export type FunctionCounts = {
  readonly invocations: Readonly<
    Record<string, { events: number; ticks: number; fanOuts?: number; wakeUps?: number; wakeUpDurationMs?: number }>
  >;
  readonly passes: { ran: number; skipped: number; errors: number; requeued?: number };
  /** `deleted`: before they fired, their passes no longer asking to run again (absent from earlier runs). */
  readonly schedules?: {
    created: number;
    updated: number;
    kept: number;
    failed: number;
    deleted?: number;
    fired: number;
  };
  /** Requests the webhooks server answered (admission calls) during the phase. */
  readonly webhookCalls?: number;
  /** Forwarder entries the functions process received (PutEvents entries) during the phase. */
  readonly eventsReceived?: number;
};

const scheduleCounts = ['created', 'updated', 'kept', 'failed', 'deleted', 'fired'] as const;

/** The counts between two snapshots of the functions process's counters. */
export function computeFunctionCounts(from: unknown, to: unknown): FunctionCounts | undefined {
  type Row = { events?: number; ticks?: number; fanOuts?: number; wakeUps?: number; wakeUpDurationMs?: number };
  type Stats = {
    invocations?: Record<string, Row>;
    passes?: { ran?: number; skipped?: number; errors?: number; requeued?: number };
    schedules?: Partial<Record<(typeof scheduleCounts)[number], number>>;
    webhookCalls?: number;
    eventsReceived?: number;
  };
  const [a, b] = [from as Stats | undefined, to as Stats | undefined];
  if (!a?.invocations || !b?.invocations) return undefined;
  const invocations: Record<
    string,
    { events: number; ticks: number; fanOuts: number; wakeUps: number; wakeUpDurationMs: number }
  > = {};
  for (const [controller, counts] of Object.entries(b.invocations)) {
    const before: Row = a.invocations[controller] ?? {};
    const d = (k: keyof Row) => (counts[k] ?? 0) - (before[k] ?? 0);
    invocations[controller] = {
      events: d('events'),
      ticks: d('ticks'),
      fanOuts: d('fanOuts'),
      wakeUps: d('wakeUps'),
      wakeUpDurationMs: d('wakeUpDurationMs'),
    };
  }
  const delta = (k: 'ran' | 'skipped' | 'errors' | 'requeued') => (b.passes?.[k] ?? 0) - (a.passes?.[k] ?? 0);
  const schedules = b.schedules
    ? (Object.fromEntries(scheduleCounts.map((k) => [k, (b.schedules?.[k] ?? 0) - (a.schedules?.[k] ?? 0)])) as Record<
        (typeof scheduleCounts)[number],
        number
      >)
    : undefined;
  return {
    invocations,
    passes: { ran: delta('ran'), skipped: delta('skipped'), errors: delta('errors'), requeued: delta('requeued') },
    ...(schedules ? { schedules } : {}),
    ...(b.webhookCalls === undefined ? {} : { webhookCalls: b.webhookCalls - (a.webhookCalls ?? 0) }),
    ...(b.eventsReceived === undefined ? {} : { eventsReceived: b.eventsReceived - (a.eventsReceived ?? 0) }),
  };
}

export type SideReport = {
  readonly side: SideName;
  readonly durationMs: number;
  readonly phases: readonly PhaseReport[];
  /** Side B: invocations and their summed duration per controller, passes (functions process counters). */
  readonly functions?: { beforeIdle: unknown; afterIdle: unknown; end: unknown };
  /** Side B: every pass that ended in Error and every failed invocation, with its time, phase and message. */
  readonly passErrors?: readonly PassErrorRecord[];
};

export type SideBenchResult = {
  readonly date: string;
  readonly machine: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly durationMs: number;
  readonly sides: Partial<Record<SideName, SideReport>>;
};

/** The components that manage the fleet: upstream's managers and capi-serverless (not the driver, not the server). */
export const isController = (component: string) =>
  component.startsWith('upstream ') || component.startsWith('capi-serverless ');

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/**
 * Whether the audit log held the phase's requests: every phase but the idle window has the driver's own polls and
 * writes, and an idle window has the managers' watch restarts. (The run of 2026-11-26 at N = 100 lost most of them:
 * the API server's audit log rotated at its 100 MB default and only the newest file was read; see audit-log.ts.)
 */
export function isRequestsRecorded(phase: PhaseReport): boolean {
  if (Object.keys(phase.requests).length === 0) return false;
  return phase.name === 'idle' || (phase.requests['bench driver (user)']?.total ?? 0) > 0;
}

export function controllerRequests(phase: PhaseReport | undefined): number {
  if (!phase || !isRequestsRecorded(phase)) return Number.NaN;
  return sum(
    Object.entries(phase.requests)
      .filter(([c]) => isController(c))
      .map(([, r]) => r.total),
  );
}

export function controllerCpu(phase: PhaseReport | undefined): number {
  if (!phase) return Number.NaN;
  return sum(
    Object.entries(phase.cpuSeconds)
      .filter(([c]) => isController(c))
      .map(([, s]) => s),
  );
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—';
const ratio = (b: number, a: number) =>
  Number.isFinite(a) && Number.isFinite(b) && a > 0 ? `${(b / a).toFixed(2)}` : '—';

type Row = { figure: string; a: number; b: number; digits?: number; unit?: string };

/**
 * The rows of the B/A table for a result.
 *
 * @example
 * computeRatioRows(result).map((r) => r.figure);
 */
export function computeRatioRows(result: SideBenchResult): Row[] {
  const phase = (side: SideName, name: string) => result.sides[side]?.phases.find((p) => p.name === name);
  const rows: Row[] = [];
  const perHour = (p: PhaseReport | undefined) => (p ? (controllerRequests(p) * 3_600_000) / p.durationMs : Number.NaN);
  rows.push({
    figure: 'management requests per idle hour (all managers + capi-serverless)',
    a: perHour(phase('A', 'idle')),
    b: perHour(phase('B', 'idle')),
  });
  const idleA = phase('A', 'idle');
  const idleB = phase('B', 'idle');
  const rss = (p: PhaseReport | undefined, name: string) => p?.memory[name]?.meanMiB ?? Number.NaN;
  rows.push({
    figure: 'steady memory of the always-on parts, MiB (A: core manager; B: core manager + forwarder)',
    a: rss(idleA, 'upstream core'),
    b: rss(idleB, 'upstream core') + rss(idleB, 'capi-serverless forwarder'),
  });
  rows.push({
    figure: 'CPU-seconds per idle hour (managers + capi-serverless)',
    a: idleA ? (controllerCpu(idleA) * 3_600_000) / idleA.durationMs : Number.NaN,
    b: idleB ? (controllerCpu(idleB) * 3_600_000) / idleB.durationMs : Number.NaN,
    digits: 1,
  });
  for (const name of [
    'variable change',
    'scale-up',
    'version upgrade',
    'ClusterResourceSet change (fleet)',
    'ClusterClass change (fleet)',
  ]) {
    const [pa, pb] = [phase('A', name), phase('B', name)];
    if (!pa && !pb) continue;
    const per = (p: PhaseReport | undefined, f: (p: PhaseReport) => number) =>
      p && p.changes > 0 ? f(p) / p.changes : Number.NaN;
    rows.push({
      figure: `${name}: requests per converged Cluster`,
      a: per(pa, controllerRequests),
      b: per(pb, controllerRequests),
      digits: 1,
    });
    rows.push({
      figure: `${name}: CPU-seconds per converged Cluster`,
      a: per(pa, controllerCpu),
      b: per(pb, controllerCpu),
      digits: 2,
    });
    rows.push({
      figure: `${name}: write → converged p50, s`,
      a: (pa?.latencyMs?.p50 ?? Number.NaN) / 1000,
      b: (pb?.latencyMs?.p50 ?? Number.NaN) / 1000,
      digits: 1,
    });
    rows.push({
      figure: `${name}: write → converged p99, s`,
      a: (pa?.latencyMs?.p99 ?? Number.NaN) / 1000,
      b: (pb?.latencyMs?.p99 ?? Number.NaN) / 1000,
      digits: 1,
    });
  }
  return rows;
}

/** The docs/benchmarks.md fragment. */
/** How the two sides ran: together, one after the other in one run, or in two runs merged (merge-sides.ts). */
function computeRunsSentence(config: Record<string, unknown>): string {
  if (config['concurrent'] === true)
    return 'both sides ran at the same time on the same machine, each in a network namespace of its own (so they competed for the same cores)';
  const runs = config['runs'] as { A?: string; B?: string } | undefined;
  if (runs?.A && runs.B)
    return `each side from its own run on the same machine with the same configuration, merged (side A started ${runs.A.slice(0, 16).replace('T', ' ')} UTC, side B ${runs.B.slice(0, 16).replace('T', ' ')} UTC)`;
  return 'both sides ran one after the other on the same machine';
}

export function computeSideMarkdown(result: SideBenchResult): string {
  const rows = computeRatioRows(result);
  const lines = [
    `Measured by \`npm run bench:side\` on ${result.date.slice(0, 10)}: ${String(result.config['clusters'])} Clusters per side, idle window ${Number(result.config['idleMs']) / 60_000} min of wall time, capi-serverless ticks every ${Number(result.config['tickMs']) / 60_000} min, on ${result.machine}; ${computeRunsSentence(result.config)} (run: ${Math.round(result.durationMs / 60_000)} min). Every figure is measured; "per hour" figures are the idle window's counts scaled to one hour.`,
    '',
    '| figure | A: upstream | B: capi-serverless | B/A |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map(
      (r) => `| ${r.figure} | ${fmt(r.a, r.digits ?? 0)} | ${fmt(r.b, r.digits ?? 0)} | ${ratio(r.b, r.a)} |`,
    ),
    '',
    'Requests at the API server per component and phase (audit log, one count per request; a watch counts when it starts):',
    '',
  ];
  const components = new Set<string>();
  const phaseNames: string[] = [];
  for (const side of Object.values(result.sides))
    for (const p of side?.phases ?? []) {
      if (!phaseNames.includes(p.name)) phaseNames.push(p.name);
      for (const c of Object.keys(p.requests)) components.add(c);
    }
  const sorted = [...components].sort();
  lines.push(`| phase | side | ${sorted.join(' | ')} |`, `| --- | --- | ${sorted.map(() => '---:').join(' | ')} |`);
  for (const name of phaseNames)
    for (const side of ['A', 'B'] as const) {
      const p = result.sides[side]?.phases.find((x) => x.name === name);
      if (!p) continue;
      lines.push(
        `| ${name}${p.error ? ' (FAILED)' : ''} | ${side} | ${sorted.map((c) => (isRequestsRecorded(p) ? fmt(p.requests[c]?.total ?? 0) : 'not recorded')).join(' | ')} |`,
      );
    }
  lines.push('', 'CPU-seconds per process and phase:', '');
  const procs = new Set<string>();
  for (const side of Object.values(result.sides))
    for (const p of side?.phases ?? []) for (const c of Object.keys(p.cpuSeconds)) procs.add(c);
  const procList = [...procs].sort();
  lines.push(`| phase | side | ${procList.join(' | ')} |`, `| --- | --- | ${procList.map(() => '---:').join(' | ')} |`);
  for (const name of phaseNames)
    for (const side of ['A', 'B'] as const) {
      const p = result.sides[side]?.phases.find((x) => x.name === name);
      if (!p) continue;
      lines.push(
        `| ${name} | ${side} | ${procList.map((c) => (p.cpuSeconds[c] === undefined ? '—' : fmt(p.cpuSeconds[c], 1))).join(' | ')} |`,
      );
    }
  const counted = result.sides.B?.phases.filter((p) => p.functions) ?? [];
  if (counted.length > 0) {
    lines.push(
      '',
      'capi-serverless invocations per phase (B; the functions process counts them; per converged Cluster in brackets):',
      '',
      '| phase | topology events | topology fanned-out batches | topology ticks | addons events | addons ticks | passes run | passes skipped | passes requeued | one-time schedules created / moved / deleted / fired | invocations woken by a schedule |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const p of counted) {
      const f = p.functions as FunctionCounts;
      const cell = (n: number) => (p.changes > 0 ? `${fmt(n)} (${fmt(n / p.changes, 1)})` : fmt(n));
      const inv = (c: string, k: 'events' | 'ticks' | 'fanOuts') => cell(f.invocations[c]?.[k] ?? 0);
      const woken = Object.values(f.invocations).reduce((t, r) => t + (r.wakeUps ?? 0), 0);
      const s = f.schedules;
      lines.push(
        `| ${p.name} | ${inv('topology', 'events')} | ${inv('topology', 'fanOuts')} | ${inv('topology', 'ticks')} | ${inv('addons', 'events')} | ${inv('addons', 'ticks')} | ${cell(f.passes.ran)} | ${cell(f.passes.skipped)} | ${f.passes.requeued === undefined ? '—' : cell(f.passes.requeued)} | ${s ? `${fmt(s.created)} / ${fmt(s.updated)} / ${fmt(s.deleted ?? 0)} / ${cell(s.fired)}` : 'not counted'} | ${s ? cell(woken) : '—'} |`,
      );
    }
  }
  lines.push(...computePassErrorsMarkdown(result.sides.B?.passErrors));
  lines.push(...computeIdleBreakdownMarkdown(result));
  const errors = Object.values(result.sides).flatMap((s) =>
    (s?.phases ?? []).filter((p) => p.error).map((p) => `- side ${s?.side}, ${p.name}: ${p.error}`),
  );
  if (errors.length > 0) lines.push('', 'Phases that failed:', '', ...errors);
  return lines.join('\n');
}

/**
 * The idle window's management requests line by line, A beside B: what each manager and capi-serverless component
 * sent (user agent, verb, `group/resource[/subresource]`, name pattern, status code). Empty without a breakdown.
 */
export function computeIdleBreakdownMarkdown(result: SideBenchResult): string[] {
  const idle = (side: SideName) => result.sides[side]?.phases.find((p) => p.name === 'idle');
  const [a, b] = [idle('A'), idle('B')];
  if (!a?.breakdown && !b?.breakdown) return [];
  type Key = Omit<RequestBreakdownRow, 'count'>;
  const merged = new Map<string, Key & { a: number; b: number }>();
  const add = (rows: readonly RequestBreakdownRow[] | undefined, side: 'a' | 'b') => {
    for (const { count, ...row } of rows ?? []) {
      if (!isController(row.component)) continue;
      const key = JSON.stringify(Object.values(row));
      const found = merged.get(key) ?? (merged.set(key, { ...row, a: 0, b: 0 }), merged.get(key)!);
      found[side] += count;
    }
  };
  add(a?.breakdown, 'a');
  add(b?.breakdown, 'b');
  const rows = [...merged.values()].sort(
    (x, y) =>
      x.component.localeCompare(y.component) ||
      Math.max(y.a, y.b) - Math.max(x.a, x.b) ||
      x.resource.localeCompare(y.resource) ||
      x.verb.localeCompare(y.verb) ||
      x.name.localeCompare(y.name),
  );
  const window = (p: PhaseReport | undefined) => (p ? `${fmt(p.durationMs / 60_000, 1)} min` : '—');
  return [
    '',
    `Management requests of the idle window line by line (audit log; A: ${window(a)}, B: ${window(b)}; name: Cluster names as \`<cluster>\`, generated suffixes as \`<x>\`):`,
    '',
    '| component | user agent | verb | resource | name | code | A | B |',
    '| --- | --- | --- | --- | --- | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.component} | ${r.userAgent} | ${r.verb} | ${r.resource} | ${r.name ? `\`${r.name}\`` : ''} | ${r.code} | ${fmt(r.a)} | ${fmt(r.b)} |`,
    ),
  ];
}
