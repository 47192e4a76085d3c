// The measured profile the cost model scales (shared/pricing/measured-profile.ts), computed from the committed
// bench results: a side-by-side run (per change type, idle, invocations, wake-ups), `npm run bench` (DynamoDB units,
// module load, the webhook proxy) and the forwarder bench (its RSS and CPU at each count of watched objects). Pure: the
// parsed results and their file names are arguments; print-profile.ts is the command.
import type { ChangeFigures, ChangeType, MeasuredProfile } from '#shared/pricing/measured-profile-types.ts';
import type { FunctionsStats } from './functions-process.ts';
import type { PhaseReport, SideBenchResult } from './side-report.ts';

/** The phase of a side-by-side run each change type is measured in (creation: create and addons-setup). */
const phaseOf: Record<Exclude<ChangeType, 'create'>, string> = {
  variable: 'variable change',
  scale: 'scale-up',
  upgrade: 'version upgrade',
  crs: 'ClusterResourceSet change (fleet)',
  class: 'ClusterClass change (fleet)',
};

/** Admission calls per write the registered webhooks match (mutating + validating; bindings: validating only). */
const admissionCallsPerWrite: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'cluster.x-k8s.io/clusters': { create: 2, update: 2, patch: 2 },
  'cluster.x-k8s.io/clusterclasses': { create: 2, update: 2, patch: 2, delete: 1 },
  'addons.cluster.x-k8s.io/clusterresourcesets': { create: 2, update: 2, patch: 2 },
  'addons.cluster.x-k8s.io/clusterresourcesetbindings': { update: 1, patch: 1 },
  'runtime.cluster.x-k8s.io/extensionconfigs': { create: 2, update: 2, patch: 2 },
};

/** Answers given before admission runs (authentication, authorization, a missing object): no webhook call. */
const beforeAdmission = new Set([401, 403, 404]);

/** Admission calls a phase's audit log implies: the writes the webhook configurations match, any user. */
function countAdmissionWrites(phase: PhaseReport): number {
  return (phase.breakdown ?? []).reduce(
    (n, row) =>
      n + (beforeAdmission.has(row.code) ? 0 : (admissionCallsPerWrite[row.resource]?.[row.verb] ?? 0) * row.count),
    0,
  );
}

export type BenchResult = {
  date: string;
  measurements: {
    bundles: Record<string, { bytes?: number; loadMedianMs?: number }>;
    skip: { topology: { meanDurationMs: number; max: { dynamodb: { readUnits: number } } } };
    forced: { topology: { max: { dynamodb: { readUnits: number; writeUnits: number } } } };
    ticks: Record<string, { dynamodb: { readUnits: number } }>;
  };
};

const round = (v: number) => Math.round(v * 10_000) / 10_000;
const roundTenth = (v: number) => Math.round(v * 10) / 10;

/**
 * `test/bench/measure-forwarder-only.ts`'s result (BENCH_FORWARDER_OUT), or the same runs under `after` (a before /
 * after comparison, as forwarder-lean.json keeps them).
 */
export type ForwarderBenchResult = {
  readonly date?: string;
  readonly machine?: { readonly cpuModel?: string; readonly cpus?: number };
  readonly settings?: { readonly idleSeconds?: number };
  readonly runs?: readonly ForwarderRun[];
  readonly after?: {
    readonly date?: string;
    readonly settings?: { readonly idleSeconds?: number };
    readonly runs: readonly ForwarderRun[];
  };
};
type ForwarderRun = {
  readonly watchedObjects: number;
  readonly rssMiB: number;
  /** RSS at the end of the idle window, once V8's memory reducer shrank the heap (absent in older results). */
  readonly idleRssMiB?: number;
  readonly nodeFlags?: readonly string[];
  /** Absent in results from before the bench measured CPU. */
  readonly cpu?: {
    readonly idleCpuSecondsPerHour: number;
    readonly burst: { readonly cpuMsPerEntry: number };
  };
};

/** `test/bench/measure-init.ts`'s result (the figures the profile reads). */
export type InitBenchResult = {
  readonly date: string;
  readonly machine: string;
  readonly loadAverage: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly functions: Readonly<
    Record<
      string,
      {
        readonly initMs: { readonly median: number };
        readonly samples: readonly {
          readonly coldMs: number;
          readonly warmMs: number;
          readonly loadAverage1m: number;
        }[];
      }
    >
  >;
};

