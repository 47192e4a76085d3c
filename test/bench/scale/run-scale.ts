// `npm run bench:scale`: the scale model at 1,000, 10,000 and 100,000 Clusters (compute-scale-model.ts), fed by
// - measured here: the tick's due-index Query over a real table (DynamoDB Local) holding N Cluster checkpoints (the
//   real recordCheckpoint writes them; 1 % of them due), with nothing due and with the 1 % due, and a sweep's batched
//   checkpoint reads of all N;
// - measured earlier: the side-by-side run (test/bench/results/side-by-side.json: requests per converged Cluster in
//   the fleet-wide ClusterClass change, upstream's time to converge all N) and `npm run bench` (latest.json: a forced
//   pass's duration and requests on loopback);
// - measured here: mapping a ClusterClass change, the paged LIST of every Cluster (pages of 500, as the topology
//   function's mapping reads them) from a real kube-apiserver holding M Clusters shaped like a converged one of the
//   side-by-side fleet (converged-cluster.json, read from upstream's side A);
// - published service limits (Lambda, DynamoDB, kube-apiserver's default priority and fairness).
// Writes test/bench/results/scale.{json,md}. BENCH_SCALE_SIZES (comma-separated) changes the measured sizes;
// BENCH_SCALE_REUSE=1 recomputes the model from the last run's DynamoDB Local and mapping measurements;
// BENCH_SCALE_MAPPING_SIZES (default 1000,4000) the numbers of Clusters the mapping is measured with.
import { existsSync, readFileSync } from 'node:fs';
import { applyObject, applyStatus, listHubObjectPages, type KubeObject } from '#shared/kube/index.ts';
import { performance } from 'node:perf_hooks';
import {
  createCheckpointStore,
  createDynamoDBClient,
  dueShardCount,
  ensureTable,
  getCheckpoints,
  listDueObjects,
  recordCheckpoint,
  type CheckpointStore,
} from '#shared/checkpoint/index.ts';
import { defaultLocalConcurrency } from '#shared/runtime/local-bus.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { startManagementCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { percentile } from '#test/bench/stats.ts';
import type { SideBenchResult } from '#test/bench/side/side-report.ts';
import {
  computeCalibration,
  computeMaxSeats,
  computeScaleModel,
  isTopologyRequest,
  type Input,
  type ScaleInputs,
  type ScaleRow,
} from './compute-scale-model.ts';

