// The forwarder's memory with at least 10,000 watched objects and the events one spec change produces: the fleet's
// objects topped up with small labelled ConfigMaps, then the forwarder in a child process (forwarder-probe.ts).
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { applyObject, createObject, listObjects, type KubeClient } from '#shared/kube/index.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { ensureNamespace } from '#test/integration/providers/provider-fixtures.ts';
import type { BenchEnv } from '#test/bench/bench-env.ts';
import { providerVersion } from '#test/builders/topology.ts';
import { fleetManager, fleetNamespace } from '#test/bench/fleet.ts';
import { clusterKey } from '#test/bench/measure-passes.ts';
import { bundleForNode } from '#test/bench/measure-static.ts';

export type ForwarderFigures = {
  readonly kinds: number;
  readonly watchedObjects: number;
  readonly fillerConfigMaps: number;
  /** The process before it lists anything (node + the loaded bundle). */
  readonly baselineRssMiB: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
  readonly heapUsedMiB: number;
  readonly eventsPerSpecChange: number;
};

const mib = (bytes: number) => bytes / (1024 * 1024);

/** The node flags of the forwarder image: `CMD ["node", ...flags, "forwarder.mjs"]` in its Dockerfile. */
export function forwarderNodeFlags(): string[] {
  const dockerfile = readFileSync(new URL('../../functions/forwarder/Dockerfile', import.meta.url), 'utf8');
  const cmd = /^CMD (\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error('functions/forwarder/Dockerfile has no CMD ["node", ...] line');
  return (JSON.parse(cmd) as string[]).slice(1, -1);
}

async function countWatched(kube: KubeClient): Promise<number> {
  const kinds = [
    ['cluster.x-k8s.io/v1beta2', 'Cluster'],
    ['cluster.x-k8s.io/v1beta2', 'ClusterClass'],
    ['addons.cluster.x-k8s.io/v1beta2', 'ClusterResourceSet'],
    ['addons.cluster.x-k8s.io/v1beta2', 'ClusterResourceSetBinding'],
    ['v1', 'ConfigMap'],
    ['v1', 'Secret'],
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
  const missing = Math.max(0, target - (await countWatched(kube)));
  if (missing === 0) return 0;
  await ensureNamespace(kube, 'bench-filler');
  let done = 0;
  await mapLimit(
    Array.from({ length: missing }, (_, i) => i),
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
      if (++done % 2000 === 0) log(`  filler ConfigMaps: ${done}/${missing}`);
    },
  );
  return missing;
}

/** Runs the probe; the management cluster must be otherwise quiet (no passes running). */
export async function measureForwarder(
  env: Pick<BenchEnv, 'mgmt'>,
  log: (line: string) => void,
): Promise<ForwarderFigures> {
  const filler = await fillTo(env.mgmt.kube, 10_000, log);
  // NOTE: bundled as the forwarder's image is (no tsx transpiler in the process, so the RSS is the forwarder's).
  const probe = await bundleForNode(new URL('./forwarder-probe.ts', import.meta.url));
  const child = fork(probe, [], {
    execArgv: forwarderNodeFlags(),
    env: { ...process.env, KUBECONFIG: env.mgmt.controlPlane.kubeconfigPath },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if ((m as { type?: string }).type !== type) return;
        child.off('message', onMessage);
        resolve(m as T);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`forwarder probe exited with ${code}`)));
    });
  try {
    const ready = await next<{
      baselineRssBytes: number;
      kinds: number;
      objects: number;
      rssBytes: number;
      peakRssBytes: number;
      heapUsedBytes: number;
    }>('ready');
    log(
      `  forwarder synced ${ready.objects} objects of ${ready.kinds} kinds, RSS ${mib(ready.rssBytes).toFixed(1)} MiB`,
    );
    const key = clusterKey(0);
    const marked = next('marked');
    child.send({ type: 'count', kind: 'Cluster', namespace: fleetNamespace, name: key.name });
    await marked;
    const counted = next<{ events: number; peakRssBytes: number }>('counted');
    await applyObject(
      env.mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: fleetNamespace, name: key.name },
        spec: { topology: { classRef: { name: 'quick-start' }, version: 'v1.30.0', controlPlane: { replicas: 5 } } },
      },
      { fieldManager: 'bench-spec-change', force: true },
    );
    const { events, peakRssBytes } = await counted;
    return {
      kinds: ready.kinds,
      watchedObjects: ready.objects,
      fillerConfigMaps: filler,
      baselineRssMiB: mib(ready.baselineRssBytes),
      rssMiB: mib(ready.rssBytes),
      peakRssMiB: mib(Math.max(peakRssBytes, ready.peakRssBytes)),
      heapUsedMiB: mib(ready.heapUsedBytes),
      eventsPerSpecChange: events,
    };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
    }
  }
}
