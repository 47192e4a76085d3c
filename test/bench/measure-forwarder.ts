// The forwarder's memory and CPU with N watched objects (default 10,000) and the entries one spec change produces: the
// fleet's objects topped up with small labelled ConfigMaps, then the forwarder's container entry
// (functions/forwarder/main.ts, bundled as its Dockerfile bundles it, run with the node flags of its CMD, or a variant's)
// in a child process, putting events to a recording PutEvents endpoint on loopback. RSS is read from /proc (VmRSS,
// VmHWM for the peak, /proc/<pid>/smaps split into node's binary, other files and anonymous memory), CPU from
// /proc/<pid>/stat (utime + stime), readiness, the watched-object count and the V8 heap from the forwarder's own /readyz
// and /metrics.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parseAllDocuments } from 'yaml';
import { applyObject, createObject, listObjects, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { ensureNamespace } from '#test/integration/providers/provider-fixtures.ts';
import { startEventBridgeRecorder } from '#test/integration/runtime/loopback.ts';
import type { BenchEnv } from '#test/bench/bench-env.ts';
import { providerVersion } from '#test/support/builders/topology.ts';
import { fleetManager, fleetNamespace } from '#test/bench/fleet.ts';
import { clusterKey } from '#test/bench/measure-passes.ts';
import { chartFile } from '../../infra/chart/chart-files.ts';

export type ForwarderFigures = {
  readonly kinds: number;
  readonly watchedObjects: number;
  readonly fillerConfigMaps: number;
  readonly rssMiB: number;
  /** VmHWM: the highest RSS since the process started (the initial LISTs included). */
  readonly peakRssMiB: number;
  /** Anonymous (heap, stacks) part of the RSS; the rest is the node binary's and libraries' file pages. */
  readonly anonRssMiB: number;
  readonly eventsPerSpecChange: number;
  /** From the spec change's apply until its entry reached the PutEvents endpoint (the coalescing window included). */
  readonly specChangeLatencyMs: number;
  /** From the start of the process until /readyz answered 200. */
  readonly readyAfterMs: number;
  readonly nodeFlags: readonly string[];
  /** Environment variables the variant set beyond the bench's (e.g. MALLOC_ARENA_MAX). */
  readonly env: Readonly<Record<string, string>>;
  /** Where the RSS is when synced (/proc/<pid>/smaps) and the V8 heap (the forwarder's /metrics). */
  readonly memory: ForwarderMemory;
  /** CPU seconds from the start until synced (the first LIST of every kind included). */
  readonly startupCpuSeconds: number;
  /** CPU while idle and during a burst of Cluster spec changes (absent: not measured, `idleSeconds` 0). */
  readonly cpu?: ForwarderCpu;
  /**
   * RSS at the end of the idle window (absent: none measured): V8's memory reducer shrinks the heap some tens of
   * seconds after the allocations stop, so this is usually below `rssMiB`, though not always within the window.
   */
  readonly idleRssMiB?: number;
  /** The bundle run, when not the one built from the working tree (BENCH_FORWARDER_BUNDLE). */
  readonly bundle?: string;
  /** How the forwarder found the API server: a service-account token as in a pod, or a kubeconfig file. */
  readonly credentials: 'in-cluster' | 'kubeconfig';
};

export type ForwarderMemory = {
  /** File pages of node's own binary (text, read-only data, data). */
  readonly nodeBinaryMiB: number;
  readonly nodeBinaryTextMiB: number;
  /** File pages of every other mapped file (libc, libstdc++, ...). */
  readonly librariesMiB: number;
  /** Anonymous memory: V8's heap, malloc's arenas, stacks. */
  readonly anonymousMiB: number;
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
  /** Buffers outside the V8 heap (`process.memoryUsage().external`). */
  readonly externalMiB: number;
};

export type ForwarderCpu = {
  readonly idleSeconds: number;
  /** CPU seconds per hour while nothing changes (watches open, the heartbeat Lease renewed every minute). */
  readonly idleCpuSecondsPerHour: number;
  readonly burst: {
    readonly clusterSpecChanges: number;
    readonly wallSeconds: number;
    /** Watch events the forwarder saw during the burst (events_seen_total). */
    readonly watchEvents: number;
    /** Entries put on the bus. */
    readonly entries: number;
    /** CPU seconds of the burst minus the idle rate over the same time. */
    readonly cpuSeconds: number;
    readonly cpuMsPerWatchEvent: number;
    readonly cpuMsPerEntry: number;
  };
  /** 1-minute load averages of the machine at the start and the end of the idle window and burst. */
  readonly loadAverage: readonly [number, number];
  /** RSS at the end of the idle window, before the burst. */
  readonly idleEndRssMiB: number;
};

/** A way to run the bundle: node flags and environment variables. */
export type ForwarderVariant = {
  readonly nodeFlags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
};

const mib = (bytes: number) => bytes / (1024 * 1024);
const dockerfile = () => readFileSync(new URL('../../functions/forwarder/Dockerfile', import.meta.url), 'utf8');

/** The node flags of the forwarder image: `CMD ["node", ...flags, "forwarder.cjs"]` in its Dockerfile. */
export function forwarderNodeFlags(): string[] {
  const cmd = /^CMD (\[.*\])\s*$/m.exec(dockerfile())?.[1];
  if (!cmd) throw new Error('functions/forwarder/Dockerfile has no CMD ["node", ...] line');
  return (JSON.parse(cmd) as string[]).slice(1, -1);
}

/** functions/forwarder/main.ts bundled with the esbuild flags of the Dockerfile (checked: the test fails on drift). */
export async function bundleForwarder(): Promise<string> {
  const format = /--format=(\w+)/.exec(dockerfile())?.[1];
  if (format !== 'cjs')
    throw new Error(`functions/forwarder/Dockerfile bundles --format=${format}; the bench expects cjs`);
  const outdir = join(tmpdir(), `capi-serverless-bench-forwarder-${process.pid}`);
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'forwarder.cjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../functions/forwarder/main.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    minify: true,
    keepNames: true,
    logLevel: 'error',
  });
  return outfile;
}

