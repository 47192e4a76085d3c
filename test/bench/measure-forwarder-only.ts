// Only the forwarder's figure of `npm run bench`: a management cluster with the fleet's ClusterClass, add-ons,
// providers and BENCH_CLUSTERS Clusters (default 10; no controller passes run), topped up to each count of watched
// objects in BENCH_FORWARDER_OBJECTS (default 10000; e.g. 10000,50000), the bundled forwarder started afresh at each.
// Prints its RSS and the entries one spec change produced; BENCH_FORWARDER_OUT=<file> writes them as JSON.
//   BENCH_FORWARDER_OBJECTS=10000,50000 node --import tsx test/bench/measure-forwarder-only.ts
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createFleet, fleetCrds } from '#test/bench/fleet.ts';
import { measureForwarder, type ForwarderFigures } from '#test/bench/measure-forwarder.ts';
import { startManagementCluster } from '#test/support/harness/clusters.ts';

const clusters = Number(process.env['BENCH_CLUSTERS'] ?? 10);
if (!Number.isInteger(clusters) || clusters < 1) throw new Error('BENCH_CLUSTERS must be a positive integer');
const counts = (process.env['BENCH_FORWARDER_OBJECTS'] ?? '10000').split(',').map(Number);
if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_FORWARDER_OBJECTS: positive integers');
const log = (line: string) => console.log(line);

const mgmt = await startManagementCluster({ name: 'bench-forwarder', extraCrds: fleetCrds() });
const runs: (ForwarderFigures & { readonly targetObjects: number })[] = [];
try {
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
    const f = await measureForwarder({ mgmt }, log, { objects });
    runs.push({ ...f, targetObjects: objects });
    log(
      [
        `kinds watched:          ${f.kinds}`,
        `objects watched:        ${f.watchedObjects} (${f.fillerConfigMaps} filler ConfigMaps added)`,
        `RSS when synced:        ${mib(f.rssMiB)} (anonymous ${mib(f.anonRssMiB)})`,
        `peak RSS:               ${mib(f.peakRssMiB)} (target ≤ 48 MiB at 10,000)`,
        `ready after:            ${(f.readyAfterMs / 1000).toFixed(1)} s`,
        `events per spec change: ${f.eventsPerSpecChange} (after ${f.specChangeLatencyMs} ms)`,
        `node flags:             ${f.nodeFlags.join(' ')}`,
      ].join('\n'),
    );
  }
  const out = process.env['BENCH_FORWARDER_OUT'];
  if (out) {
    const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: totalmem() / 2 ** 30 };
    const result = { date: new Date().toISOString(), node: process.version, machine, clusters, runs };
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  }
} finally {
  await mgmt.stop();
}
