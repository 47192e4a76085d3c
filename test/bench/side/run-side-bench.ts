// `npm run bench:side`: two twin fleets of N Clusters from upstream's in-memory ClusterClass, one after the other on
// the same machine in one run (upstream's Docker in-memory manager binds a fixed port):
// - A, upstream: upstream v1.14's managers with their own topology and ClusterResourceSet controllers;
// - B, capi-serverless: the same managers in the handoff configuration (those controllers off) plus capi-serverless:
//   the forwarder and the functions (behind the local bus, DynamoDB Local) as two processes of their own.
// Requests are counted at the API server (its audit log, per user), CPU-seconds and memory per process from /proc.
// Phases: create the fleet; a real idle window; scripted changes on a few Clusters one at a time (a variable, a
// scale-up, a version upgrade), each from the user's write to converged; a ClusterResourceSet change and a fleet-wide
// ClusterClass change reaching every Cluster. Writes test/bench/results/side-by-side.{json,md}.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import { issueCertificate, renderKubeconfig } from '#test/support/harness/certs.ts';
import {
  acquireExclusiveLock,
  dockerInMemoryPortLock,
  type ExclusiveLock,
} from '#test/support/harness/exclusive-lock.ts';
import { startHarnessProcess, type HarnessProcess } from '#test/support/harness/processes.ts';
import {
  computeGatesForAllManagers,
  startUpstreamManagementCluster,
  upstreamManagerUsers,
  type UpstreamManager,
} from '#test/support/harness/upstream-capi.ts';
import { forwarderNodeFlags } from '#test/bench/measure-forwarder.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { percentile } from '#test/bench/stats.ts';
import {
  computeRequestBreakdown,
  computeRequestCounts,
  everyRequestAuditPolicy,
  isCountedEvent,
  type BenchAuditEvent,
} from './count-requests.ts';
import { findPids, startProcessMeter, withDescendants, type ProcessMeter } from './process-meter.ts';
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

/** The command line of `pid`, '' when it is gone. */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

const repoRoot = join(import.meta.dirname, '..', '..', '..');

const productUsers = { functions: 'capi-serverless-functions', forwarder: 'capi-serverless-forwarder' } as const;

/** The component a request's user (and user agent) is. */
function componentOf(user: string, userAgent = ''): string {
  // NOTE: the harness's kube-controller-manager (garbage collector, namespace controller) uses the admin identity.
  if (userAgent.startsWith('kube-controller-manager')) return 'kube-controller-manager';
  for (const [manager, name] of Object.entries(upstreamManagerUsers)) if (user === name) return `upstream ${manager}`;
  if (user === productUsers.functions) return 'capi-serverless functions';
  if (user === productUsers.forwarder) return 'capi-serverless forwarder';
  if (user === 'admin') return 'bench driver (user)';
  return user;
}

/**
 * The forwarder process bundled as its image builds it (functions/forwarder/Dockerfile: esbuild, minified, run with
 * the node flags of its CMD), so its memory is the deployed one's, not a TypeScript loader's.
 */
