// Prints the measured profile the cost model scales (shared/pricing/measured-profile.ts) from a side-by-side result:
// `node --import tsx test/bench/side/print-profile.ts [test/bench/results/side-by-side.json]`.
import { readFileSync } from 'node:fs';
import type { MeasuredProfile } from '#shared/pricing/compute-marginal-cost.ts';
import type { FunctionsStats } from './functions-process.ts';
import { isRequestsRecorded, type PhaseReport, type SideBenchResult } from './side-report.ts';

/** The forwarder's memory watching 10,002 objects, from `npm run bench` (test/bench/results/latest.json). */
const forwarderAt10k = { objects: 10_002, rssMiB: 86 };

const changePhases = [
  'variable change',
  'scale-up',
  'version upgrade',
  'ClusterResourceSet change (fleet)',
  'ClusterClass change (fleet)',
];

// NOTE: a fanned-out batch is an invocation (billed) started by a PutEvents entry (billed as a custom event).
const sumInvocations = (s: FunctionsStats, field: 'events' | 'ticks' | 'fanOuts' | 'durationMs' | 'tickDurationMs') =>
  Object.values(s.invocations).reduce((a, r) => a + (r[field] ?? 0), 0);
const eventInvocations = (s: FunctionsStats) => sumInvocations(s, 'events') + sumInvocations(s, 'fanOuts');

/**
 * @example
 * computeMeasuredProfile(JSON.parse(readFileSync('test/bench/results/side-by-side.json', 'utf8')));
 */
export function computeMeasuredProfile(result: SideBenchResult, file: string): MeasuredProfile {
  const [a, b] = [result.sides.A, result.sides.B];
  if (!a || !b || !b.functions) throw new Error('the result needs both sides and the functions counters');
  const n = Number(result.config['clusters']);
  const phase = (side: typeof a, name: string) => side.phases.find((p) => p.name === name);
  const idleA = phase(a, 'idle');
  const idleB = phase(b, 'idle');
  if (!idleA || !idleB) throw new Error('no idle phase');
  const idleHours = idleB.durationMs / 3_600_000;
  const before = b.functions.beforeIdle as FunctionsStats;
  const afterIdle = b.functions.afterIdle as FunctionsStats;
  const end = b.functions.end as FunctionsStats;
  const changes = (side: typeof a) =>
    changePhases.map((name) => phase(side, name)).filter((p): p is PhaseReport => p !== undefined && !p.error);
  const changeCount = changes(b).reduce((s, p) => s + p.changes, 0);
  const recorded = changes(b).filter(isRequestsRecorded);
  const sumOver = (phases: readonly PhaseReport[], f: (p: PhaseReport) => number) =>
    phases.reduce((s, p) => s + f(p), 0);
  const coreCpu = (p: PhaseReport) => p.cpuSeconds['upstream core'] ?? 0;
  const rss = (p: PhaseReport, name: string) => p.memory[name]?.meanMiB ?? 0;
  const forwarderRss = rss(idleB, 'capi-serverless forwarder');
  // NOTE: event invocations' duration over the change phases (after the idle window), ticks' over the whole run.
  const eventMs = (s: FunctionsStats) => sumInvocations(s, 'durationMs') - sumInvocations(s, 'tickDurationMs');
  const changeInvocations = eventInvocations(end) - eventInvocations(afterIdle);
  const idleTicks = sumInvocations(afterIdle, 'ticks') - sumInvocations(before, 'ticks');
  const idleTickMs = sumInvocations(afterIdle, 'tickDurationMs') - sumInvocations(before, 'tickDurationMs');
  return {
    basis: `${file}, ${n} Clusters per side, ${result.date.slice(0, 10)}, ${result.machine}`,
    idleInvocationsPerClusterHour: (eventInvocations(afterIdle) - eventInvocations(before)) / n / idleHours,
    invocationsPerChange: (eventInvocations(end) - eventInvocations(afterIdle)) / changeCount,
    eventsPerChange:
      (end.eventsReceived -
        afterIdle.eventsReceived +
        sumInvocations(end, 'fanOuts') -
        sumInvocations(afterIdle, 'fanOuts')) /
      changeCount,
    idleEventsPerClusterHour: (afterIdle.eventsReceived - before.eventsReceived) / n / idleHours,
    passesRunPerChange: (end.passes.ran - afterIdle.passes.ran) / changeCount,
    passesSkippedPerChange: (end.passes.skipped - afterIdle.passes.skipped) / changeCount,
    invocationMs: changeInvocations > 0 ? (eventMs(end) - eventMs(afterIdle)) / changeInvocations : 0,
    // NOTE: the ticks of the idle window, what most ticks of a month are (the run's others sweep a fleet being created).
    tickMs: idleTicks > 0 ? idleTickMs / idleTicks : 0,
    // NOTE: over the phases whose requests the audit log held (see isRequestsRecorded).
    functionRequestsPerChange:
      sumOver(recorded, (p) => p.requests['capi-serverless functions']?.total ?? 0) /
      Math.max(
        1,
        sumOver(recorded, (p) => p.changes),
      ),
    forwarderRssMiB: forwarderRss,
    forwarderRssMiBPerObject: Math.max(0, forwarderAt10k.rssMiB - forwarderRss) / forwarderAt10k.objects,
    forwarderCpuSecondsPerHour: (idleB.cpuSeconds['capi-serverless forwarder'] ?? 0) / idleHours,
    replacedRssMiB: rss(idleA, 'upstream core') - rss(idleB, 'upstream core'),
    // NOTE: at 0 when B's core manager used more CPU while idle than A's (noise of a shared machine), as for memory.
    replacedCpuSecondsPerHour: Math.max(0, (coreCpu(idleA) - coreCpu(idleB)) / idleHours),
    replacedCpuSecondsPerChange: Math.max(0, sumOver(changes(a), coreCpu) - sumOver(changes(b), coreCpu)) / changeCount,
  };
}

const file = process.argv[2] ?? 'test/bench/results/side-by-side.json';
const profile = computeMeasuredProfile(JSON.parse(readFileSync(file, 'utf8')) as SideBenchResult, file);
const round = (v: number) => Math.round(v * 10_000) / 10_000;
process.stdout.write(
  `${JSON.stringify(Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])), null, 2)}\n`,
);