async function countWatched(kube: KubeClient): Promise<number> {
  // NOTE: Secrets are left out: by default the forwarder watches only the ClusterResourceSet type (a few here).
  const kinds = [
    ['cluster.x-k8s.io/v1beta2', 'Cluster'],
    ['cluster.x-k8s.io/v1beta2', 'ClusterClass'],
    ['addons.cluster.x-k8s.io/v1beta2', 'ClusterResourceSet'],
    ['addons.cluster.x-k8s.io/v1beta2', 'ClusterResourceSetBinding'],
    ['v1', 'ConfigMap'],
    [`infrastructure.cluster.x-k8s.io/${providerVersion}`, 'DockerMachineTemplate'],
    [`infrastructure.cluster.x-k8s.io/${providerVersion}`, 'DockerClusterTemplate'],
    [`controlplane.cluster.x-k8s.io/${providerVersion}`, 'KubeadmControlPlaneTemplate'],
    [`bootstrap.cluster.x-k8s.io/${providerVersion}`, 'KubeadmConfigTemplate'],
  ] as const;
  let total = 0;
  for (const [apiVersion, kind] of kinds) total += (await listObjects(kube, { apiVersion, kind })).items.length;
  return total;
}

/** Tops the watched objects up to `target` with ConfigMaps of about 1 KB in namespace `bench-filler`. */
async function fillTo(kube: KubeClient, target: number, log: (line: string) => void): Promise<number> {
  const existing = await countWatched(kube);
  const missing = Math.max(0, target - existing);
  if (missing === 0) return 0;
  await ensureNamespace(kube, 'bench-filler');
  const first = (await listObjects(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'bench-filler' })).items
    .length;
  let done = 0;
  await mapLimit(
    Array.from({ length: missing }, (_, i) => first + i),
    16,
    async (i) => {
      await createObject(
        kube,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'bench-filler', name: `filler-${i}`, labels: { 'bench/filler': 'true' } },
          data: { payload: 'x'.repeat(1024) },
        },
        { fieldManager: fleetManager },
      );
      if (++done % 5000 === 0) log(`  filler ConfigMaps: ${done}/${missing}`);
    },
  );
  return missing;
}

function readProc(pid: number): { rss: number; hwm: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM'), anon: kib('RssAnon') };
}

let clockTicks: number | undefined;
/** The kernel's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's times. */
function getClockTicks(): number {
  if (clockTicks === undefined) {
    const out = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    clockTicks = Number.isFinite(out) && out > 0 ? out : 100;
  }
  return clockTicks;
}

/** CPU seconds the process used so far, user and system (/proc/<pid>/stat fields 14 and 15). */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // NOTE: the fields after the command name, which is in parentheses and may hold spaces; field 3 (state) first.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / getClockTicks();
}

/** Resident memory by mapping: node's binary (and its text), other files, anonymous; bytes. */
function readMemoryMap(pid: number): { binary: number; binaryText: number; files: number; anonymous: number } {
  const binary = realpathSync(process.execPath);
  const totals = { binary: 0, binaryText: 0, files: 0, anonymous: 0 };
  let path = '';
  let perms = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      [perms, path] = [header[1] ?? '', header[2] ?? ''];
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const bytes = Number(rss[1]) * 1024;
    if (path === binary) {
      totals.binary += bytes;
      if (perms.includes('x')) totals.binaryText += bytes;
    } else if (path.startsWith('/')) totals.files += bytes;
    else totals.anonymous += bytes;
  }
  return totals;
}