/** `test/bench/measure-webhooks.ts`'s result (the figures the profile reads). */
export type WebhooksBenchResult = {
  readonly date: string;
  readonly machine: string;
  readonly samples: number;
  readonly loadAverage: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly all: {
    readonly calls: number;
    readonly billedMs: number;
    readonly durationMs: { readonly mean: number };
    readonly cpuMs: { readonly mean: number };
  };
};

/** `test/bench/measure-passes-rie.ts`'s result (the figures the profile reads). */
export type PassesBenchResult = {
  readonly date: string;
  readonly machine: string;
  readonly samples: number;
  readonly loadAverage: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly functions: Readonly<
    Record<
      string,
      {
        readonly maxRssMiB: number;
        readonly cold?: { readonly initAndInvocationCpuMs: number };
        readonly passes: Readonly<
          Record<string, { readonly invocations: number; readonly billedMs: number; readonly cpuMs: { mean: number } }>
        >;
      }
    >
  >;
};

export type ProfileSources = {
  readonly side: { readonly file: string; readonly result: SideBenchResult };
  /**
   * A side-by-side run (side B is enough) that counted the one-time schedules, when `side` did not: the wake-ups
   * per change type and idle hour come from it.
   */
  readonly wakeUps?: { readonly file: string; readonly result: SideBenchResult };
  /**
   * A later run (side B is enough) whose capi-serverless counts per change type (invocations, passes, forwarder
   * entries, webhook calls, fanned-out batches) replace `side`'s: counts do not depend on the machine's speed the way
   * durations do, so a smaller run on a loaded machine can update them while the durations, the idle window and A's
   * figures stay `side`'s.
   */
  readonly counts?: { readonly file: string; readonly result: SideBenchResult };
  /**
   * A later run (side B is enough) with a longer idle window whose capi-serverless idle counts (invocations, forwarder
   * entries, webhook calls and one-time schedules per Cluster-hour) replace `side`'s; A's idle figures (the replaced
   * controllers' CPU and memory) stay `side`'s.
   */
  readonly idle?: { readonly file: string; readonly result: SideBenchResult };
  readonly bench: { readonly file: string; readonly result: BenchResult };
  /** `test/bench/measure-init.ts`'s result: INIT and cold invocations in the Lambda runtime emulator. */
  readonly init?: { readonly file: string; readonly result: InitBenchResult };
  /** `test/bench/measure-passes-rie.ts`'s result: topology and addons passes in the emulator. */
  readonly passes?: { readonly file: string; readonly result: PassesBenchResult };
  /** `test/bench/measure-webhooks.ts`'s result: the webhooks function's admission calls in the emulator. */
  readonly webhooks?: { readonly file: string; readonly result: WebhooksBenchResult };
  readonly forwarder: { readonly file: string; readonly result: ForwarderBenchResult };
};

/**
 * @example
 * computeMeasuredProfile({ side: { file, result }, bench: { file, result }, forwarder: { file, result } });
 */
