// `npm run bench:side`: two twin fleets of N Clusters from upstream's in-memory ClusterClass, one after the other on
// the same machine in one run (upstream's Docker in-memory manager binds a fixed port):
// - A, upstream: upstream v1.14's managers with their own topology and ClusterResourceSet controllers;
// - B, capi-serverless: the same managers in the handoff configuration (those controllers off) plus capi-serverless:
//   the forwarder and the functions (behind the local bus, DynamoDB Local) as two processes of their own.
// Requests are counted at the API server (its audit log, per user), CPU-seconds and memory per process from /proc.
// Phases: create the fleet; a real idle window; scripted changes on a few Clusters one at a time (a variable, a
// scale-up, a version upgrade), each from the user's write to converged; a ClusterResourceSet change and a fleet-wide
// ClusterClass change reaching every Cluster. Writes test/bench/results/side-by-side.{json,md}, with every pass error
// and failed invocation of side B's functions (time, controller, object, phase, message; compute-pass-errors.ts).
import { writeFileSync } from 'node:fs';
import { errorMessage } from '#shared/errors/index.ts';
import {
  acquireExclusiveLock,
  dockerInMemoryPortLock,
  type ExclusiveLock,
} from '#test/support/harness/exclusive-lock.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { percentile } from '#test/bench/stats.ts';
import {
  computeRequestBreakdown,
  computeRequestCounts,
  isCountedEvent,
  type BenchAuditEvent,
} from './count-requests.ts';
import { computePassErrorPhases } from './compute-pass-errors.ts';
import { componentOf, startSide } from './start-side.ts';
import { applyAddons, prepareWorkloadClusters, waitForAddon } from './side-addons.ts';
import {
  applyAsUser,
  clusterNames,
  computeFleetClass,
  computeFleetCluster,
  fleetNamespace,
  fromVersion,
  predicates,
  toVersion,
  waitForFleet,
  type ClusterIntent,
  type Predicate,
} from './side-fleet.ts';
import {
  computeFunctionCounts,
  computeSideMarkdown,
  type FunctionCounts,
  type SideBenchResult,
  type SideName,
  type SideReport,
  type PhaseReport,
} from './side-report.ts';

const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const config = {
  clusters: envNumber('BENCH_SIDE_CLUSTERS', 10),
  idleMs: envNumber('BENCH_SIDE_IDLE_MS', 600_000),
  changed: envNumber('BENCH_SIDE_CHANGED', 3),
  tickMs: envNumber('BENCH_SIDE_TICK_MS', 300_000),
  tailMs: envNumber('BENCH_SIDE_TAIL_MS', 15_000),
  sides: (process.env['BENCH_SIDE_ONLY'] ?? 'A,B').split(',') as SideName[],
  /** The change phases after the idle window, by short name (all by default). */
  changes: (process.env['BENCH_SIDE_CHANGES'] ?? 'variable,scale-up,upgrade,crs,class').split(',').filter(Boolean),
  /**
   * Side B: passes that ask to run again get one-time schedules on a Scheduler API (moto), fired when due, as the
   * public variant deploys them (BENCH_WAKE_UPS=0: none; a tick runs them, as in private subnets).
   */
  wakeUps: process.env['BENCH_WAKE_UPS'] !== '0',
};
const changePhases = ['variable', 'scale-up', 'upgrade', 'crs', 'class'];
for (const c of config.changes)
  if (!changePhases.includes(c)) throw new Error(`BENCH_SIDE_CHANGES: unknown phase ${c} (${changePhases.join(', ')})`);
const runs = (change: string) => config.changes.includes(change);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

type PhaseDraft = {
  name: string;
  from: number;
  to: number;
  changes: number;
  latenciesMs: number[];
  error?: string;
  functions?: FunctionCounts;
};

/** The functions process's counters (side B), undefined on side A. */
async function fetchStats(statsUrl: string | undefined): Promise<unknown> {
  return statsUrl ? await (await fetch(statsUrl)).json() : undefined;
}

async function runPhase(
  phases: PhaseDraft[],
  name: string,
  changes: number,
  body: (latencies: number[]) => Promise<void>,
  statsUrl?: string,
): Promise<void> {
  const draft: PhaseDraft = { name, from: Date.now(), to: 0, changes, latenciesMs: [] };
  phases.push(draft);
  log(`  phase ${name}`);
  const statsFrom = await fetchStats(statsUrl);
  try {
    await body(draft.latenciesMs);
  } catch (err) {
    draft.error = errorMessage(err).slice(0, 2_000);
    log(`  phase ${name} FAILED: ${draft.error}`);
  }
  const functions = computeFunctionCounts(statsFrom, await fetchStats(statsUrl));
  if (functions) draft.functions = functions;
  draft.to = Date.now();
}

