// Only the forwarder's figure of `npm run bench`: a management cluster with the fleet's ClusterClass, add-ons,
// providers and BENCH_CLUSTERS Clusters (default 10; no controller passes run), topped up to each count of watched
// objects in BENCH_FORWARDER_OBJECTS (default 10000; e.g. 800,10000, ascending), the bundled forwarder started afresh
// at each count for each variant in BENCH_FORWARDER_VARIANTS (`;`-separated; each node flags, NAME=value environment
// variables and `image` for the Dockerfile CMD's flags; default `image`). Prints its RSS (and where it is), its idle CPU
// over BENCH_FORWARDER_IDLE_SECONDS (default 120; 0: none) and its CPU over a burst of BENCH_FORWARDER_BURST Cluster
// spec changes (default 100), and the entries one spec change produced; BENCH_FORWARDER_OUT=<file> writes them as JSON.
// BENCH_FORWARDER_BUNDLE=<file> runs a bundle built elsewhere (e.g. from an earlier commit, as its Dockerfile builds it).
// The forwarder finds the API server as a pod does (a service-account token of the chart's RBAC, mounted in a mount
// namespace of its own: needs root); BENCH_FORWARDER_CREDENTIALS=kubeconfig gives it a kubeconfig file instead.
//   BENCH_FORWARDER_OBJECTS=800,10000 node --import tsx test/bench/measure-forwarder-only.ts
//   BENCH_FORWARDER_VARIANTS='image;image MALLOC_ARENA_MAX=1' BENCH_FORWARDER_IDLE_SECONDS=0 node --import tsx ...
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { createFleet, fleetCrds } from '#test/bench/fleet.ts';
import {
  measureForwarder,
  parseForwarderVariant,
  type ForwarderFigures,
  type ForwarderVariant,
} from '#test/bench/measure-forwarder.ts';
import { resolveControlPlaneAssets } from '#test/support/harness/assets.ts';
import { startManagementCluster } from '#test/support/harness/clusters.ts';

const clusters = Number(process.env['BENCH_CLUSTERS'] ?? 10);
if (!Number.isInteger(clusters) || clusters < 1) throw new Error('BENCH_CLUSTERS must be a positive integer');
const counts = (process.env['BENCH_FORWARDER_OBJECTS'] ?? '10000').split(',').map(Number);
if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_FORWARDER_OBJECTS: positive integers');
const idleSeconds = Number(process.env['BENCH_FORWARDER_IDLE_SECONDS'] ?? 120);
if (!Number.isFinite(idleSeconds) || idleSeconds < 0) throw new Error('BENCH_FORWARDER_IDLE_SECONDS: seconds ≥ 0');
const burst = Number(process.env['BENCH_FORWARDER_BURST'] ?? 100);
if (!Number.isInteger(burst) || burst < 1) throw new Error('BENCH_FORWARDER_BURST must be a positive integer');
const variantTexts = (process.env['BENCH_FORWARDER_VARIANTS'] ?? 'image')
  .split(';')
  .map((v) => v.trim())
  .filter(Boolean);
const variants: [string, ForwarderVariant][] = variantTexts.map((v) => [v, parseForwarderVariant(v)]);
const bundle = process.env['BENCH_FORWARDER_BUNDLE'] || undefined;
const credentials = process.env['BENCH_FORWARDER_CREDENTIALS'] ?? 'in-cluster';
if (credentials !== 'in-cluster' && credentials !== 'kubeconfig')
  throw new Error('BENCH_FORWARDER_CREDENTIALS: in-cluster or kubeconfig');
const log = (line: string) => console.log(line);

const mgmt = await startManagementCluster({ name: 'bench-forwarder', extraCrds: fleetCrds() });
const runs: (ForwarderFigures & { readonly targetObjects: number; readonly variant: string })[] = [];
const loadAverage = { before: loadavg(), after: [] as number[] };
try {
  const version = await mgmt.kube.request<{ gitVersion: string }>({
    method: 'GET',
    path: '/version',
    target: { verb: 'get' },
  });
  log(`creating the fleet: ${clusters} Clusters`);
  await createFleet(mgmt.kube, {
    clusters,
    // NOTE: the kubeconfig Secrets are only watched, never used: no workload cluster is needed.
    workloadKubeconfig: mgmt.controlPlane.kubeconfig,
    concurrency: 8,
    progress: (done, total) => log(`  Clusters created: ${done}/${total}`),
  });
  const mib = (n: number) => `${n.toFixed(1)} MiB`;
  for (const objects of counts) {
    for (const [text, variant] of variants) {
      log(`${objects} objects, variant ${JSON.stringify(text)}`);
      const f = await measureForwarder({ mgmt }, log, {
        objects,
        variant,
        idleSeconds,
        burst,
        inCluster: credentials === 'in-cluster',
        ...(bundle ? { bundle } : {}),
      });
      runs.push({ ...f, targetObjects: objects, variant: text });
      const m = f.memory;
      log(
        [
          `kinds watched:          ${f.kinds}`,
          `objects watched:        ${f.watchedObjects} (${f.fillerConfigMaps} filler ConfigMaps added)`,
          `RSS when synced:        ${mib(f.rssMiB)} (anonymous ${mib(f.anonRssMiB)})`,
          `  node binary:          ${mib(m.nodeBinaryMiB)} (text ${mib(m.nodeBinaryTextMiB)}), other files ${mib(m.librariesMiB)}, anonymous ${mib(m.anonymousMiB)}`,
          `  V8 heap:              ${mib(m.heapUsedMiB)} used of ${mib(m.heapTotalMiB)}, external ${mib(m.externalMiB)}`,
          `peak RSS:               ${mib(f.peakRssMiB)} (target ≤ 48 MiB at 10,000)`,
          `ready after:            ${(f.readyAfterMs / 1000).toFixed(1)} s, ${f.startupCpuSeconds.toFixed(2)} CPU-s`,
          `events per spec change: ${f.eventsPerSpecChange} (after ${f.specChangeLatencyMs} ms)`,
          ...(f.cpu
            ? [
                `idle CPU:               ${f.cpu.idleCpuSecondsPerHour} CPU-s per hour (${f.cpu.idleSeconds} s; RSS at its end ${mib(f.cpu.idleEndRssMiB)})`,
                `burst CPU:              ${f.cpu.burst.cpuSeconds} CPU-s for ${f.cpu.burst.watchEvents} watch events, ${f.cpu.burst.entries} entries: ${f.cpu.burst.cpuMsPerWatchEvent} ms per event`,
                `load average (1 min):   ${f.cpu.loadAverage.map((l) => l.toFixed(2)).join(' → ')}`,
              ]
            : []),
          `node flags:             ${f.nodeFlags.join(' ')} ${Object.entries(f.env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
        ].join('\n'),
      );
    }
  }
  loadAverage.after = loadavg();
  const out = process.env['BENCH_FORWARDER_OUT'];
  if (out) {
    const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: totalmem() / 2 ** 30 };
    const settings = {
      clusters,
      idleSeconds,
      burst,
      credentials,
      variants: variantTexts,
      ...(bundle ? { bundle } : {}),
    };
    const etcd = execFileSync(resolveControlPlaneAssets().etcd, ['--version'], { encoding: 'utf8' });
    const servers = { kubeApiServer: version.gitVersion, etcd: /etcd Version: (\S+)/.exec(etcd)?.[1] ?? 'unknown' };
    const result = { date: new Date().toISOString(), node: process.version, machine, servers, settings, loadAverage };
    writeFileSync(out, `${JSON.stringify({ ...result, runs }, null, 2)}\n`);
  }
} finally {
  await mgmt.stop();
}
