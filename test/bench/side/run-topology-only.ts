// `npm run bench:topology-only`: one fleet-wide ClusterClass change on N converged Clusters, topology only, both sides
// one after the other in one run:
// - A, upstream: only upstream v1.14's core manager, its topology controller on;
// - B, capi-serverless: the core manager with ClusterTopology off, beside capi-serverless's functions and forwarder.
// No Machines: the Clusters' MachineDeployments have 0 replicas and no provider manager runs; the control plane's
// status is written by the bench as its provider would report a converged one. The fleet is stamped converged: one
// seed Cluster is created normally, its topology-owned objects are read and created again per Cluster (paused until
// complete, then unpaused), and the side settles (every Cluster TopologyReconciled at its generation). Then the
// ClusterClass's inline patch changes every Cluster's DevCluster; measured until every Cluster shows it: time, requests
// per component (audit log), flow-control seats, CPU and memory per process. BENCH_TOPO_CLUSTERS (default 20).
// Writes test/bench/results/topology-only-<N>.{json,md}.
import { loadavg } from 'node:os';
import { errorMessage } from '#shared/errors/index.ts';
import {
  createObject,
  getObject,
  listObjects,
  patchObject,
  refOf,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { percentile } from '#test/bench/stats.ts';
import { computeStampedCluster, computeStampedObjects, type SeedCluster } from './compute-stamped-cluster.ts';
import { computeCounterDelta, computeEstimatedSeats, parseStoredObjects } from './compute-seats.ts';
import {
  computeRequestBreakdown,
  computeRequestCounts,
  isCountedEvent,
  type BenchAuditEvent,
} from './count-requests.ts';
import {
  applyAsUser,
  clusterNames,
  computeFleetClass,
  computeFleetCluster,
  fleetNamespace,
  fromVersion,
  getFleetView,
  isTopologyReconciled,
  predicates,
  waitForFleet,
} from './side-fleet.ts';
import type { SideName } from './side-report.ts';
import {
  computeTopologyOnlyMarkdown,
  type PhaseReport,
  type SideResult,
  type TopologyOnlyResult,
} from './topology-only-report.ts';
import { componentOf, startSide, type Running } from './start-side.ts';

const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const clusters = envNumber('BENCH_TOPO_CLUSTERS', 20);
const config = {
  clusters,
  sides: (process.env['BENCH_TOPO_ONLY'] ?? 'A,B').split(',') as SideName[],
  /** Side B's tick period, as deployed. */
  tickMs: envNumber('BENCH_TOPO_TICK_MS', 300_000),
  /** Quiet time after the fleet settled, before the change. */
  settleTailMs: envNumber('BENCH_TOPO_SETTLE_TAIL_MS', 30_000),
  /** Time after the last Cluster converged that still counts to the change (late writes, status updates). */
  tailMs: envNumber('BENCH_TOPO_TAIL_MS', 15_000),
  /** Clusters stamped at once. */
  concurrency: envNumber('BENCH_TOPO_CONCURRENCY', clusters > 100 ? 32 : 8),
  /**
   * BENCH_TOPO_PARALLEL=1: both sides at once (each its own API server and processes, so requests, CPU and memory
   * stay apart; the times share the machine), when one after the other does not fit the time at hand.
   */
  parallel: process.env['BENCH_TOPO_PARALLEL'] === '1',
  timeoutMs: envNumber('BENCH_TOPO_TIMEOUT_MS', Math.max(15 * 60_000, clusters * 1_500)),
  /** Clusters unpaused at once while settling; each wave is waited for before the next. */
  wave: envNumber('BENCH_TOPO_WAVE', 50),
  waveTimeoutMs: envNumber('BENCH_TOPO_WAVE_TIMEOUT_MS', 10 * 60_000),
  wavePollMs: 3_000,
  pollMs: clusters > 200 ? 10_000 : clusters > 20 ? 5_000 : 1_000,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sideLog = (side: SideName) => (line: string) => log(`${side} ${line}`);
const user = { fieldManager: 'bench-user' };
const capi = 'cluster.x-k8s.io/v1beta2';
const kcpKind = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane' } as const;
/** The kinds the topology controller creates for a Cluster of the in-memory class. */
const ownedKinds = [
  { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'DevCluster' },
  kcpKind,
  { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'DevMachineTemplate' },
  { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfigTemplate' },
  { apiVersion: capi, kind: 'MachineDeployment' },
  { apiVersion: capi, kind: 'MachineHealthCheck' },
] as const;

/** Retries what a loaded API server or webhook did not answer in time. */
async function withRetry<T>(what: string, body: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await body();
    } catch (err) {
      if (attempt >= 6 || !/did not answer|timeout|deadline|ECONNRESET|webhook|429|Too Many/i.test(errorMessage(err)))
        throw new Error(`${what}: ${errorMessage(err)}`, { cause: err });
      await sleep(2_000 * attempt);
    }
  }
}

/** Creates `obj`, or reads it when an earlier attempt created it. */
async function createOrGet(kube: KubeClient, obj: KubeObject): Promise<KubeObject> {
  return withRetry(`create ${obj.kind} ${obj.metadata.name ?? ''}`, async () => {
    try {
      return await createObject(kube, obj, user);
    } catch (err) {
      if (!/already exists/i.test(errorMessage(err))) throw err;
      return getObject(kube, refOf(obj));
    }
  });
}

/** Writes the control plane's status as KCP reports a converged one (no KCP manager runs). */
async function recordControlPlaneConverged(kube: KubeClient, kcp: KubeObject): Promise<void> {
  const spec = kcp['spec'] as { version?: string; replicas?: number };
  const replicas = spec.replicas ?? 1;
  await withRetry(`status of KubeadmControlPlane ${kcp.metadata.name ?? ''}`, () =>
    patchObject(
      kube,
      refOf(kcp),
      {
        status: {
          version: spec.version ?? fromVersion,
          replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          upToDateReplicas: replicas,
          initialization: { controlPlaneInitialized: true },
          ...(kcp.metadata.generation === undefined ? {} : { observedGeneration: kcp.metadata.generation }),
        },
      },
      { ...user, subresource: 'status' },
    ),
  );
}

/** Creates the seed Cluster normally and waits until its topology converged, the control plane's status written. */
async function createSeed(kube: KubeClient, seedName: string): Promise<SeedCluster> {
  await applyAsUser(kube, computeFleetCluster({ name: seedName, version: fromVersion, replicas: 0 }));
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const kcps = await listObjects(kube, {
      ...kcpKind,
      namespace: fleetNamespace,
      labelSelector: `cluster.x-k8s.io/cluster-name=${seedName}`,
    });
    for (const kcp of kcps.items)
      if ((kcp['status'] as { version?: string } | undefined)?.version === undefined)
        await recordControlPlaneConverged(kube, kcp);
    const view = await getFleetView(kube);
    if (isTopologyReconciled(view.clusters.get(seedName)) && view.byCluster('MachineDeployment', seedName).length > 0)
      break;
    if (Date.now() > deadline)
      throw new Error(`seed ${seedName} did not converge: ${JSON.stringify(view.clusters.get(seedName)?.['status'])}`);
    await sleep(1_000);
  }
  const cluster = await getObject(kube, {
    apiVersion: capi,
    kind: 'Cluster',
    namespace: fleetNamespace,
    name: seedName,
  });
  const owned: KubeObject[] = [];
  for (const k of ownedKinds)
    owned.push(
      ...(
        await listObjects(kube, {
          ...k,
          namespace: fleetNamespace,
          labelSelector: `cluster.x-k8s.io/cluster-name=${seedName},topology.cluster.x-k8s.io/owned`,
        })
      ).items,
    );
  return { cluster, owned };
}

