// The differential's report: per scenario and step, the differences between the two sides (object, JSON path, both
// values), whether each is known, and the writes each side made while settled; as JSON and as markdown.
import {
  compareSnapshots,
  computeStepContext,
  findKnownDifference,
  findKnownTrajectoryDifference,
  type Difference,
  type KnownDifference,
  type StepContext,
} from './compare.ts';
import type { NormalizedSnapshot } from './normalize.ts';
import { computeComparableTrajectories, type StepTrajectories } from './observe.ts';
import type { SideResult, StepResult } from './run-side.ts';
import type { Scenario } from './scenarios.ts';

export type StepReport = {
  readonly scenario: string;
  readonly step: string;
  /** Entries compared (roles, Leftovers, Trajectories, ...), of either side. */
  readonly objects: number;
  /** Kubernetes objects compared (roles holding an object on either side, plus leftovers of the side with more). */
  readonly kubeObjects?: number;
  readonly settled: { readonly upstream: boolean; readonly capiServerless: boolean };
  readonly topologyReconciled: { readonly upstream: string; readonly capiServerless: string };
  /** The roles each side has (what the rules' `absentOnBothSides` reads; kept so a report can be re-checked). */
  readonly roles: { readonly upstream: readonly string[]; readonly capiServerless: readonly string[] };
  /** `known` is the matching rule's reason, `rule` its id. */
  readonly differences: readonly ClassifiedDifference[];
  readonly settledWrites: { readonly upstream: number; readonly capiServerless: number };
  /** Who wrote what while the side was settled (the evidence for no-op writes), per side. */
  readonly settledWriteDetails: { readonly upstream: readonly string[]; readonly capiServerless: readonly string[] };
};

export type DiffReport = {
  readonly scenarios: number;
  readonly steps: number;
  readonly objectsCompared: number;
  /** Kubernetes objects compared over all steps (no placeholders, no deleted-Cluster checks). */
  readonly kubeObjectsCompared: number;
  readonly unknownDifferences: number;
  readonly knownDifferences: number;
  readonly errors: readonly string[];
  /** Steps where a side hit the step time limit before it settled (`scenario / step (side)`): each fails the run. */
  readonly unsettledSteps: readonly string[];
  /** How many differences each known difference matched (a rule at 0 in a full run fails it). */
  readonly ruleMatches: Readonly<Record<string, number>>;
  /** Rules that may match nothing in a whole run (timing: `mayMatchNothing`), with the reason. */
  readonly rulesThatMayMatchNothing?: Readonly<Record<string, string>>;
  readonly sides: Readonly<Record<string, { startMs: number; durationMs: number; concurrency: number }>>;
  readonly stepReports: readonly StepReport[];
};