export function computeMeasuredProfile(sources: ProfileSources): MeasuredProfile {
  const { file, result } = sources.side;
  const { file: benchFile, result: bench } = sources.bench;
  const [a, b] = [result.sides.A, result.sides.B];
  if (!a || !b || !b.functions) throw new Error('the result needs both sides and the functions counters');
  const n = Number(result.config['clusters']);
  const phase = (side: typeof a, name: string) => side.phases.find((p) => p.name === name && !p.error);
  const [before, afterIdle, end] = [b.functions.beforeIdle, b.functions.afterIdle, b.functions.end] as FunctionsStats[];
  if (!before || !afterIdle || !end) throw new Error('no functions counters');
  const sum = (
    s: FunctionsStats,
    f: 'events' | 'ticks' | 'fanOuts' | 'wakeUps' | 'durationMs' | 'tickDurationMs' | 'wakeUpDurationMs',
  ) => Object.values(s.invocations).reduce((t, r) => t + (r[f] ?? 0), 0);
  // NOTE: a run before wake-ups were counted has no `schedules`: the model then takes its upper bound.
  const wake = computeWakeUps(sources.wakeUps ?? sources.counts ?? sources.side);
  const otherMs = (s: FunctionsStats) => sum(s, 'tickDurationMs') + sum(s, 'wakeUpDurationMs');
  const coreCpu = (p: PhaseReport | undefined) => p?.cpuSeconds['upstream core'] ?? 0;
  const idleA = phase(a, 'idle');
  const idleB = phase(b, 'idle');
  if (!idleA || !idleB) throw new Error('no idle phase');
  const idleHours = idleB.durationMs / 3_600_000;
  const date = result.date.slice(0, 10);

  const counts = computeChangeCounts(sources.counts ?? sources.side);
  const changeMs = sum(end, 'durationMs') - otherMs(end) - (sum(afterIdle, 'durationMs') - otherMs(afterIdle));
  const changeInvocations =
    sum(end, 'events') + sum(end, 'fanOuts') - sum(afterIdle, 'events') - sum(afterIdle, 'fanOuts');

  const changes = Object.fromEntries(
    Object.entries(phaseOf).map(([type, name]): [string, ChangeFigures | 'not measured'] => {
      const pb = counts.changes[name];
      const pa = phase(a, name);
      if (!pb || !pa) return [type, 'not measured'];
      return [
        type,
        {
          ...pb,
          replacedCpuSeconds: round(
            Math.max(0, coreCpu(pa) - coreCpu(phase(b, name))) / (phase(b, name)?.changes ?? 1),
          ),
          ...(wake?.changes[name] ?? {}),
        },
      ];
    }),
  ) as Record<Exclude<ChangeType, 'create'>, ChangeFigures | 'not measured'>;

  const created = ['create', 'addons-setup'].map((name) => phase(b, name));
  const createdA = ['create', 'addons-setup'].map((name) => phase(a, name));
  const createInvocations = sum(before, 'events') + sum(before, 'fanOuts');
  const create: ChangeFigures = {
    ...counts.create,
    replacedCpuSeconds: round(
      Math.max(0, createdA.reduce((t, p) => t + coreCpu(p), 0) - created.reduce((t, p) => t + coreCpu(p), 0)) / n,
    ),
    ...(wake?.create ?? {}),
  };
  const idleTicks = sum(afterIdle, 'ticks') - sum(before, 'ticks');
  const fw = sources.forwarder;
  const fwRuns = fw.result.after?.runs ?? fw.result.runs ?? [];
  if (fwRuns.length === 0) throw new Error(`${fw.file} has no forwarder runs`);
  const fwDate = fw.result.after?.date ?? fw.result.date ?? '';
  const fwMachine = `${fw.result.machine?.cpus ?? '?'} × ${fw.result.machine?.cpuModel ?? 'unknown CPU'}`;
  const fwCpu = fwRuns.flatMap((r) => (r.cpu ? [{ watchedObjects: r.watchedObjects, cpu: r.cpu }] : []));
  if (fwCpu.length === 0)
    throw new Error(`${fw.file} has no forwarder CPU figures (run the bench with an idle window)`);
  const m = bench.measurements;
  const largest = Object.entries(m.bundles)
    .filter(([, v]) => v.bytes !== undefined)
    .sort(([, x], [, y]) => (y.bytes ?? 0) - (x.bytes ?? 0))[0];
  return {
    basis: `${file}, ${n} Clusters per side, ${date}, ${result.machine}`,
    changes: { ...changes, create },
    splits: [
      ...(wake
        ? [
            `one-time schedules (wake-ups) and requeues per change type: ${wake.source} (each schedule created fires once: counted when created, in the phase whose pass asked for it)`,
          ]
        : []),
      ...(sources.counts
        ? [
            `capi-serverless counts per change type (invocations, passes, forwarder entries, webhook calls, fanned-out batches): ${counts.source}; durations, the idle window and A's figures: ${file}`,
          ]
        : []),
      counts.split,
      `invocation durations are recorded over the change phases together (mean per invocation) and over creation${sources.counts ? `, in ${file}` : ''}`,
    ],
    idle: {
      ...computeIdleCounts(sources.idle ?? sources.side),
      replacedCpuSecondsPerHour: round(Math.max(0, coreCpu(idleA) - coreCpu(idleB)) / idleHours),
      replacedRssMiB: round(
        Math.max(0, (idleA.memory['upstream core']?.meanMiB ?? 0) - (idleB.memory['upstream core']?.meanMiB ?? 0)),
      ),
      ...(sources.idle
        ? {
            source: `B: ${computeIdleCounts(sources.idle).source}; A: ${file}, idle window (${(idleA.durationMs / 60_000).toFixed(0)} min)`,
          }
        : {}),
      ...(wake && !sources.idle ? { wakeUpsPerClusterHour: wake.idlePerClusterHour } : {}),
    },
    invocationMs: {
      change: round(changeInvocations > 0 ? changeMs / changeInvocations : 0),
      create: round((sum(before, 'durationMs') - otherMs(before)) / Math.max(1, createInvocations)),
      tick: round(idleTicks > 0 ? (sum(afterIdle, 'tickDurationMs') - sum(before, 'tickDurationMs')) / idleTicks : 0),
      // NOTE: a woken invocation's duration only from the run the other durations come from (same machine and load).
      ...(wake?.meanMs !== undefined && !sources.wakeUps ? { wakeUp: wake.meanMs } : {}),
    },
    ...(sources.passes ? { passMs: computePassMs(sources.passes) } : {}),
    webhookCallMs: sources.webhooks
      ? computeWebhookCallMs(sources.webhooks)
      : {
          value: round(m.skip.topology.meanDurationMs),
          basis: 'proxy',
          source: `not measured for the webhooks function; proxy: a skipped topology pass (reads the Cluster and its ClusterClass, as a Cluster admission call does), mean, ${benchFile} ${bench.date}`,
        },
    coldStartMs: computeColdStartMs(sources.init, largest, benchFile, bench.date),
    forwarder: {
      source: `${fw.file} ${fwDate.slice(0, 10)}: the forwarder bundled and run as its image (${fwRuns[0]?.nodeFlags?.join(' ') ?? 'its CMD flags'}), ${fwMachine}${fwRuns.some((r) => r.idleRssMiB !== undefined) ? `; RSS after ${fw.result.after?.settings?.idleSeconds ?? fw.result.settings?.idleSeconds ?? '?'} s idle` : ''}; CPU idle over that window and per entry in a burst of Cluster spec changes`,
      // NOTE: the RSS the pod holds for the month: after the idle window where measured, not the higher figure just
      // after the first LISTs (which the memory limit, not the request, has to cover).
      rss: fwRuns.map((r) => ({ watchedObjects: r.watchedObjects, rssMiB: roundTenth(r.idleRssMiB ?? r.rssMiB) })),
      idleCpu: fwCpu.map((r) => ({ watchedObjects: r.watchedObjects, cpuSecondsPerHour: r.cpu.idleCpuSecondsPerHour })),
      cpuMsPerEntry: Math.max(...fwCpu.map((r) => r.cpu.burst.cpuMsPerEntry)),
    },
    dynamoDb: {
      source: `${benchFile} ${bench.date}: a forced topology pass, a skipped one, a round of the three ticks (1 unit per read request)`,
      passRunReadUnits: m.forced.topology.max.dynamodb.readUnits,
      passRunWriteUnits: m.forced.topology.max.dynamodb.writeUnits,
      passSkippedReadUnits: m.skip.topology.max.dynamodb.readUnits,
      tickReadUnits: round(
        Object.values(m.ticks).reduce((t, x) => t + x.dynamodb.readUnits, 0) / Math.max(1, Object.keys(m.ticks).length),
      ),
    },
  };
}