/** Creates Cluster `name` and its objects from the seed, paused; the control plane's status as converged. */
async function stampCluster(kube: KubeClient, seed: SeedCluster, seedName: string, name: string): Promise<void> {
  const cluster = await createOrGet(kube, computeStampedCluster(seed, seedName, name));
  const uids = new Map([[seed.cluster.metadata.uid ?? '', cluster.metadata.uid ?? '']]);
  for (const next of computeStampedObjects(seed, seedName, name)) {
    const created = await createOrGet(
      kube,
      next.build((uid) => uids.get(uid) ?? ''),
    );
    uids.set(next.seedUid, created.metadata.uid ?? '');
    if (created.kind === kcpKind.kind) await recordControlPlaneConverged(kube, created);
  }
}

async function forEachConcurrently(
  items: readonly string[],
  concurrency: number,
  body: (item: string) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await body(items[next++]!);
    }),
  );
}

type PhaseDraft = {
  name: string;
  from: number;
  to: number;
  load: readonly number[];
  metricsFrom: string;
  metricsTo: string;
  latencies: number[];
  error?: string;
};

async function runSide(side: SideName): Promise<SideResult> {
  const say = sideLog(side);
  const started = Date.now();
  say(`side ${side}: starting`);
  const running: Running = await startSide(side, { tickMs: config.tickMs, managers: ['core'] });
  const { kube } = running;
  const names = clusterNames(config.clusters);
  const [seedName, ...stamped] = names as [string, ...string[]];
  const drafts: PhaseDraft[] = [];
  const phase = async (name: string, body: (latencies: number[]) => Promise<void>) => {
    const metricsFrom = await running.getApiServerMetrics();
    const draft: PhaseDraft = {
      name,
      from: Date.now(),
      to: 0,
      load: loadavg(),
      metricsFrom,
      metricsTo: '',
      latencies: [],
    };
    drafts.push(draft);
    say(`  phase ${name} (load average ${draft.load.map((l) => l.toFixed(2)).join(' ')})`);
    try {
      await body(draft.latencies);
    } catch (err) {
      draft.error = errorMessage(err).slice(0, 2_000);
      say(`  phase ${name} FAILED: ${draft.error}`);
    }
    draft.to = Date.now();
    draft.metricsTo = await running.getApiServerMetrics();
    return draft.error === undefined;
  };
  try {
    const stampedOk = await phase('stamp', async () => {
      await applyAsUser(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fleetNamespace } });
      for (const obj of computeFleetClass()) await applyAsUser(kube, obj);
      const seed = await createSeed(kube, seedName);
      say(`  seed ${seedName}: ${seed.owned.map((o) => o.kind).join(', ')}`);
      let done = 0;
      await forEachConcurrently(stamped, config.concurrency, async (name) => {
        await stampCluster(kube, seed, seedName, name);
        if (++done % 100 === 0) say(`  stamped ${done} of ${stamped.length}`);
      });
    });
    const settledOk =
      stampedOk &&
      (await phase('settle', async (latencies) => {
        // NOTE: unpaused in waves, each waited for: a thousand Clusters unpaused at once make upstream's core
        // controllers (on both sides) retry their status patches on 409s from a lagging cache for many minutes
        // (the N = 300 run of 2026-11-28), which measures the machine, not the fleet-wide change that follows.
        for (let at = 0; at < stamped.length; at += config.wave) {
          const wave = stamped.slice(at, at + config.wave);
          const since = Date.now();
          await forEachConcurrently(wave, config.concurrency, (name) =>
            withRetry(`unpause ${name}`, async () => {
              await patchObject(
                kube,
                { apiVersion: capi, kind: 'Cluster', namespace: fleetNamespace, name },
                { spec: { paused: null } },
                user,
              );
            }),
          );
          const done = await waitForFleet(
            kube,
            at === 0 ? [seedName, ...wave] : wave,
            (view, name) =>
              isTopologyReconciled(view.clusters.get(name)) &&
              (view.clusters.get(name)?.['spec'] as { paused?: boolean }).paused !== true,
            { since, timeoutMs: config.waveTimeoutMs, what: 'settle', pollMs: config.wavePollMs, kinds: [] },
          );
          latencies.push(...done.values());
          say(`  settled ${Math.min(at + config.wave, stamped.length)} of ${stamped.length}`);
        }
        await sleep(config.settleTailMs);
      }));
    if (settledOk)
      await phase('ClusterClass change (fleet)', async (latencies) => {
        const since = Date.now();
        for (const obj of computeFleetClass('fleet-wide')) await applyAsUser(kube, obj);
        const done = await waitForFleet(kube, names, predicates.patchLabel('fleet-wide'), {
          since,
          timeoutMs: config.timeoutMs,
          what: 'ClusterClass change',
          pollMs: config.pollMs,
          kinds: ['DevCluster'],
        });
        latencies.push(...done.values());
        await sleep(config.tailMs);
      });
    running.meter.sample();
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
    const keyOf = (e: BenchAuditEvent) => componentOf(e.user.username, e.userAgent);
    const last = drafts.at(-1);
    const stored = parseStoredObjects(last?.metricsFrom ?? '');
    const phases = drafts.map((p): PhaseReport => {
      const flow = (metric: string) => computeCounterDelta(p.metricsFrom, p.metricsTo, metric);
      return {
        name: p.name,
        durationMs: p.to - p.from,
        loadAverage: { start: p.load, end: drafts.at(drafts.indexOf(p) + 1)?.load ?? loadavg() },
        ...(p.latencies.length > 0
          ? {
              latencyMs: {
                p50: percentile(p.latencies, 0.5),
                p99: percentile(p.latencies, 0.99),
                max: Math.max(...p.latencies),
                samples: p.latencies.length,
              },
            }
          : {}),
        requests: computeRequestCounts(events, p.from, p.to, keyOf),
        estimatedSeats: computeEstimatedSeats(events, p.from, p.to, keyOf, parseStoredObjects(p.metricsFrom)),
        flowControl: {
          dispatched: flow('apiserver_flowcontrol_dispatched_requests_total'),
          rejected: flow('apiserver_flowcontrol_rejected_requests_total'),
          estimatedSeatsSum: flow('apiserver_flowcontrol_work_estimated_seats_sum'),
        },
        cpuSeconds: running.meter.cpuSeconds(p.from, p.to),
        memory: running.meter.memory(p.from, p.to),
        breakdown: computeRequestBreakdown(events, p.from, p.to, keyOf),
        ...(p.error ? { error: p.error } : {}),
      };
    });
    const fleetResources = [...stored].filter(([r]) => r.includes('cluster.x-k8s.io') || r === 'events');
    return { side, durationMs: Date.now() - started, storedObjects: Object.fromEntries(fleetResources), phases };
  } finally {
    await running.stop();
    say(`side ${side}: stopped`);
  }
}

const started = Date.now();
const sides: Partial<Record<SideName, SideResult>> = {};
const resultsDir = new URL('../results/', import.meta.url);
const write = async () => {
  const result: TopologyOnlyResult = {
    date: new Date(started).toISOString(),
    machine: machineDescription(),
    config,
    durationMs: Date.now() - started,
    sides,
  };
  const base = process.env['BENCH_TOPO_OUT'] ?? `topology-only-${config.clusters}`;
  await writeFormatted(new URL(`${base}.json`, resultsDir), JSON.stringify(result, null, 2));
  const markdown = computeTopologyOnlyMarkdown(result);
  await writeFormatted(new URL(`${base}.md`, resultsDir), markdown);
  return markdown;
};
if (config.parallel)
  await Promise.all(
    config.sides.map(async (side) => {
      sides[side] = await runSide(side);
      await write();
    }),
  );
else
  for (const side of config.sides) {
    sides[side] = await runSide(side);
    await write();
  }
process.stdout.write(`${await write()}\n`);
process.exit(0);