const sizes = (process.env['BENCH_SCALE_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const mappingSizes = (process.env['BENCH_SCALE_MAPPING_SIZES'] ?? '1000,4000').split(',').map(Number);
const resultsDir = new URL('../results/', import.meta.url);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const readJson = <T>(name: string) => JSON.parse(readFileSync(new URL(name, resultsDir), 'utf8')) as T;

type TickMeasurement = {
  readonly clusters: number;
  readonly loadSeconds: number;
  readonly idleQuery: { readonly p50Ms: number; readonly maxMs: number; readonly found: number };
  readonly dueQuery: { readonly p50Ms: number; readonly found: number };
  readonly sweepReads: { readonly ms: number; readonly found: number };
};

const key = (i: number) =>
  ({ controller: 'topology', kind: 'Cluster', namespace: 'fleet', name: `c-${String(i).padStart(6, '0')}` }) as const;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

/** N checkpoints as a settled fleet leaves them: 99 % Success, 1 % Requeue due an hour ago. */
async function loadCheckpoints(store: CheckpointStore, n: number, now: number): Promise<void> {
  let done = 0;
  await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    32,
    async (i) => {
      const due = i % 100 === 0;
      await recordCheckpoint(store, key(i), {
        observedGeneration: 2,
        inputHash: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
        resourceVersion: String(1000 + i),
        result: due ? 'Requeue' : 'Success',
        attempts: due ? 1 : 0,
        ...(due ? { nextAttemptAt: now - 3_600_000 } : {}),
        lastPassId: `bench-${i}`,
        updatedAt: now - 7_200_000,
      });
      if (++done % 10_000 === 0) log(`  ${done} of ${n} checkpoints written`);
    },
  );
}

async function measureTick(n: number): Promise<TickMeasurement> {
  const ddb = await startDynamoDB();
  const client = createDynamoDBClient(ddb);
  try {
    const store = createCheckpointStore({ client, tableName: `scale-${n}` });
    await ensureTable(store);
    const now = Date.now();
    log(`${n} Clusters: writing checkpoints`);
    const [, loadMs] = await timed(() => loadCheckpoints(store, n, now));
    const idle: number[] = [];
    let idleFound = 0;
    for (let i = 0; i < 7; i++) {
      // NOTE: a tick between two due times: the index holds N / 100 entries, none due by this time.
      const [found, ms] = await timed(() => listDueObjects(store, 'topology', 'Cluster', now - 2 * 3_600_000));
      idle.push(ms);
      idleFound = found.length;
    }
    const due: number[] = [];
    let dueFound = 0;
    for (let i = 0; i < 3; i++) {
      const [found, ms] = await timed(() => listDueObjects(store, 'topology', 'Cluster', now));
      due.push(ms);
      dueFound = found.length;
    }
    const keys = Array.from({ length: n }, (_, i) => key(i));
    const [read, sweepMs] = await timed(() => getCheckpoints(store, keys));
    return {
      clusters: n,
      loadSeconds: loadMs / 1000,
      idleQuery: { p50Ms: percentile(idle, 0.5), maxMs: Math.max(...idle), found: idleFound },
      dueQuery: { p50Ms: percentile(due, 0.5), found: dueFound },
      sweepReads: { ms: sweepMs, found: read.size },
    };
  } finally {
    client.destroy();
    await ddb.stop();
  }
}

type MappingMeasurement = {
  readonly clusters: number;
  readonly loadSeconds: number;
  /** Bytes of one Cluster in a LIST page (JSON, managedFields included). */
  readonly bytesPerCluster: number;
  readonly pages: number;
  /** Time of one whole paged LIST, p50 of 5, and per page. */
  readonly listMs: { readonly p50: number; readonly max: number };
  readonly pageMs: number;
};

/**
 * Lists M Clusters in pages of 500 as the topology function maps a ClusterClass change (listHubObjectPages, keys
 * only kept), on a real kube-apiserver holding M Clusters shaped like a converged one of the side-by-side fleet: its
 * spec applied by the user, its status by the core manager, the topology's labels by the topology's field manager.
 */
async function measureMapping(m: number): Promise<MappingMeasurement> {
  const shape = readJson<KubeObject>('../scale/converged-cluster.json');
  const mgmt = await startManagementCluster({ name: `scale-mapping-${m}` });
  try {
    const capi = 'cluster.x-k8s.io/v1beta2';
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } },
      { fieldManager: 'bench', force: true },
    );
    log(`mapping: creating ${m} Clusters`);
    const started = performance.now();
    let done = 0;
    await mapLimit(
      Array.from({ length: m }, (_, i) => `c-${String(i).padStart(6, '0')}`),
      16,
      async (name) => {
        const metadata = { namespace: 'fleet', name, labels: shape.metadata.labels ?? {} };
        await applyObject(
          mgmt.kube,
          { apiVersion: capi, kind: 'Cluster', metadata, spec: shape['spec'] },
          { fieldManager: 'bench-user', force: true },
        );
        await applyStatus(
          mgmt.kube,
          { apiVersion: capi, kind: 'Cluster', metadata: { namespace: 'fleet', name }, status: shape['status'] },
          { fieldManager: 'capi-manager', force: true },
        );
        if (++done % 1_000 === 0) log(`  ${done} of ${m} Clusters`);
      },
    );
    const loadSeconds = (performance.now() - started) / 1000;
    const times: number[] = [];
    let pages = 0;
    let bytes = 0;
    let items = 0;
    for (let i = 0; i < 5; i++) {
      const keys: string[] = [];
      const [result, ms] = await timed(() =>
        listHubObjectPages(
          mgmt.kube,
          { apiVersion: capi, kind: 'Cluster' },
          {
            onPage: (page) => {
              for (const c of page) {
                keys.push(`${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`);
                if (i === 0) bytes += JSON.stringify(c).length;
              }
              if (i === 0) items += page.length;
            },
            onRestart: () => {
              keys.length = 0;
            },
          },
        ),
      );
      if (keys.length !== m) throw new Error(`mapping listed ${keys.length} of ${m} Clusters`);
      pages = result.pages;
      times.push(ms);
    }
    const p50 = percentile(times, 0.5);
    return {
      clusters: m,
      loadSeconds,
      bytesPerCluster: Math.round(bytes / items),
      pages,
      listMs: { p50, max: Math.max(...times) },
      pageMs: p50 / pages,
    };
  } finally {
    await mgmt.stop();
  }
}