function bundleForwarder(dir: string): string[] {
  const outfile = join(dir, 'forwarder.cjs');
  execFileSync(
    join(repoRoot, 'node_modules', '.bin', 'esbuild'),
    [
      join(import.meta.dirname, 'forwarder-process.ts'),
      '--bundle',
      '--platform=node',
      '--target=node22',
      '--format=cjs',
      '--minify',
      '--keep-names',
      `--outfile=${outfile}`,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return [...forwarderNodeFlags(), outfile];
}

/**
 * With BENCH_SIDE_LOGS=<dir>: each process's output (the functions' failed invocations and pass errors, upstream's
 * managers) is written there as `<side>-<name>.log` when the side stops, since the side's temporary folder goes.
 */
function keepLogs(side: SideName, procs: readonly HarnessProcess[]): void {
  const dir = process.env['BENCH_SIDE_LOGS'];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const p of procs) writeFileSync(join(dir, `${side}-${p.name.replaceAll(/[^a-z0-9-]+/gi, '-')}.log`), p.logs());
  log(`side ${side}: process logs in ${dir}`);
}

/** Starts a product process (`node <args>`) and waits for its `READY <json>` line. */
async function startProductProcess(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ proc: HarnessProcess; ready: Record<string, string> }> {
  const proc = startHarnessProcess(name, process.execPath, args, { env });
  const deadline = Date.now() + 180_000;
  for (;;) {
    const line = proc
      .logs()
      .split('\n')
      .find((l) => l.startsWith('READY '));
    if (line) return { proc, ready: JSON.parse(line.slice(6)) as Record<string, string> };
    if (proc.exited() || Date.now() > deadline) throw new Error(`${name} did not start:\n${proc.tail(60)}`);
    await sleep(250);
  }
}

type Running = {
  kube: KubeClient;
  meter: ProcessMeter;
  audit: AuditLog;
  statsUrl?: string;
  stop(): Promise<void>;
};

async function startSide(side: SideName, heldPortLock: ExclusiveLock): Promise<Running> {
  const audit = createAuditLog(everyRequestAuditPolicy);
  const mgmt = await startUpstreamManagementCluster({
    name: side === 'A' ? 'side-a-upstream' : 'side-b-capi-serverless',
    extraApiServerArgs: audit.apiServerArgs,
    upstream: {
      mode: side === 'A' ? 'upstream-only' : 'beside-capi-serverless',
      featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }),
      heldPortLock,
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-side-'));
  const procs: HarnessProcess[] = [];
  const stop = async () => {
    for (const p of procs.reverse()) await p.stop(15_000);
    keepLogs(side, [...procs, ...Object.values(mgmt.upstream.managers).map((m) => m.process)]);
    await mgmt.stop();
    audit.remove();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    let statsUrl: string | undefined;
    const own: Record<string, number> = {};
    if (side === 'B') {
      const kubeconfigOf = (name: keyof typeof productUsers) => {
        const { pki, server } = mgmt.controlPlane;
        const client = issueCertificate(pki, dir, name, { user: productUsers[name], groups: ['system:masters'] });
        const path = join(dir, `${name}.kubeconfig`);
        writeFileSync(
          path,
          renderKubeconfig(mgmt.controlPlane.name, server, {
            caCert: pki.caCert,
            adminCert: client.cert,
            adminKey: client.key,
          }),
        );
        return path;
      };
      const functions = await startProductProcess(
        'capi-serverless functions',
        ['--import', 'tsx', join(import.meta.dirname, 'functions-process.ts')],
        {
          ...process.env,
          BENCH_KUBECONFIG: kubeconfigOf('functions'),
          BENCH_TICK_MS: String(config.tickMs),
        },
      );
      procs.push(functions.proc);
      statsUrl = functions.ready['statsUrl'];
      const forwarder = await startProductProcess('capi-serverless forwarder', bundleForwarder(dir), {
        ...process.env,
        BENCH_KUBECONFIG: kubeconfigOf('forwarder'),
        BENCH_EVENTS_URL: functions.ready['eventsUrl'],
      });
      procs.push(forwarder.proc);
      own['capi-serverless functions'] = functions.proc.proc.pid ?? 0;
      own['capi-serverless forwarder'] = forwarder.proc.proc.pid ?? 0;
    }
    const managerPids = Object.entries(mgmt.upstream.managers).map(
      ([m, r]) => [`upstream ${m as UpstreamManager}`, r.process.proc.pid ?? 0] as const,
    );
    const dataDir = mgmt.controlPlane.dataDir;
    const serverPids = findPids(dataDir);
    const apiserver = serverPids.filter((p) => cmdline(p).includes('kube-apiserver'));
    const etcd = serverPids.filter((p) => cmdline(p).includes('etcd') && !cmdline(p).includes('kube-apiserver'));
    const meter = startProcessMeter(() => {
      const groups: Record<string, readonly number[]> = Object.fromEntries(managerPids.map(([n, p]) => [n, [p]]));
      groups['kube-apiserver'] = apiserver;
      groups['etcd'] = etcd;
      for (const [name, pid] of Object.entries(own)) groups[name] = [pid];
      const fn = own['capi-serverless functions'];
      if (fn) {
        // NOTE: the Scheduler API (moto) stands in for an AWS service, as DynamoDB Local does: metered apart.
        const children = withDescendants(fn).filter((p) => p !== fn);
        groups['dynamodb-local'] = children.filter((p) => !cmdline(p).includes('moto'));
        groups['scheduler-api (moto)'] = children.filter((p) => cmdline(p).includes('moto'));
      }
      return groups;
    }, 2_000);
    meter.sample();
    return {
      kube: mgmt.kube,
      meter,
      audit,
      ...(statsUrl ? { statsUrl } : {}),
      stop: async () => (meter.stop(), stop()),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

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
  const running = await startSide(side, heldPortLock);
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
    return {
      side,
      durationMs: Date.now() - started,
      phases: reports,
      ...(running.statsUrl ? { functions: { beforeIdle: statsBefore, afterIdle: statsIdle, end: statsEnd } } : {}),
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