/** Side B's counts per Cluster-hour over a run's idle window. */
function computeIdleCounts(run: { readonly file: string; readonly result: SideBenchResult }) {
  const b = run.result.sides.B;
  const idle = b?.phases.find((p) => p.name === 'idle' && !p.error);
  const [before, after] = [b?.functions?.beforeIdle, b?.functions?.afterIdle] as (FunctionsStats | undefined)[];
  if (!idle || !before || !after) throw new Error(`${run.file}: no idle window with the functions counters on side B`);
  const n = Number(run.result.config['clusters']);
  const perClusterHour = (count: number) => round(count / n / (idle.durationMs / 3_600_000));
  const invocations = (s: FunctionsStats) =>
    Object.values(s.invocations).reduce((t, r) => t + r.events + (r.fanOuts ?? 0), 0);
  const counted = idle.functions?.schedules;
  const schedules = counted === undefined ? undefined : counted.created - (counted.deleted ?? 0);
  return {
    source: `${run.file}, idle window (${(idle.durationMs / 60_000).toFixed(0)} min, ${n} Clusters)`,
    eventInvocationsPerClusterHour: perClusterHour(invocations(after) - invocations(before)),
    forwarderEventsPerClusterHour: perClusterHour(after.eventsReceived - before.eventsReceived),
    webhookCallsPerClusterHour: perClusterHour(after.webhookCalls - before.webhookCalls),
    ...(schedules === undefined ? {} : { wakeUpsPerClusterHour: perClusterHour(schedules) }),
  };
}

