// The forwarder's memory with N watched objects (default 10,000) and the entries one spec change produces: the fleet's
// objects topped up with small labelled ConfigMaps, then the forwarder's container entry (functions/forwarder/main.ts,
// bundled as its Dockerfile bundles it, run with the node flags of its CMD) in a child process, putting events to a
// recording PutEvents endpoint on loopback. RSS is read from /proc (VmRSS, VmHWM for the peak), readiness and the
// watched-object count from the forwarder's own /readyz and /metrics.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { applyObject, createObject, listObjects, type KubeClient } from '#shared/kube/index.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { ensureNamespace } from '#test/integration/providers/provider-fixtures.ts';
import { startEventBridgeRecorder } from '#test/integration/runtime/loopback.ts';
import type { BenchEnv } from '#test/bench/bench-env.ts';
import { providerVersion } from '#test/support/builders/topology.ts';
import { fleetManager, fleetNamespace } from '#test/bench/fleet.ts';
import { clusterKey } from '#test/bench/measure-passes.ts';

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

const sumOf = (metrics: string, name: string) =>
  metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

/** Runs the forwarder over at least `objects` watched objects; the management cluster must be otherwise quiet. */
export async function measureForwarder(
  env: Pick<BenchEnv, 'mgmt'>,
  log: (line: string) => void,
  options: { readonly objects?: number } = {},
): Promise<ForwarderFigures> {
  const filler = await fillTo(env.mgmt.kube, options.objects ?? 10_000, log);
  const bundle = await bundleForwarder();
  const recorder = await startEventBridgeRecorder();
  const httpPort = 18_000 + (process.pid % 1000);
  const nodeFlags = forwarderNodeFlags();
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...nodeFlags, bundle], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      KUBECONFIG: env.mgmt.controlPlane.kubeconfigPath,
      EVENT_BUS_NAME: 'capi-serverless-bench',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_EVENTBRIDGE: recorder.endpoint,
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      FORWARDER_HTTP_PORT: String(httpPort),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${httpPort}`;
  const entries = () => recorder.requests.reduce((n, r) => n + r.entries.length, 0);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the forwarder exited with ${child.exitCode}`);
      if ((await getText(`${base}/readyz`))?.status === 200) break;
      await sleep(200);
    }
    const readyAfterMs = Date.now() - startedAt;
    // Settled: no new entry for 3 s after ready.
    for (let last = -1; last !== entries();) {
      last = entries();
      await sleep(3_000);
    }
    const metrics = (await getText(`${base}/metrics`))?.body ?? '';
    const watchedObjects = sumOf(metrics, 'capi_serverless_forwarder_watched_objects');
    const kinds = metrics.split('\n').filter((l) => l.startsWith('capi_serverless_forwarder_relists_total{')).length;
    const settled = readProc(child.pid!);
    log(`  forwarder synced ${watchedObjects} objects of ${kinds} kinds, RSS ${mib(settled.rss).toFixed(1)} MiB`);

    const key = clusterKey(0);
    const before = recorder.requests.length;
    await applyObject(
      env.mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: fleetNamespace, name: key.name },
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
    const end = readProc(child.pid!);
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
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await recorder.stop();
  }
}
