// Only the forwarder's figure of `npm run bench`: a management cluster with the fleet's ClusterClass, add-ons,
// providers and BENCH_CLUSTERS Clusters (default 10; no controller passes run), topped up to 10,000 watched
// objects, then the bundled forwarder in a child process. Prints its RSS and the events one spec change produced.
//   node --import tsx test/bench/measure-forwarder-only.ts
import { createFleet, fleetCrds } from '#test/bench/fleet.ts';
import { measureForwarder } from '#test/bench/measure-forwarder.ts';
import { startManagementCluster } from '#test/harness/clusters.ts';

const clusters = Number(process.env['BENCH_CLUSTERS'] ?? 10);
if (!Number.isInteger(clusters) || clusters < 1) throw new Error('BENCH_CLUSTERS must be a positive integer');
const log = (line: string) => console.log(line);

const mgmt = await startManagementCluster({ name: 'bench-forwarder', extraCrds: fleetCrds() });
try {
  log(`creating the fleet: ${clusters} Clusters`);
  await createFleet(mgmt.kube, {
    clusters,
    // NOTE: the kubeconfig Secrets are only watched, never used: no workload cluster is needed.
    workloadKubeconfig: mgmt.controlPlane.kubeconfig,
    concurrency: 8,
    progress: (done, total) => log(`  Clusters created: ${done}/${total}`),
  });
  const f = await measureForwarder({ mgmt }, log);
  const mib = (n: number) => `${n.toFixed(1)} MiB`;
  log(
    [
      `kinds watched:          ${f.kinds}`,
      `objects watched:        ${f.watchedObjects} (${f.fillerConfigMaps} filler ConfigMaps)`,
      `baseline RSS:           ${mib(f.baselineRssMiB)} (node + bundle, before any LIST)`,
      `RSS when synced:        ${mib(f.rssMiB)}`,
      `peak RSS:               ${mib(f.peakRssMiB)} (target ≤ 100 MiB)`,
      `heap used when synced:  ${mib(f.heapUsedMiB)}`,
      `events per spec change: ${f.eventsPerSpecChange}`,
    ].join('\n'),
  );
} finally {
  await mgmt.stop();
}