type WakeUpFigures = {
  readonly source: string;
  /** Per phase name: schedules created (less those deleted before they fired) and requeued passes per converged change. */
  readonly changes: Readonly<Record<string, { readonly wakeUps: number; readonly requeues: number }>>;
  readonly create: { readonly wakeUps: number; readonly requeues: number };
  readonly idlePerClusterHour: number;
  readonly meanMs?: number;
};

/** The one-time schedules a run's side B counted per phase; undefined for a run that did not count them. */
function computeWakeUps(run: { readonly file: string; readonly result: SideBenchResult }): WakeUpFigures | undefined {
  const b = run.result.sides.B;
  const end = b?.functions?.end as FunctionsStats | undefined;
  if (!b || end?.schedules === undefined) return undefined;
  const n = Number(run.result.config['clusters']);
  const phase = (name: string) => b.phases.find((p) => p.name === name && !p.error);
  // NOTE: a schedule deleted before it fired (its pass succeeded first) costs neither invocation: counted as created
  // less deleted (runs before deletes existed counted none, so their figures and this split's wording stand).
  const toFire = (p: PhaseReport | undefined) =>
    (p?.functions?.schedules?.created ?? 0) - (p?.functions?.schedules?.deleted ?? 0);
  const per = (phases: readonly (PhaseReport | undefined)[], count: number) => ({
    wakeUps: round(phases.reduce((t, p) => t + toFire(p), 0) / count),
    requeues: round(phases.reduce((t, p) => t + (p?.functions?.passes.requeued ?? 0), 0) / count),
  });
  const changes = Object.fromEntries(
    Object.values(phaseOf).flatMap((name) => {
      const p = phase(name);
      return p?.functions && p.changes > 0 ? [[name, per([p], p.changes)]] : [];
    }),
  );
  const idle = phase('idle');
  const woken = Object.values(end.invocations).reduce((t, r) => t + (r.wakeUps ?? 0), 0);
  const wokenMs = Object.values(end.invocations).reduce((t, r) => t + (r.wakeUpDurationMs ?? 0), 0);
  return {
    source: `${run.file} (side B, ${n} Clusters, ${run.result.date.slice(0, 10)}, ${run.result.machine})`,
    changes,
    create: per([phase('create'), phase('addons-setup')], n),
    idlePerClusterHour: idle ? round(toFire(idle) / n / (idle.durationMs / 3_600_000)) : 0,
    ...(woken > 0 ? { meanMs: round(wokenMs / woken) } : {}),
  };
}

type ChangeCounts = {
  readonly source: string;
  /** How the counts recorded over several phases together were split between them. */
  readonly split: string;
  /** Per phase name: capi-serverless's counts per converged change (A's CPU is added by the caller). */
  readonly changes: Readonly<Record<string, Omit<ChangeFigures, 'replacedCpuSeconds'>>>;
  readonly create: Omit<ChangeFigures, 'replacedCpuSeconds'>;
};