const measured = (value: number, source: string): Input => ({ value, basis: 'measured', source });
const published = (value: number, source: string): Input => ({ value, basis: 'published', source });
const modelled = (value: number, source: string): Input => ({ value, basis: 'modelled', source });

type BenchLatest = {
  date: string;
  measurements: { forced: { topology: { meanDurationMs: number; max: { kube: { total: number } } } } };
};

/** The inputs from the committed runs and the published limits. */
function computeInputs(
  side: SideBenchResult,
  latest: BenchLatest,
  ticks: readonly TickMeasurement[],
  mapping: readonly MappingMeasurement[],
  sideFile: string,
): ScaleInputs {
  const largest = mapping.reduce((x, y) => (y.clusters > x.clusters ? y : x));
  const phaseOf = (s: 'A' | 'B') => side.sides[s]?.phases.find((p) => p.name === 'ClusterClass change (fleet)');
  const [a, b] = [phaseOf('A'), phaseOf('B')];
  if (!a || !b) throw new Error('side-by-side.json has no ClusterClass change on both sides');
  const n = Number(side.config['clusters']);
  const sideBasis = `${sideFile} (${n} Clusters per side, ${side.date.slice(0, 10)})`;
  const perCluster = (b.requests['capi-serverless functions']?.total ?? 0) / b.changes;
  const functionsRows = (b.breakdown ?? []).filter((r) => r.component === 'capi-serverless functions');
  const listsPerPass = functionsRows.filter((r) => r.verb === 'list').reduce((t, r) => t + r.count, 0) / b.changes;
  const coreRows = (a.breakdown ?? []).filter((r) => r.component === 'upstream core');
  const coreTotal = coreRows.reduce((t, r) => t + r.count, 0);
  const topologyTotal = coreRows.filter(isTopologyRequest).reduce((t, r) => t + r.count, 0);
  const upstreamPerCluster = topologyTotal / a.changes;
  const forced = latest.measurements.forced.topology;
  const one = modelled(1, 'uncalibrated');
  // NOTE: the side-by-side run predates reads by name; a Cluster pass of a ClusterClass change is not forced, so
  // after one that succeeded it reads the MachineDeployments and their template kinds by the recorded names.
  const readByName = {
    lists: 3,
    gets: 4,
    source:
      'measured 2026-11-28 by test/integration/runtime/wired-topology.test.ts on kube-apiserver v1.34: a forced pass over the example Cluster sends 4 LISTs and 11 GETs, an event pass 1 LIST (Machines) and 15 GETs',
  };
  const uncalibrated: ScaleInputs = {
    requestsPerClusterChange: modelled(
      perCluster + readByName.gets - readByName.lists,
      `${sideBasis}: B's functions, ClusterClass change (${fmt(perCluster, 1)} measured), with the ${readByName.lists} LISTs a pass after one that succeeded reads by name as ${readByName.gets} GETs (${readByName.source})`,
    ),
    upstreamRequestsPerClusterChange: measured(
      upstreamPerCluster,
      `${sideBasis}: A's core manager, ClusterClass change, its topology controller's share: ${fmt(topologyTotal)} of its ${fmt(coreTotal)} requests (without the ClusterResourceSet controller's ClusterResourceSet, binding, ConfigMap and Secret requests and without Events, which the recorder sends in the background)`,
    ),
    requestSeconds: measured(
      forced.meanDurationMs / forced.max.kube.total / 1000,
      `a forced pass's duration / its requests, on loopback (npm run bench, latest.json ${latest.date})`,
    ),
    upstreamWorkers: published(50, 'upstream v1.14.2 --clustertopology-concurrency default (core/main.go)'),
    fanOutBatch: 10,
    passesPerInvocation: 4,
    dueShards: dueShardCount,
    lambdaConcurrency: published(1_000, 'Lambda concurrent executions, default account quota per region'),
    listsPerPass: modelled(
      Math.max(0, listsPerPass - readByName.lists),
      `${sideBasis}: B's functions' LIST requests per converged Cluster (${fmt(listsPerPass, 1)} measured) less the ${readByName.lists} a pass after one that succeeded reads by name (${readByName.source})`,
    ),
    listedObjectsPerCluster: modelled(
      1,
      'objects of each listed kind per Cluster (one KubeadmControlPlane, DevCluster, MachineDeployment, MachineHealthCheck, template clone each)',
    ),
    listedObjectBytes: modelled(4_000, 'bytes of one listed object in the watch cache (managedFields included)'),
    sharedLevel: {
      name: 'global-default',
      seats: published(
        49,
        'kube-apiserver defaults: 600 seats (400 + 200 in flight) × global-default 20 / 245 shares (an IAM-mapped user outside system:serviceaccounts)',
      ),
      handSize: 6,
      queueLengthLimit: 50,
    },
    dedicatedLevel: {
      name: 'capi-serverless',
      seats: modelled(
        174,
        "600 seats × 100 / 345 shares: the chart's PriorityLevelConfiguration of 100 nominal shares (files/flow-control.yaml)",
      ),
      handSize: 4,
      queueLengthLimit: 50,
    },
    throttleRetrySeconds: published(
      1,
      "API priority and fairness's Retry-After; the kube client waits it (compute-throttle-retry.ts)",
    ),
    calibration: { b: one, a: one },
    writeUnitsPerPass: measured(5, 'npm run bench: lease put 1 WRU + checkpoint and lease release transaction 4 WRU'),
    dueIndexWritesPerPass: measured(
      0,
      "a settled pass's lease and record keep the row out of the sparse due index (DynamoDB Local, docs/cost.md)",
    ),
    partitionWriteUnitsPerSecond: published(
      1_000,
      'DynamoDB: write units per second per partition (and per index key)',
    ),
    tableWriteUnitsPerSecond: published(4_000, 'DynamoDB on-demand: throughput of a new table before it scales'),
    sweepPageSize: 500,
    metadataBytesPerObject: modelled(400, 'PartialObjectMetadata of a Cluster without managedFields'),
    mappingPageSize: 500,
    mappingPageSeconds: measured(
      largest.pageMs / 1000,
      `real kube-apiserver holding ${fmt(largest.clusters)} Clusters of ${fmt(largest.bytesPerCluster)} bytes: the mapping's paged LIST, p50 of 5, per page`,
    ),
    functionTimeoutSeconds: published(300, "the topology function's timeout (infra/capi-serverless-stack.ts)"),
    mappingHandOffSeconds: 120,
    idleTickQueryMs: new Map(
      ticks.map((t) => [
        t.clusters,
        measured(t.idleQuery.p50Ms, `DynamoDB Local, ${t.clusters} checkpoints, p50 of 7`),
      ]),
    ),
  };
  // NOTE: calibrated to the measured point: each side's time to converge every Cluster in the run (its slowest
  // Cluster), against the model run as the bench ran.
  const measuredSeconds = { b: (b.latencyMs?.max ?? NaN) / 1000, a: (a.latencyMs?.max ?? NaN) / 1000 };
  const point = computeCalibrationPoint(uncalibrated, n, measuredSeconds, sideBasis);
  return { ...uncalibrated, calibration: point.calibration };
}