// NOTE: each measurement changes the spec to a value it has not had (a second run on the same fleet setting the same
// replicas would change nothing, and rightly send nothing).
let specChanges = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getText(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

const sumOf = (metrics: string, name: string, labels = '') =>
  metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{${labels}`) || (!labels && l.startsWith(`${name} `)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

/**
 * A variant from its text: node flags (`--...`), environment variables (`NAME=value`) and `image`, the flags of the
 * Dockerfile's CMD; e.g. `image MALLOC_ARENA_MAX=1 --max-old-space-size=16`.
 *
 * @example
 * parseForwarderVariant('image MALLOC_ARENA_MAX=1'); // { nodeFlags: ['--jitless', ...], env: { MALLOC_ARENA_MAX: '1' } }
 */
export function parseForwarderVariant(text: string): ForwarderVariant {
  const nodeFlags: string[] = [];
  const env: Record<string, string> = {};
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    if (token === 'image') nodeFlags.push(...forwarderNodeFlags());
    else if (token.startsWith('--')) nodeFlags.push(token);
    else if (/^[A-Z_][A-Z0-9_]*=/.test(token))
      env[token.slice(0, token.indexOf('='))] = token.slice(token.indexOf('=') + 1);
    else
      throw new Error(
        `forwarder variant ${JSON.stringify(text)}: ${JSON.stringify(token)} is no flag, NAME=value or image`,
      );
  }
  return { nodeFlags, env };
}

const fleetClusters = async (kube: KubeClient) =>
  (await listObjects(kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: fleetNamespace }))
    .items.length;

/** A Cluster spec change to a value it has not had, so the forwarder sees a change the passes read. */
async function changeClusterSpec(kube: KubeClient, name: string): Promise<void> {
  await applyObject(
    kube,
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: fleetNamespace, name },
      spec: {
        topology: {
          classRef: { name: 'quick-start' },
          version: 'v1.30.0',
          controlPlane: { replicas: 5 + 2 * specChanges++ },
        },
      },
    },
    { fieldManager: 'bench-spec-change', force: true },
  );
}

export type MeasureForwarderOptions = {
  /** Watched objects to reach (default 10,000). */
  readonly objects?: number;
  /** How the bundle runs (default: the image's CMD flags). */
  readonly variant?: ForwarderVariant;
  /** Seconds of idle CPU measured once synced (default 0: no CPU figures). */
  readonly idleSeconds?: number;
  /** Cluster spec changes in the CPU burst, round-robin over the fleet's Clusters (default 100). */
  readonly burst?: number;
  /** A bundle built elsewhere (e.g. from an earlier commit) instead of the working tree's. */
  readonly bundle?: string;
  /**
   * Run as a pod does: credentials from a service-account token (the chart's forwarder RBAC) in
   * /var/run/secrets/kubernetes.io/serviceaccount, mounted for the forwarder alone in a mount namespace of its own
   * (`unshare -m`, root), and KUBERNETES_SERVICE_HOST/PORT; default: a kubeconfig file (KUBECONFIG), which also loads
   * the YAML parser and the kubeconfig schema a pod never loads.
   */
  readonly inCluster?: boolean;
};

const forwarderNamespace = 'capi-serverless-system';
const forwarderServiceAccount = 'capi-serverless-forwarder';

/**
 * The chart's forwarder ServiceAccount and RBAC in the management cluster, and a directory holding a token for it and
 * the cluster's CA as a pod's service-account volume would.
 */
async function prepareServiceAccount(env: Pick<BenchEnv, 'mgmt'>): Promise<string> {
  const kube = env.mgmt.kube;
  const apply = (obj: KubeObject) => applyObject(kube, obj, { fieldManager: fleetManager, force: true });
  await ensureNamespace(kube, forwarderNamespace);
  await apply({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { namespace: forwarderNamespace, name: forwarderServiceAccount },
  });
  for (const doc of parseAllDocuments(readFileSync(chartFile('forwarder-rbac.yaml'), 'utf8'))) {
    const obj = doc.toJS() as KubeObject | null;
    if (obj) await apply(obj);
  }
  const token = await kube.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${forwarderNamespace}/serviceaccounts/${forwarderServiceAccount}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 7200 } },
    target: { verb: 'create', kind: 'TokenRequest', namespace: forwarderNamespace, name: forwarderServiceAccount },
  });
  const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-bench-sa-'));
  writeFileSync(join(dir, 'token'), token.status.token);
  writeFileSync(join(dir, 'ca.crt'), readFileSync(env.mgmt.controlPlane.pki.caCert));
  writeFileSync(join(dir, 'namespace'), forwarderNamespace);
  mkdirSync(join(dir, 'home'));
  return dir;
}

/**
 * The command that starts node with `args` as a pod would find its service account: a private mount namespace with a
 * tmpfs over /run (/var/run) holding `dir`'s files; `exec` keeps the process id.
 */
function inClusterCommand(dir: string, args: readonly string[]): [string, string[]] {
  const sa = '/run/secrets/kubernetes.io/serviceaccount';
  const script = `mount -t tmpfs tmpfs /run && mkdir -p ${sa} && cp "${dir}"/token "${dir}"/ca.crt "${dir}"/namespace ${sa}/ && exec "$0" "$@"`;
  return ['unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, process.execPath, ...args]];
}

/** Runs the forwarder over at least `objects` watched objects; the management cluster must be otherwise quiet. */
export async function measureForwarder(
  env: Pick<BenchEnv, 'mgmt'>,
  log: (line: string) => void,
  options: MeasureForwarderOptions = {},
): Promise<ForwarderFigures> {
  const filler = await fillTo(env.mgmt.kube, options.objects ?? 10_000, log);
  const bundle = options.bundle ?? (await bundleForwarder());
  const recorder = await startEventBridgeRecorder();
  const httpPort = 18_000 + (process.pid % 1000);
  const variant = options.variant ?? { nodeFlags: forwarderNodeFlags(), env: {} };
  const { nodeFlags } = variant;
  const serviceAccount = options.inCluster ? await prepareServiceAccount(env) : undefined;
  const server = new URL(env.mgmt.controlPlane.server);
  const [command, args] = serviceAccount
    ? inClusterCommand(serviceAccount, [...nodeFlags, bundle])
    : [process.execPath, [...nodeFlags, bundle]];
  const startedAt = Date.now();
  const child = spawn(command, args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      ...(serviceAccount
        ? {
            // NOTE: a HOME without .kube/config, so the forwarder takes the in-cluster credentials as in a pod.
            HOME: join(serviceAccount, 'home'),
            KUBERNETES_SERVICE_HOST: server.hostname,
            KUBERNETES_SERVICE_PORT: server.port,
            POD_NAMESPACE: forwarderNamespace,
            POD_NAME: 'capi-serverless-forwarder-bench',
          }
        : { HOME: process.env['HOME'] ?? '', KUBECONFIG: env.mgmt.controlPlane.kubeconfigPath }),
      EVENT_BUS_NAME: 'capi-serverless-bench',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_EVENTBRIDGE: recorder.endpoint,
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      FORWARDER_HTTP_PORT: String(httpPort),
      ...variant.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${httpPort}`;
  const entries = () => recorder.requests.reduce((n, r) => n + r.entries.length, 0);
  const pid = child.pid!;
  const settle = async () => {
    for (let last = -1; last !== entries();) {
      last = entries();
      await sleep(3_000);
    }
  };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the forwarder exited with ${child.exitCode}`);
      if ((await getText(`${base}/readyz`))?.status === 200) break;
      await sleep(200);
    }
    const readyAfterMs = Date.now() - startedAt;
    // Settled: no new entry for 3 s after ready.
    await settle();
    const startupCpuSeconds = readCpuSeconds(pid);
    const metrics = (await getText(`${base}/metrics`))?.body ?? '';
    const watchedObjects = sumOf(metrics, 'capi_serverless_forwarder_watched_objects');
    const kinds = metrics.split('\n').filter((l) => l.startsWith('capi_serverless_forwarder_relists_total{')).length;
    const settled = readProc(pid);
    const map = readMemoryMap(pid);
    const area = (name: string) => mib(sumOf(metrics, 'capi_serverless_forwarder_memory_bytes', `area="${name}"`));
    const memory: ForwarderMemory = {
      nodeBinaryMiB: mib(map.binary),
      nodeBinaryTextMiB: mib(map.binaryText),
      librariesMiB: mib(map.files),
      anonymousMiB: mib(map.anonymous),
      heapUsedMiB: area('heap_used'),
      heapTotalMiB: area('heap_total'),
      externalMiB: area('external'),
    };
    log(`  forwarder synced ${watchedObjects} objects of ${kinds} kinds, RSS ${mib(settled.rss).toFixed(1)} MiB`);

    const key = clusterKey(0);
    const before = recorder.requests.length;
    await changeClusterSpec(env.mgmt.kube, key.name);
    const changeEntries = () =>
      recorder.requests
        .slice(before)
        .flatMap((r) => r.entries)
        .filter((e) => {
          const c = JSON.parse(e.Detail) as { kind?: string; name?: string };
          return c.kind === 'Cluster' && c.name === key.name;
        }).length;
    const changedAt = Date.now();
    while (changeEntries() === 0 && Date.now() - changedAt < 15_000) await sleep(100);
    const specChangeLatencyMs = Date.now() - changedAt;
    // NOTE: a second entry for the same change would come within the coalescing window (500 ms).
    await sleep(2_000);
    const eventsPerSpecChange = changeEntries();
    const end = readProc(pid);
    const cpu = options.idleSeconds ? await measureCpu(env, { pid, base, entries, settle, log }, options) : undefined;
    const idleRss = cpu === undefined ? undefined : cpu.idleEndRssMiB;
    return {
      kinds,
      watchedObjects,
      fillerConfigMaps: filler,
      rssMiB: mib(settled.rss),
      peakRssMiB: mib(end.hwm),
      anonRssMiB: mib(settled.anon),
      eventsPerSpecChange,
      specChangeLatencyMs,
      readyAfterMs,
      nodeFlags,
      env: variant.env,
      memory,
      startupCpuSeconds,
      ...(cpu === undefined ? {} : { cpu }),
      ...(idleRss === undefined ? {} : { idleRssMiB: idleRss }),
      ...(options.bundle === undefined ? {} : { bundle: options.bundle }),
      credentials: serviceAccount ? 'in-cluster' : 'kubeconfig',
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await recorder.stop();
    if (serviceAccount) rmSync(serviceAccount, { recursive: true, force: true });
  }
}

type RunningForwarder = {
  readonly pid: number;
  readonly base: string;
  readonly entries: () => number;
  readonly settle: () => Promise<void>;
  readonly log: (line: string) => void;
};

/** Idle CPU over `idleSeconds`, then a burst of Cluster spec changes until the entries stop. */
async function measureCpu(
  env: Pick<BenchEnv, 'mgmt'>,
  fw: RunningForwarder,
  options: MeasureForwarderOptions,
): Promise<ForwarderCpu> {
  const idleSeconds = options.idleSeconds ?? 0;
  const loadBefore = loadavg()[0] ?? 0;
  fw.log(`  idle CPU: ${idleSeconds} s`);
  const idleFrom = readCpuSeconds(fw.pid);
  const idleAt = Date.now();
  await sleep(idleSeconds * 1000);
  const idleCpu = readCpuSeconds(fw.pid) - idleFrom;
  const idleRate = idleCpu / ((Date.now() - idleAt) / 1000);
  const idleEndRssMiB = mib(readProc(fw.pid).rss);

  const clusters = await fleetClusters(env.mgmt.kube);
  const changes = options.burst ?? 100;
  const seen = async () =>
    sumOf((await getText(`${fw.base}/metrics`))?.body ?? '', 'capi_serverless_forwarder_events_seen_total');
  const [seenFrom, entriesFrom] = [await seen(), fw.entries()];
  fw.log(`  burst: ${changes} Cluster spec changes over ${clusters} Clusters`);
  const burstFrom = readCpuSeconds(fw.pid);
  const burstAt = Date.now();
  for (let i = 0; i < changes; i++) await changeClusterSpec(env.mgmt.kube, clusterKey(i % clusters).name);
  await fw.settle();
  const wallSeconds = (Date.now() - burstAt) / 1000;
  const cpuSeconds = Math.max(0, readCpuSeconds(fw.pid) - burstFrom - idleRate * wallSeconds);
  // NOTE: the forwarder's own /metrics requests above are counted in neither figure: one before, one after.
  const watchEvents = (await seen()) - seenFrom;
  const sent = fw.entries() - entriesFrom;
  const round = (v: number, places = 3) => Math.round(v * 10 ** places) / 10 ** places;
  return {
    idleSeconds,
    idleCpuSecondsPerHour: round(idleRate * 3600),
    burst: {
      clusterSpecChanges: changes,
      wallSeconds: round(wallSeconds, 1),
      watchEvents,
      entries: sent,
      cpuSeconds: round(cpuSeconds),
      cpuMsPerWatchEvent: round((cpuSeconds * 1000) / Math.max(1, watchEvents)),
      cpuMsPerEntry: round((cpuSeconds * 1000) / Math.max(1, sent)),
    },
    loadAverage: [loadBefore, loadavg()[0] ?? 0],
    idleEndRssMiB,
  };
}
