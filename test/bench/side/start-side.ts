// One side of a side-by-side bench, started: a management cluster with upstream's managers (all four, or the ones
// asked for) and its audit log, on side B capi-serverless's functions and forwarder as processes of their own, and a
// meter of every process's CPU and memory. Shared by `bench:side` and `bench:topology-only`.
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '#shared/kube/index.ts';
import { createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import { issueCertificate, renderKubeconfig } from '#test/support/harness/certs.ts';
import type { ExclusiveLock } from '#test/support/harness/exclusive-lock.ts';
import { startHarnessProcess, type HarnessProcess } from '#test/support/harness/processes.ts';
import {
  computeGatesForAllManagers,
  startUpstreamManagementCluster,
  upstreamManagerUsers,
  type UpstreamManager,
} from '#test/support/harness/upstream-capi.ts';
import { forwarderNodeFlags } from '#test/bench/measure-forwarder.ts';
import { computePassErrors, type PassErrorRecord } from './compute-pass-errors.ts';
import { everyRequestAuditPolicy } from './count-requests.ts';
import { findPids, startProcessMeter, withDescendants, type ProcessMeter } from './process-meter.ts';
import type { SideName } from './side-report.ts';

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

export const productUsers = { functions: 'capi-serverless-functions', forwarder: 'capi-serverless-forwarder' } as const;

/** The component a request's user (and user agent) is. */
export function componentOf(user: string, userAgent = ''): string {
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

export type Running = {
  kube: KubeClient;
  meter: ProcessMeter;
  audit: AuditLog;
  statsUrl?: string;
  /**
   * Side B: every pass error and failed invocation the functions logged so far (read from the process's output,
   * which the harness keeps in memory, BENCH_SIDE_LOGS or not).
   */
  passErrors?(): PassErrorRecord[];
  /** The API server's `/metrics` text, read as the harness admin (not counted: the driver's user). */
  getApiServerMetrics(): Promise<string>;
  stop(): Promise<void>;
};

export type StartSideOptions = {
  /** Side B's tick period (ms). */
  readonly tickMs: number;
  /** Upstream's managers to run (default: all four). */
  readonly managers?: readonly UpstreamManager[];
  /** Held for the Docker in-memory manager's fixed port when it runs. */
  readonly heldPortLock?: ExclusiveLock;
};

export async function startSide(side: SideName, opts: StartSideOptions): Promise<Running> {
  const audit = createAuditLog(everyRequestAuditPolicy);
  const mgmt = await startUpstreamManagementCluster({
    name: side === 'A' ? 'side-a-upstream' : 'side-b-capi-serverless',
    extraApiServerArgs: audit.apiServerArgs,
    upstream: {
      mode: side === 'A' ? 'upstream-only' : 'beside-capi-serverless',
      featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }),
      ...(opts.managers ? { managers: opts.managers } : {}),
      ...(opts.heldPortLock ? { heldPortLock: opts.heldPortLock } : {}),
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
    let functionsProcess: HarnessProcess | undefined;
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
          BENCH_TICK_MS: String(opts.tickMs),
        },
      );
      procs.push(functions.proc);
      functionsProcess = functions.proc;
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
      ...(functionsProcess ? { passErrors: () => computePassErrors(functionsProcess.logs()) } : {}),
      getApiServerMetrics: () => getMetricsText(mgmt.controlPlane.server, mgmt.controlPlane.pki),
      stop: async () => (meter.stop(), stop()),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** GET /metrics with the admin client certificate. */
function getMetricsText(
  server: string,
  pki: { readonly caCert: string; readonly adminCert: string; readonly adminKey: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server}/metrics`,
      {
        ca: readFileSync(pki.caCert),
        cert: readFileSync(pki.adminCert),
        key: readFileSync(pki.adminKey),
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`GET /metrics: HTTP ${res.statusCode ?? 0}`)),
        );
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('GET /metrics: timeout')));
    req.end();
  });
}