/** One measured point of the fleet-wide change: N, per side the time measured and modelled as the bench ran. */
type CalibrationPoint = {
  readonly clusters: number;
  readonly basis: string;
  readonly measuredSeconds: { readonly b: number; readonly a: number };
  /** Modelled as the bench ran (no flow control, the local bus's concurrency), request times as on loopback. */
  readonly uncalibratedSeconds: { readonly b: number; readonly a: number };
  readonly calibration: { readonly b: Input; readonly a: Input };
};

function computeCalibrationPoint(
  uncalibrated: ScaleInputs,
  n: number,
  measuredSeconds: { readonly b: number; readonly a: number },
  basis: string,
): CalibrationPoint {
  const ratio = computeCalibration(uncalibrated, n, measuredSeconds, defaultLocalConcurrency);
  const calibrated = (side: 'a' | 'b', who: string) =>
    measured(
      ratio[side],
      `${basis}: ${who} converged every Cluster in ${fmt(measuredSeconds[side], 1)} s measured, ${fmt(measuredSeconds[side] / ratio[side], 2)} s modelled as the bench ran (no flow control, ${defaultLocalConcurrency} invocations at once): request times × ${fmt(ratio[side], 1)}`,
    );
  return {
    clusters: n,
    basis,
    measuredSeconds,
    uncalibratedSeconds: { b: measuredSeconds.b / ratio.b, a: measuredSeconds.a / ratio.a },
    calibration: { b: calibrated('b', 'B'), a: calibrated('a', 'A') },
  };
}