async function runSide(side: SideName, heldPortLock: ExclusiveLock): Promise<SideReport> {
  const started = Date.now();
  log(`side ${side}: starting`);
  const running = await startSide(side, { tickMs: config.tickMs, heldPortLock });
  const { kube } = running;
  const names = clusterNames(config.clusters);
  const changedNames = names.slice(0, Math.min(config.changed, names.length));
  const intents = new Map<string, ClusterIntent>(names.map((n) => [n, { name: n, version: fromVersion, replicas: 1 }]));
  const phases: PhaseDraft[] = [];
  const phase = (name: string, changes: number, body: (latencies: number[]) => Promise<void>) =>
    runPhase(phases, name, changes, body, running.statsUrl);
  let statsBefore: unknown;
  try {
    await phase('create', config.clusters, async (latencies) => {
      const since = Date.now();
      await applyAsUser(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fleetNamespace } });
      for (const obj of computeFleetClass()) await applyAsUser(kube, obj);
      for (const name of names) await applyAsUser(kube, computeFleetCluster(intents.get(name)!));
      // NOTE: creating the fleet is CPU-bound on a small machine (about 150 CPU-seconds per 10 Clusters and side, most
      // of it the API server's): the timeout grows with N, and the driver's own LISTs of every Cluster poll less often.
      const done = await waitForFleet(kube, names, predicates.created, {
        since,
        timeoutMs: Math.max(20 * 60_000, config.clusters * 40_000),
        what: 'create',
        pollMs: config.clusters > 20 ? 5_000 : 1_000,
      });
      latencies.push(...done.values());
    });
    await phase('addons-setup', config.clusters, async (latencies) => {
      const since = Date.now();
      const clients = await prepareWorkloadClusters(kube, names);
      try {
        await applyAddons(kube, ['bench-addon-1']);
        latencies.push(...(await waitForAddon(clients, 'bench-addon-1', { since, timeoutMs: 10 * 60_000 })).values());
      } finally {
        for (const c of clients.values()) c.close();
      }
    });
    await sleep(30_000);
    statsBefore = running.statsUrl ? await (await fetch(running.statsUrl)).json() : undefined;
    await phase('idle', 0, async () => {
      await sleep(config.idleMs);
    });
    const statsIdle = running.statsUrl ? await (await fetch(running.statsUrl)).json() : undefined;

    const sequential = async (
      name: string,
      change: (i: ClusterIntent) => ClusterIntent,
      predicate: Predicate,
      timeoutMs: number,
    ) =>
      phase(name, changedNames.length, async (latencies) => {
        for (const cluster of changedNames) {
          const next = change(intents.get(cluster)!);
          intents.set(cluster, next);
          const since = Date.now();
          await applyAsUser(kube, computeFleetCluster(next));
          const done = await waitForFleet(kube, [cluster], predicate, { since, timeoutMs, what: name });
          latencies.push(...done.values());
        }
        await sleep(config.tailMs);
      });
    if (runs('variable'))
      await sequential(
        'variable change',
        (i) => ({ ...i, imageRepository: 'bench-registry' }),
        predicates.variableObserved('bench-registry'),
        5 * 60_000,
      );
    if (runs('scale-up'))
      await sequential('scale-up', (i) => ({ ...i, replicas: 2 }), predicates.replicas(2), 5 * 60_000);
    if (runs('upgrade'))
      await sequential(
        'version upgrade',
        (i) => ({ ...i, version: toVersion }),
        predicates.version(toVersion),
        10 * 60_000,
      );

    if (runs('crs'))
      await phase('ClusterResourceSet change (fleet)', config.clusters, async (latencies) => {
        const clients = await prepareWorkloadClusters(kube, names);
        try {
          const since = Date.now();
          await applyAddons(kube, ['bench-addon-1', 'bench-addon-2']);
          latencies.push(...(await waitForAddon(clients, 'bench-addon-2', { since, timeoutMs: 10 * 60_000 })).values());
        } finally {
          for (const c of clients.values()) c.close();
        }
        await sleep(config.tailMs);
      });
    if (runs('class'))
      await phase('ClusterClass change (fleet)', config.clusters, async (latencies) => {
        const since = Date.now();
        for (const obj of computeFleetClass('fleet-wide')) await applyAsUser(kube, obj);
        const done = await waitForFleet(kube, names, predicates.patchLabel('fleet-wide'), {
          since,
          timeoutMs: 15 * 60_000,
          what: 'ClusterClass change',
        });
        latencies.push(...done.values());
        await sleep(config.tailMs);
      });
    const statsEnd = running.statsUrl ? await (await fetch(running.statsUrl)).json() : undefined;
    running.meter.sample();
    // NOTE: only the one event per request the bench counts is kept, with what counting it needs.
    const events: BenchAuditEvent[] = [];
    running.audit.forEachEvent((raw) => {
      const e = raw as BenchAuditEvent;
      if (!isCountedEvent(e)) return;
      events.push({
        verb: e.verb,
        requestURI: e.requestURI,
        user: { username: e.user.username },
        ...(e.stage === undefined ? {} : { stage: e.stage }),
        ...(e.userAgent === undefined ? {} : { userAgent: e.userAgent }),
        ...(e.objectRef === undefined ? {} : { objectRef: e.objectRef }),
        ...(e.responseStatus === undefined ? {} : { responseStatus: e.responseStatus }),
        ...(e.requestReceivedTimestamp === undefined ? {} : { requestReceivedTimestamp: e.requestReceivedTimestamp }),
      } as BenchAuditEvent);
    });
    const dump = process.env['BENCH_SIDE_AUDIT_DUMP'];
    if (dump) {
      // NOTE: for a closer look at a window: every counted event of the run, one JSON line each, with its phase.
      const phaseAt = (at: number) => phases.find((p) => at >= p.from && at <= p.to)?.name ?? '';
      const lines = events
        .filter(isCountedEvent)
        .map((e) => JSON.stringify({ phase: phaseAt(Date.parse(e.requestReceivedTimestamp ?? '')), ...e }));
      writeFileSync(`${dump}-${side}.jsonl`, `${lines.join('\n')}\n`);
    }
    const reports: PhaseReport[] = phases.map((p) => {
      const keyOf = (e: BenchAuditEvent) => componentOf(e.user.username, e.userAgent);
      const requests = computeRequestCounts(events, p.from, p.to, keyOf);
      return {
        name: p.name,
        durationMs: p.to - p.from,
        changes: p.changes,
        ...(p.latenciesMs.length > 0
          ? {
              latencyMs: {
                p50: percentile(p.latenciesMs, 0.5),
                p99: percentile(p.latenciesMs, 0.99),
                max: Math.max(...p.latenciesMs),
                samples: p.latenciesMs.length,
              },
            }
          : {}),
        requests,
        breakdown: computeRequestBreakdown(events, p.from, p.to, keyOf),
        cpuSeconds: running.meter.cpuSeconds(p.from, p.to),
        memory: running.meter.memory(p.from, p.to),
        ...(p.error ? { error: p.error } : {}),
        ...(p.functions ? { functions: p.functions } : {}),
      };
    });
    const passErrors = running.passErrors ? computePassErrorPhases(running.passErrors(), phases) : undefined;
    for (const e of passErrors ?? []) log(`  ${e.phase ?? ''}: ${e.controller} ${e.what} ${e.object}: ${e.error}`);
    return {
      side,
      durationMs: Date.now() - started,
      phases: reports,
      ...(running.statsUrl ? { functions: { beforeIdle: statsBefore, afterIdle: statsIdle, end: statsEnd } } : {}),
      ...(passErrors ? { passErrors } : {}),
    };
  } finally {
    await running.stop();
    log(`side ${side}: stopped`);
  }
}