const show = (v: unknown) => {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

function describeWrites(step: StepResult): string[] {
  return step.settledWrites.map(
    (w) =>
      `${w.at.slice(11, 23)} ${w.user} ${w.verb} ${w.object}${w.fieldManager ? ` (fieldManager ${w.fieldManager})` : ''}`,
  );
}

function countKubeObjects(a: NormalizedSnapshot, b: NormalizedSnapshot): number {
  const isObject = (v: unknown) => Boolean(v && typeof v === 'object' && 'kind' in v && 'metadata' in v);
  const roles = new Set([...Object.keys(a), ...Object.keys(b)].filter((r) => isObject(a[r]) || isObject(b[r])));
  const leftovers = (s: NormalizedSnapshot) => (Array.isArray(s['Leftovers']) ? s['Leftovers'].length : 0);
  return roles.size + Math.max(leftovers(a), leftovers(b));
}

export type ClassifiedDifference = Difference & { known?: string; rule?: string };

/**
 * The differences of one step's two normalised snapshots, each with the known difference it matches (if any): what
 * the report does for every step, and what the injected-regression test feeds.
 *
 * @example
 * computeStepDifferences('d01-base-variables', 'create', upstream, capiServerless, knownDifferences).differences
 */
export function computeStepDifferences(
  scenario: string,
  step: string,
  upstream: NormalizedSnapshot,
  capiServerless: NormalizedSnapshot,
  known: readonly KnownDifference[],
): { ctx: StepContext; differences: ClassifiedDifference[] } {
  const ctx = computeStepContext(scenario, step, upstream, capiServerless);
  const comparable = (snapshot: NormalizedSnapshot): NormalizedSnapshot =>
    snapshot['Trajectories']
      ? {
          ...snapshot,
          Trajectories: computeComparableTrajectories(snapshot['Trajectories'] as StepTrajectories),
        }
      : snapshot;
  const a = comparable(upstream);
  const b = comparable(capiServerless);
  const states = (s: NormalizedSnapshot) =>
    (s['Trajectories'] as StepTrajectories | undefined)?.topologyReconciled ?? [];
  const trajectoryRule = findKnownTrajectoryDifference(states(a), states(b), known, ctx);
  const differences = compareSnapshots(a, b).map((d) => {
    const k =
      d.object === 'Trajectories' && /^topologyReconciled(\[|$)/.test(d.path)
        ? trajectoryRule
        : findKnownDifference(d, known, ctx);
    return k ? { ...d, known: k.reason, rule: k.id } : d;
  });
  return { ctx, differences };
}

/**
 * Compares the two sides' results scenario by scenario, step by step.
 *
 * @example
 * const report = computeDiffReport(scenarios, upstream, capiServerless, knownDifferences);
 */
export function computeDiffReport(
  scenarios: readonly Scenario[],
  upstream: SideResult,
  capiServerless: SideResult,
  known: readonly KnownDifference[],
): DiffReport {
  const stepReports: StepReport[] = [];
  const errors: string[] = [];
  const unsettledSteps: string[] = [];
  for (const scenario of scenarios) {
    const a = upstream.scenarios[scenario.name];
    const b = capiServerless.scenarios[scenario.name];
    if (a?.error) errors.push(`${scenario.name} (upstream): ${a.error}`);
    if (b?.error) errors.push(`${scenario.name} (capi-serverless): ${b.error}`);
    for (const step of scenario.steps) {
      const sa: StepResult | undefined = a?.steps.find((s) => s.step === step.name);
      const sb: StepResult | undefined = b?.steps.find((s) => s.step === step.name);
      if (!sa || !sb) continue;
      const { ctx, differences } = computeStepDifferences(scenario.name, step.name, sa.snapshot, sb.snapshot, known);
      if (!sa.settled) unsettledSteps.push(`${scenario.name} / ${step.name} (upstream)`);
      if (!sb.settled) unsettledSteps.push(`${scenario.name} / ${step.name} (capi-serverless)`);
      stepReports.push({
        scenario: scenario.name,
        step: step.name,
        objects: new Set([...Object.keys(sa.snapshot), ...Object.keys(sb.snapshot)]).size,
        kubeObjects: countKubeObjects(sa.snapshot, sb.snapshot),
        settled: { upstream: sa.settled, capiServerless: sb.settled },
        roles: { upstream: [...ctx.roles.upstream].sort(), capiServerless: [...ctx.roles.capiServerless].sort() },
        topologyReconciled: {
          upstream: sa.topologyReconciled ?? '',
          capiServerless: sb.topologyReconciled ?? '',
        },
        differences,
        settledWrites: { upstream: sa.settledWrites.length, capiServerless: sb.settledWrites.length },
        settledWriteDetails: { upstream: describeWrites(sa), capiServerless: describeWrites(sb) },
      });
    }
  }
  const all = stepReports.flatMap((s) => s.differences);
  return {
    scenarios: scenarios.length,
    steps: stepReports.length,
    objectsCompared: stepReports.reduce((n, s) => n + s.objects, 0),
    kubeObjectsCompared: stepReports.reduce((n, s) => n + (s.kubeObjects ?? 0), 0),
    unknownDifferences: all.filter((d) => !d.known).length,
    knownDifferences: all.filter((d) => d.known).length,
    errors,
    unsettledSteps,
    ruleMatches: Object.fromEntries(known.map((k) => [k.id, all.filter((d) => d.rule === k.id).length])),
    rulesThatMayMatchNothing: Object.fromEntries(
      known.flatMap((k) => ('mayMatchNothing' in k && k.mayMatchNothing ? [[k.id, k.mayMatchNothing]] : [])),
    ),
    sides: {
      upstream: { startMs: upstream.startMs, durationMs: upstream.durationMs, concurrency: upstream.concurrency },
      'capi-serverless': {
        startMs: capiServerless.startMs,
        durationMs: capiServerless.durationMs,
        concurrency: capiServerless.concurrency,
      },
    },
    stepReports,
  };
}

/**
 * Why a run fails, beyond errors and unknown differences: a step that hit its time limit on either side compared a
 * state nobody waited for; in a run of the whole corpus (`fullRun`), a known difference that matched nothing is wider
 * than its cause or stale (the cause fixed) — only the whole corpus reaches every rule's scenarios.
 *
 * @example
 * computeRunFailures(report, { fullRun: true }) // ['step did not settle: d07-maxsurge0-variables / change a variable (upstream)']
 */
export function computeRunFailures(report: DiffReport, opts: { fullRun: boolean }): string[] {
  return [
    ...report.unsettledSteps.map((s) => `step did not settle: ${s}`),
    ...(opts.fullRun
      ? Object.entries(report.ruleMatches)
          .filter(([id, n]) => n === 0 && report.rulesThatMayMatchNothing?.[id] === undefined)
          .map(([id]) => `known difference ${id} matched nothing in the whole corpus`)
      : []),
  ];
}

/** A readable diff: one block per scenario/step with differences, one line per object + path. */
export function renderDiffText(report: DiffReport): string {
  const lines: string[] = [];
  for (const s of report.stepReports) {
    if (s.differences.length === 0) continue;
    lines.push(`--- ${s.scenario} / ${s.step}`);
    for (const d of s.differences)
      lines.push(
        `  ${d.rule ? `(known ${d.rule}) ` : ''}${d.object} ${d.path || '<object>'}\n      upstream:        ${show(d.upstream)}\n      capi-serverless: ${show(d.capiServerless)}`,
      );
  }
  return lines.join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The markdown report: summary, agreement table (scenario × step), then every difference. */
export function renderDiffMarkdown(report: DiffReport): string {
  const sec = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const out = [
    '# Differential: upstream topology controller vs capi-serverless',
    '',
    `Generated by \`npm run test:diff\`. Scenarios: ${report.scenarios}; steps compared: ${report.steps}; entries compared: ${report.objectsCompared} (Kubernetes objects: ${report.kubeObjectsCompared}); unknown differences: ${report.unknownDifferences}; known differences: ${report.knownDifferences}.`,
    '',
    `Side runtimes: ${Object.entries(report.sides)
      .map(([n, s]) => `${n} start ${sec(s.startMs)} + scenarios ${sec(s.durationMs)} (${s.concurrency} at a time)`)
      .join('; ')}.`,
    '',
    ...(report.errors.length ? ['## Errors', '', ...report.errors.map((e) => `- ${cell(e)}`), ''] : []),
    ...(report.unsettledSteps.length
      ? ['## Steps that did not settle', '', ...report.unsettledSteps.map((e) => `- ${cell(e)}`), '']
      : []),
    `Known differences matched per rule: ${Object.entries(report.ruleMatches)
      .map(
        ([id, n]) =>
          `${id} ${n}${n === 0 && report.rulesThatMayMatchNothing?.[id] ? ' (may match nothing: timing)' : ''}`,
      )
      .join(', ')}.`,
    '',
    '## Agreement',
    '',
    '| scenario | step | objects | agree | TopologyReconciled (upstream / capi-serverless) | writes while settled (upstream / capi-serverless) |',
    '|---|---|---|---|---|---|',
    ...report.stepReports.map((s) => {
      const unknown = s.differences.filter((d) => !d.known).length;
      const known = s.differences.length - unknown;
      const agree = unknown === 0 ? (known ? `yes (${known} known)` : 'yes') : `**no** (${unknown})`;
      const settled = (ok: boolean) => (ok ? '' : ' (not settled)');
      return `| ${s.scenario} | ${cell(s.step)} | ${s.objects} | ${agree} | ${s.topologyReconciled.upstream}${settled(s.settled.upstream)} / ${s.topologyReconciled.capiServerless}${settled(s.settled.capiServerless)} | ${s.settledWrites.upstream} / ${s.settledWrites.capiServerless} |`;
    }),
    '',
  ];
  const writes = report.stepReports.filter(
    (s) => s.settledWriteDetails.upstream.length + s.settledWriteDetails.capiServerless.length > 0,
  );
  if (writes.length > 0) {
    out.push(
      '## Writes while settled',
      '',
      "Writes (not status, not dry runs) to the topology's objects while a side's normalised objects stayed unchanged (audit log).",
      '',
    );
    for (const s of writes)
      out.push(
        `- ${s.scenario} / ${s.step}: upstream: ${s.settledWriteDetails.upstream.join('; ') || 'none'}; capi-serverless: ${s.settledWriteDetails.capiServerless.join('; ') || 'none'}`,
      );
    out.push('');
  }
  out.push('## Differences', '');
  for (const s of report.stepReports) {
    if (s.differences.length === 0) continue;
    out.push(
      `### ${s.scenario} / ${s.step}`,
      '',
      '| object | kind | path | upstream | capi-serverless | known |',
      '|---|---|---|---|---|---|',
    );
    for (const d of s.differences)
      out.push(
        `| ${d.object} | ${d.kind ?? ''} | \`${cell(d.path)}\` | \`${cell(show(d.upstream))}\` | \`${cell(show(d.capiServerless))}\` | ${d.rule ? `${d.rule}: ${cell(d.known ?? '')}` : ''} |`,
      );
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