/** The topology-only run's fleet-wide change (bench:topology-only), the fields read here. */
type TopologyOnlyResult = {
  readonly date: string;
  readonly config: { readonly clusters: number; readonly parallel?: boolean };
  readonly sides: Partial<
    Record<
      'A' | 'B',
      {
        readonly phases: readonly {
          readonly name: string;
          readonly latencyMs?: { readonly max: number };
          readonly loadAverage?: { readonly start: readonly number[] };
        }[];
      }
    >
  >;
};

/** The second calibration point, from a topology-only run at a larger N; undefined when it has no change on both sides. */
function computeTopologyOnlyPoint(
  uncalibrated: ScaleInputs,
  run: TopologyOnlyResult,
  file: string,
): CalibrationPoint | undefined {
  const phaseOf = (s: 'A' | 'B') => run.sides[s]?.phases.find((p) => p.name === 'ClusterClass change (fleet)');
  const [a, b] = [phaseOf('A'), phaseOf('B')];
  if (a?.latencyMs === undefined || b?.latencyMs === undefined) return undefined;
  const load = a.loadAverage?.start[0];
  const basis = `${file} (${fmt(run.config.clusters)} Clusters per side, topology only, ${run.date.slice(0, 10)}${run.config.parallel ? ', both sides at once' : ''}${load === undefined ? '' : `, load average ${fmt(load, 1)}`})`;
  return computeCalibrationPoint(
    uncalibrated,
    run.config.clusters,
    { b: b.latencyMs.max / 1000, a: a.latencyMs.max / 1000 },
    basis,
  );
}

const fmt = (v: number, digits = 0) =>
  v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const duration = (s: number) => (s < 120 ? `${fmt(s, 1)} s` : `${fmt(s / 60, 1)} min`);