/** Side B's counts per converged change of each change phase and of creation in one run. */
function computeChangeCounts(run: { readonly file: string; readonly result: SideBenchResult }): ChangeCounts {
  const { file, result } = run;
  const b = result.sides.B;
  if (!b?.functions) throw new Error(`${file}: no side B with the functions counters`);
  const n = Number(result.config['clusters']);
  const phase = (name: string) => b.phases.find((p) => p.name === name && !p.error);
  const [before, afterIdle, end] = [b.functions.beforeIdle, b.functions.afterIdle, b.functions.end] as FunctionsStats[];
  if (!before || !afterIdle || !end) throw new Error(`${file}: no functions counters`);
  const sum = (s: FunctionsStats, f: 'events' | 'fanOuts') =>
    Object.values(s.invocations).reduce((t, r) => t + (r[f] ?? 0), 0);
  const invocationsOf = (p: PhaseReport) =>
    Object.values(p.functions?.invocations ?? {}).reduce((t, r) => t + r.events + (r.fanOuts ?? 0), 0);
  const fanOutsOf = (p: PhaseReport) =>
    Object.values(p.functions?.invocations ?? {}).reduce((t, r) => t + (r.fanOuts ?? 0), 0);
  // NOTE: forwarder entries and webhook calls are counted over the whole run only (before idle, after idle, end):
  // the change phases' totals are split between them in proportion to each phase's event invocations (entries) and
  // to the admission calls its audit log implies (the writes the webhook configurations match).
  const changePhases = Object.values(phaseOf).map(phase);
  const forwarderInChanges = end.eventsReceived - afterIdle.eventsReceived;
  const webhooksInChanges = end.webhookCalls - afterIdle.webhookCalls;
  const eventsOnly = (p: PhaseReport | undefined) => (p ? invocationsOf(p) - fanOutsOf(p) : 0);
  const allEvents = changePhases.reduce((t, p) => t + eventsOnly(p), 0);
  const allAdmission = changePhases.reduce((t, p) => t + (p ? countAdmissionWrites(p) : 0), 0);
  // NOTE: a run that counted them per phase (FunctionCounts.webhookCalls, eventsReceived) needs no split.
  const measuredPerPhase = changePhases.every(
    (p) =>
      p?.functions === undefined ||
      (p.functions.webhookCalls !== undefined && p.functions.eventsReceived !== undefined),
  );
  const changes = Object.fromEntries(
    Object.values(phaseOf).flatMap((name) => {
      const pb = phase(name);
      if (!pb?.functions || pb.changes === 0) return [];
      const c = pb.changes;
      const measured = measuredPerPhase
        ? {
            forwarderEvents: round((pb.functions.eventsReceived ?? 0) / c),
            webhookCalls: round((pb.functions.webhookCalls ?? 0) / c),
          }
        : undefined;
      return [
        [
          name,
          {
            source: `${file}, phase "${name}", ${c} Cluster-changes`,
            clusterChanges: c,
            eventInvocations: round(invocationsOf(pb) / c),
            passesRun: round(pb.functions.passes.ran / c),
            passesSkipped: round(pb.functions.passes.skipped / c),
            passErrors: round(pb.functions.passes.errors / c),
            forwarderEvents:
              measured?.forwarderEvents ?? round((forwarderInChanges * eventsOnly(pb)) / Math.max(1, allEvents) / c),
            fanOutEntries: round(fanOutsOf(pb) / c),
            webhookCalls:
              measured?.webhookCalls ??
              round((webhooksInChanges * countAdmissionWrites(pb)) / Math.max(1, allAdmission) / c),
          },
        ],
      ];
    }),
  );
  const created = ['create', 'addons-setup'].map(phase);
  return {
    source: `${file} (side B, ${n} Clusters, ${result.date.slice(0, 10)}, ${result.machine})`,
    split: measuredPerPhase
      ? `forwarder entries (${forwarderInChanges}) and webhook calls (${webhooksInChanges}) over the change phases are counted per phase`
      : `forwarder entries (${forwarderInChanges}) and webhook calls (${webhooksInChanges}) are counted over the change phases together: split between them in proportion to each phase's object-change invocations and to the admission calls its audit log implies (writes the webhook configurations match, ${allAdmission} in all)`,
    changes,
    create: {
      source: `${file}, phases "create" + "addons-setup", ${n} Clusters created`,
      clusterChanges: n,
      eventInvocations: round((sum(before, 'events') + sum(before, 'fanOuts')) / n),
      passesRun: round(created.reduce((t, p) => t + (p?.functions?.passes.ran ?? 0), 0) / n),
      passesSkipped: round(created.reduce((t, p) => t + (p?.functions?.passes.skipped ?? 0), 0) / n),
      passErrors: round(created.reduce((t, p) => t + (p?.functions?.passes.errors ?? 0), 0) / n),
      forwarderEvents: round(before.eventsReceived / n),
      fanOutEntries: round(sum(before, 'fanOuts') / n),
      webhookCalls: round(before.webhookCalls / n),
    },
  };
}

/**
 * The ms a cold start adds: from the emulator run when given (median INIT + median of each sample's cold minus warm
 * invocation), else the module load of the largest bundle for both (INIT without the runtime's own start).
 */