const started = Date.now();
const sides: Partial<Record<SideName, SideReport>> = {};
const suffix = process.env['BENCH_SIDE_OUT'] ?? 'side-by-side';
const resultsDir = new URL('../results/', import.meta.url);
const write = async () => {
  const result: SideBenchResult = {
    date: new Date(started).toISOString(),
    machine: machineDescription(),
    config,
    durationMs: Date.now() - started,
    sides,
  };
  await writeFormatted(new URL(`${suffix}.json`, resultsDir), JSON.stringify(result, null, 2));
  const markdown = computeSideMarkdown(result);
  await writeFormatted(new URL(`${suffix}.md`, resultsDir), markdown);
  return markdown;
};
// NOTE: both sides need upstream's Docker in-memory manager and its fixed port: the run holds the port's lock from
// the first side to the last, so another user cannot take it in between and leave the run half done.
const portLock = await acquireExclusiveLock(dockerInMemoryPortLock, {
  purpose: "upstream Docker in-memory manager's port 19000 (bench:side, both sides)",
  timeoutMs: 90 * 60_000,
});
try {
  for (const side of config.sides) {
    sides[side] = await runSide(side, portLock);
    // NOTE: written after each side, so a run stopped during the second keeps the first.
    await write();
  }
} finally {
  portLock.release();
}
process.stdout.write(`${await write()}\n`);
process.exit(0);