function computeMarkdown(
  rows: readonly ScaleRow[],
  uncalibrated: readonly ScaleRow[],
  inputs: ScaleInputs,
  ticks: readonly TickMeasurement[],
  mapping: readonly MappingMeasurement[],
): string {
  const level = (l: ScaleInputs['sharedLevel']) =>
    `${l.name}: ${fmt(l.seats.value)} seats, handSize ${l.handSize} × queueLengthLimit ${l.queueLengthLimit}, max ${computeMaxSeats(l)} seats a request`;
  const lines = [
    `Modelled by \`npm run bench:scale\` on ${new Date().toISOString().slice(0, 10)} (${machineDescription()}); nothing here ran at these fleet sizes except the DynamoDB Local tick rows${mapping.length > 0 ? ` (the mapping's time per LIST page was measured on a real kube-apiserver holding up to ${fmt(Math.max(...mapping.map((m) => m.clusters)))} Clusters)` : ''}.`,
    '',
    `| figure | ${rows.map((r) => `${fmt(r.clusters)} Clusters`).join(' | ')} | basis |`,
    `| --- | ${rows.map(() => '---:').join(' | ')} | --- |`,
    `| tick with nothing due: DynamoDB requests for the Cluster kind / API requests | ${rows.map((r) => `${r.idleTick.dynamoDbRequests} / ${r.idleTick.apiRequests}`).join(' | ')} | measured (tick.test.ts, npm run bench) |`,
    `| tick with nothing due: due-index Query, p50 | ${rows.map((r) => (r.idleTick.queryMs ? `${fmt(r.idleTick.queryMs.value, 1)} ms` : '—')).join(' | ')} | measured, DynamoDB Local |`,
    `| tick with 1 % due: Query, p50 (entries) | ${rows
      .map((r) => {
        const t = ticks.find((x) => x.clusters === r.clusters);
        return t ? `${fmt(t.dueQuery.p50Ms, 0)} ms (${fmt(t.dueQuery.found)})` : '—';
      })
      .join(' | ')} | measured, DynamoDB Local |`,
    `| hourly sweep: API requests (metadata pages of ${inputs.sweepPageSize}) / MiB listed | ${rows.map((r) => `${fmt(r.sweep.apiRequests)} / ${fmt(r.sweep.listedMiB, 1)}`).join(' | ')} | modelled |`,
    `| sweep whose LIST changed: checkpoint BatchGetItems (time) | ${rows
      .map((r) => {
        const t = ticks.find((x) => x.clusters === r.clusters);
        return `${fmt(r.sweep.batchGets)}${t ? ` (${duration(t.sweepReads.ms / 1000)})` : ''}`;
      })
      .join(' | ')} | count modelled, time measured on DynamoDB Local |`,
    `| ClusterClass change: mapping LIST, pages of ${inputs.mappingPageSize} (time, invocations one after another) | ${rows.map((r) => `${fmt(r.change.mapping.pages)} (${duration(r.change.mapping.seconds)}, ${fmt(r.change.mapping.invocations)})`).join(' | ')} | modelled from measured per page |`,
    `| ClusterClass change: invocations / PutEvents calls | ${rows.map((r) => `${fmt(r.change.invocations)} / ${fmt(r.change.putEventsCalls)}`).join(' | ')} | modelled (FANOUT_BATCH ${inputs.fanOutBatch}) |`,
    `| ClusterClass change: API requests | ${rows.map((r) => fmt(r.change.apiRequests)).join(' | ')} | modelled from ${fmt(inputs.requestsPerClusterChange.value, 1)} ${inputs.requestsPerClusterChange.basis} per Cluster |`,
    `| ClusterClass change: passes in flight (Lambda) | ${rows.map((r) => fmt(r.change.passesInFlight)).join(' | ')} | modelled |`,
    `| passes/s allowed by Lambda / API seats / due index (${inputs.dueShards} partitions) / new on-demand table | ${rows.map((r) => `${fmt(r.change.passesPerSecond.lambda)} / ${fmt(r.change.passesPerSecond.apiSeats)} / ${fmt(r.change.passesPerSecond.dueIndexPartition)} / ${fmt(r.change.passesPerSecond.tableOnDemand)}`).join(' | ')} | modelled |`,
    `| binding limit | ${rows.map((r) => r.change.binding).join(' | ')} | modelled |`,
    `| seats of one of a pass's LISTs (${fmt(inputs.listsPerPass.value, 1)} a pass): ${inputs.sharedLevel.name} / ${inputs.dedicatedLevel.name} | ${rows.map((r) => `${r.change.flowControl.shared.listSeats} / ${r.change.flowControl.dedicated.listSeats}`).join(' | ')} | modelled (1.34 size-based LIST estimate) |`,
    `| one flow's requests served / queued (limit) / answered 429 per s, ${inputs.sharedLevel.name} | ${rows.map((r) => `${fmt(r.change.flowControl.shared.executing)} / ${fmt(r.change.flowControl.shared.queued)} (${fmt(r.change.flowControl.shared.queueLimit)}) / ${fmt(r.change.flowControl.shared.throttledPerSecond)}`).join(' | ')} | modelled |`,
    `| … ${inputs.dedicatedLevel.name} | ${rows.map((r) => `${fmt(r.change.flowControl.dedicated.executing)} / ${fmt(r.change.flowControl.dedicated.queued)} (${fmt(r.change.flowControl.dedicated.queueLimit)}) / ${fmt(r.change.flowControl.dedicated.throttledPerSecond)}`).join(' | ')} | modelled |`,
    `| ClusterClass change: one pass (requests × request time) | ${rows.map((r) => `${fmt(r.change.passSeconds, 2)} s`).join(' | ')} | modelled from measured |`,
    `| ClusterClass change: all converged, capi-serverless | ${rows.map((r) => duration(r.change.allConvergedSeconds)).join(' | ')} | modelled |`,
    `| … with a priority level of its own (binding limit) | ${rows.map((r) => `${duration(r.change.dedicated.allConvergedSeconds)} (${r.change.dedicated.binding})`).join(' | ')} | modelled |`,
    `| ClusterClass change: all converged, upstream (${fmt(inputs.upstreamWorkers.value)} workers) | ${rows.map((r) => duration(r.change.upstreamAllConvergedSeconds)).join(' | ')} | modelled from measured |`,
    `| … uncalibrated (request times as on loopback): capi-serverless / own level / upstream | ${uncalibrated.map((r) => `${duration(r.change.allConvergedSeconds)} / ${duration(r.change.dedicated.allConvergedSeconds)} / ${duration(r.change.upstreamAllConvergedSeconds)}`).join(' | ')} | modelled |`,
    `| peak API requests/s / DynamoDB WCU/s | ${rows.map((r) => `${fmt(r.change.peakApiRequestsPerSecond)} / ${fmt(r.change.peakWriteUnitsPerSecond)}`).join(' | ')} | modelled |`,
    '',
    `Flow control as kube-apiserver v1.34 does it: ${level(inputs.sharedLevel)}; ${level(inputs.dedicatedLevel)}; one flow per function identity; a 429 is sent again after ${fmt(inputs.throttleRetrySeconds.value)} s. Times are calibrated to the measured fleet-wide change (the largest N measured, see the calibration below): request times × ${fmt(inputs.calibration.b.value, 1)} (B) and × ${fmt(inputs.calibration.a.value, 1)} (A).`,
    '',
    'Inputs:',
    '',
    ...Object.entries(inputs)
      .filter(([, v]) => typeof v === 'object' && v !== null && 'basis' in v)
      .map(([k, v]) => `- \`${k}\`: ${fmt((v as Input).value, 3)} — ${(v as Input).basis}: ${(v as Input).source}`),
    ...(
      [
        ['sharedLevel.seats', inputs.sharedLevel.seats],
        ['dedicatedLevel.seats', inputs.dedicatedLevel.seats],
        ['calibration.b', inputs.calibration.b],
        ['calibration.a', inputs.calibration.a],
      ] as const
    ).map(([k, v]) => `- \`${k}\`: ${fmt(v.value, 3)} — ${v.basis}: ${v.source}`),
    ...ticks.map(
      (t) =>
        `- DynamoDB Local, ${fmt(t.clusters)} checkpoints written in ${fmt(t.loadSeconds, 0)} s: nothing due p50 ${fmt(t.idleQuery.p50Ms, 1)} ms (max ${fmt(t.idleQuery.maxMs, 1)}, ${t.idleQuery.found} found), 1 % due p50 ${fmt(t.dueQuery.p50Ms, 0)} ms (${t.dueQuery.found} found), all ${fmt(t.sweepReads.found)} read back in batches in ${duration(t.sweepReads.ms / 1000)}`,
    ),
    ...mapping.map(
      (m) =>
        `- kube-apiserver with ${fmt(m.clusters)} Clusters (${fmt(m.bytesPerCluster)} bytes each in a page, created in ${fmt(m.loadSeconds, 0)} s): the mapping's LIST in ${fmt(m.pages)} pages, p50 ${fmt(m.listMs.p50, 0)} ms (max ${fmt(m.listMs.max, 0)}), ${fmt(m.pageMs, 0)} ms a page`,
    ),
  ];
  return lines.join('\n');
}

/** The two calibration points side by side: the larger N measured against what the first point's calibration modelled. */
function computeCalibrationMarkdown(point: CalibrationPoint, first: ScaleInputs): string {
  const row = (side: 'a' | 'b', who: string) => {
    const modelledThere = point.uncalibratedSeconds[side] * first.calibration[side].value;
    return `| ${who} | ${duration(point.measuredSeconds[side])} | ${duration(modelledThere)} (× ${fmt(first.calibration[side].value, 1)}) | ${fmt(modelledThere / point.measuredSeconds[side], 2)} | × ${fmt(point.calibration[side].value, 1)} |`;
  };
  return [
    `Calibration at ${fmt(point.clusters)} Clusters (${point.basis}): the fleet-wide ClusterClass change, every Cluster converged, measured against the model calibrated to the first point, run as the bench ran. The rows above use the ${fmt(point.clusters)}-Cluster calibration.`,
    '',
    `| side | measured at ${fmt(point.clusters)} | modelled with the first point's calibration | modelled / measured | calibration at ${fmt(point.clusters)} |`,
    '| --- | ---: | ---: | ---: | ---: |',
    row('b', 'B, capi-serverless'),
    row('a', 'A, upstream'),
  ].join('\n');
}

// NOTE: BENCH_SCALE_REUSE=1 keeps the DynamoDB Local measurements of the last run and recomputes the model only
// (e.g. after a new side-by-side run).
const ticks: TickMeasurement[] =
  process.env['BENCH_SCALE_REUSE'] === '1' ? readJson<{ ticks: TickMeasurement[] }>('scale.json').ticks : [];
if (ticks.length === 0) for (const n of sizes) ticks.push(await measureTick(n));
// NOTE: BENCH_SCALE_MAPPING_SIZES set measures the mapping again even with BENCH_SCALE_REUSE=1.
const mapping: MappingMeasurement[] =
  process.env['BENCH_SCALE_REUSE'] === '1' && process.env['BENCH_SCALE_MAPPING_SIZES'] === undefined
    ? (readJson<{ mapping?: MappingMeasurement[] }>('scale.json').mapping ?? [])
    : [];
if (mapping.length === 0) for (const m of mappingSizes) mapping.push(await measureMapping(m));
// NOTE: BENCH_SCALE_SIDE names another side-by-side result in test/bench/results (default side-by-side.json).
const sideFile = process.env['BENCH_SCALE_SIDE'] ?? 'side-by-side.json';
const inputsAt100 = computeInputs(
  readJson<SideBenchResult>(sideFile),
  readJson<BenchLatest>('latest.json'),
  ticks,
  mapping,
  sideFile,
);
// NOTE: BENCH_SCALE_TOPO names the topology-only run at a larger N (bench:topology-only, default
// topology-only-1000.json): the second calibration point. The model is calibrated to the larger point (nearer the
// sizes it models); the table shows what the first point's calibration modelled there.
const topoFile = process.env['BENCH_SCALE_TOPO'] ?? 'topology-only-1000.json';
const topoPoint = existsSync(new URL(topoFile, resultsDir))
  ? computeTopologyOnlyPoint(
      { ...inputsAt100, calibration: { b: modelled(1, 'uncalibrated'), a: modelled(1, 'uncalibrated') } },
      readJson<TopologyOnlyResult>(topoFile),
      topoFile,
    )
  : undefined;
const inputs: ScaleInputs = topoPoint ? { ...inputsAt100, calibration: topoPoint.calibration } : inputsAt100;
const calibrationPoints = topoPoint
  ? [
      {
        clusters: Number(readJson<SideBenchResult>(sideFile).config['clusters']),
        calibration: { b: inputsAt100.calibration.b.value, a: inputsAt100.calibration.a.value },
        source: { b: inputsAt100.calibration.b.source, a: inputsAt100.calibration.a.source },
      },
      {
        clusters: topoPoint.clusters,
        calibration: { b: topoPoint.calibration.b.value, a: topoPoint.calibration.a.value },
        source: { b: topoPoint.calibration.b.source, a: topoPoint.calibration.a.source },
        measuredSeconds: topoPoint.measuredSeconds,
        modelledWithFirstSeconds: {
          b: topoPoint.uncalibratedSeconds.b * inputsAt100.calibration.b.value,
          a: topoPoint.uncalibratedSeconds.a * inputsAt100.calibration.a.value,
        },
      },
    ]
  : [];
const rows = computeScaleModel(
  inputs,
  ticks.map((t) => t.clusters),
);
const uncalibrated = computeScaleModel(
  { ...inputs, calibration: { b: modelled(1, 'uncalibrated'), a: modelled(1, 'uncalibrated') } },
  ticks.map((t) => t.clusters),
);
const markdown = [
  computeMarkdown(rows, uncalibrated, inputs, ticks, mapping),
  ...(topoPoint ? ['', computeCalibrationMarkdown(topoPoint, inputsAt100)] : []),
].join('\n');
await writeFormatted(
  new URL('scale.json', resultsDir),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: machineDescription(),
      ticks,
      mapping,
      inputs: { ...inputs, idleTickQueryMs: Object.fromEntries(inputs.idleTickQueryMs) },
      rows,
      calibrationPoints,
    },
    null,
    2,
  ),
);
await writeFormatted(new URL('scale.md', resultsDir), markdown);
process.stdout.write(`${markdown}\n`);