function computeColdStartMs(
  init: ProfileSources['init'],
  largest: [string, { bytes?: number; loadMedianMs?: number }] | undefined,
  benchFile: string,
  benchDate: string,
): MeasuredProfile['coldStartMs'] {
  if (!init) {
    const value = round(largest?.[1].loadMedianMs ?? 0);
    return {
      controller: value,
      webhooks: value,
      source: `module load of the largest bundle (${largest?.[0]}, ${((largest?.[1].bytes ?? 0) / 1e6).toFixed(2)} MB), median on one CPU, ${benchFile} ${benchDate}`,
    };
  }
  const { file, result } = init;
  const of = (name: string) => {
    const fn = result.functions[name];
    if (!fn) throw new Error(`${file}: no ${name} function`);
    const extra = fn.samples.map((s) => Math.max(0, s.coldMs - s.warmMs)).sort((x, y) => x - y);
    const median = extra[Math.max(0, Math.ceil(extra.length / 2) - 1)] ?? 0;
    const loads = fn.samples.map((s) => s.loadAverage1m);
    return {
      ms: round(fn.initMs.median + median),
      text: `${name} INIT ${fn.initMs.median.toFixed(0)} ms + first invocation ${median.toFixed(0)} ms over a warm one (medians of ${fn.samples.length}, load average ${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)})`,
    };
  };
  const [controller, webhooks] = [of('topology'), of('webhooks')];
  return {
    controller: controller.ms,
    webhooks: webhooks.ms,
    source: `${file} ${result.date.slice(0, 10)}, the bundles in aws-lambda-rie + aws-lambda-ric on Node 22, ${result.machine}: ${controller.text}; ${webhooks.text}`,
  };
}

function computeWebhookCallMs({
  file,
  result,
}: NonNullable<ProfileSources['webhooks']>): MeasuredProfile['webhookCallMs'] {
  const loads = [...result.loadAverage.before.slice(0, 1), ...result.loadAverage.after.slice(0, 1)];
  return {
    value: round(result.all.billedMs),
    basis: 'measured',
    cpuMs: round(result.all.cpuMs.mean),
    source: `${file} ${result.date.slice(0, 10)}, the webhooks bundle in aws-lambda-rie + aws-lambda-ric on Node 22 against a real kube-apiserver, ${result.machine}: ${result.all.calls} Cluster admission calls (a variable change, a version upgrade, a replica change, an annotation; each /mutate then /validate, ${result.samples} samples spaced beyond the ClusterClass cache TTL), mean ${round(result.all.durationMs.mean)} ms, billed ${round(result.all.billedMs)} ms (rounded up per call), CPU ${round(result.all.cpuMs.mean)} ms (load average ${loads.join('–')})`,
  };
}

/**
 * A pass of each kind, the mean over every function that measured it (each function's samples weighed alike): billed
 * ms and CPU ms; the CPU of INIT and the first invocation and the peak RSS, the largest of the functions.
 */
function computePassMs({
  file,
  result,
}: NonNullable<ProfileSources['passes']>): NonNullable<MeasuredProfile['passMs']> {
  const functions = Object.keys(result.functions);
  const kind = (name: string) => {
    const measured = functions.flatMap((f) => {
      const p = result.functions[f]?.passes[name];
      return p ? [p] : [];
    });
    if (measured.length === 0) throw new Error(`${file}: no ${name} passes`);
    const mean = (v: (p: (typeof measured)[number]) => number) =>
      round(measured.reduce((t, p) => t + v(p), 0) / measured.length);
    return { billedMs: mean((p) => p.billedMs), cpuMs: mean((p) => p.cpuMs.mean), of: measured.length };
  };
  const [change, create, skip] = [kind('change'), kind('create'), kind('skip')];
  const all = Object.values(result.functions);
  const loads = [...result.loadAverage.before.slice(0, 1), ...result.loadAverage.after.slice(0, 1)];
  const text = (name: string, k: typeof change) => `${name} ${k.billedMs} ms billed, CPU ${k.cpuMs} ms`;
  return {
    change: { billedMs: change.billedMs, cpuMs: change.cpuMs },
    create: { billedMs: create.billedMs, cpuMs: create.cpuMs },
    skip: { billedMs: skip.billedMs, cpuMs: skip.cpuMs },
    coldCpuMs: Math.max(...all.map((f) => f.cold?.initAndInvocationCpuMs ?? 0)),
    maxRssMiB: Math.max(...all.map((f) => f.maxRssMiB)),
    functions,
    source: `${file} ${result.date.slice(0, 10)}, the ${functions.join(' and ')} bundles in aws-lambda-rie + aws-lambda-ric on Node 22 against a real kube-apiserver and DynamoDB Local, ${result.machine}, ${result.samples} samples of each pass (load average ${loads.join('–')}): ${text('a change pass', change)}; ${text("a new Cluster's first pass", create)}; ${text('a skipped pass', skip)}`,
  };
}
