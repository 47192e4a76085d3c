// Measurements of the passes on the real servers: reaching steady state through ticks, the skip path and a forced
// pass per controller, forced-pass throughput, tick sweeps, one spec change, and event → pass start on the local bus.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Controller } from '#shared/checkpoint/index.ts';
import { applyObject, listObjects } from '#shared/kube/index.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { createPassRunner } from '#shared/runtime/run-pass.ts';
import { objectChangedEvent, tickEvent, type ObjectChange } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createLocalBus } from '#shared/runtime/local-bus.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import type { PassKey, PassReport, Reconciler } from '#shared/runtime/types.ts';
import { markAvailable } from '#test/integration/providers/provider-fixtures.ts';
import type { BenchEnv } from '#test/bench/bench-env.ts';
import {
  countByVerbAndResource,
  summarize,
  type CountedRequest,
  type RequestSummary,
} from '#test/bench/http-counter.ts';
import {
  clusterName,
  fleetCluster,
  fleetClusterTemplate,
  fleetManager,
  fleetNamespace,
  providerKeys,
} from '#test/bench/fleet.ts';
import { percentile } from '#test/bench/stats.ts';

const capi = 'cluster.x-k8s.io/v1beta2';
const lambdaTimeoutMs = 5 * 60_000;
export const clusterKey = (i: number): PassKey => ({
  apiVersion: capi,
  kind: 'Cluster',
  namespace: fleetNamespace,
  name: clusterName(i),
});
export const sampleKeys: Record<Controller, (n: number) => PassKey[]> = {
  topology: (n) => Array.from({ length: Math.min(n, 20) }, (_, i) => clusterKey(Math.floor((i * n) / Math.min(n, 20)))),
  addons: () =>
    ['cni', 'monitoring'].map((name) => ({
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      namespace: fleetNamespace,
      name,
    })),
  providers: () =>
    Object.values(providerKeys).map((p) => ({
      apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
      kind: p.kind,
      namespace: p.namespace,
      name: p.name,
    })),
  // NOTE: the benches create no ClusterRollout.
  rollout: () => [],
};

/** The Deployment controller's part for the fake providers: every provider Deployment becomes Available. */
async function markProviderDeploymentsAvailable(env: BenchEnv): Promise<void> {
  for (const namespace of [providerKeys.core.namespace, providerKeys.infrastructure.namespace]) {
    const list = await listObjects(env.mgmt.kube, { apiVersion: 'apps/v1', kind: 'Deployment', namespace });
    for (const d of list.items) {
      const available = (
        (d['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []
      ).some((c) => c.type === 'Available' && c.status === 'True');
      if (!available) await markAvailable(env.mgmt.kube, namespace, d.metadata.name ?? '');
    }
  }
}

function handled(result: HandlerResult): readonly PassReport[] {
  if (result.status !== 'Handled') throw new Error(`event rejected: ${result.reason}`);
  return result.passes;
}

export type SteadyState = {
  readonly rounds: number;
  readonly passes: number;
  readonly seconds: number;
  readonly errors: string[];
};

/**
 * Ticks every controller until a round runs no pass (the clock moves a minute per round so requeues come due). Each
 * round also delivers what the forwarder would: an event about each of the `clusters` Clusters to the controllers
 * Clusters are routed to, since a topology pass that creates a Cluster's objects writes the Cluster itself (its
 * refs), a change the next event pass verifies. An event over an unchanged Cluster is skipped.
 */
export async function reachSteadyState(
  env: BenchEnv,
  clusters: number,
  log: (line: string) => void,
  maxRounds = 12,
): Promise<SteadyState> {
  const started = performance.now();
  let total = 0;
  const errors: string[] = [];
  for (let round = 1; round <= maxRounds; round++) {
    env.clock.offsetMs += 61_000;
    const ran: Record<string, number> = {};
    for (const controller of ['providers', 'topology', 'addons'] as const) {
      const passes = handled(
        await env.handlers[controller](
          tickEvent(controller, randomUUID(), new Date(env.deps.now())),
          localLambdaContext(controller, 15 * 60_000),
        ),
      ).filter((p) => p.status === 'Ran');
      ran[controller] = passes.length;
      for (const p of passes) if (p.result === 'Error') errors.push(`${p.key.kind} ${p.key.name}: ${p.reason}`);
    }
    ran['events'] = 0;
    await mapLimit(
      Array.from({ length: clusters }, (_, i) => clusterKey(i)),
      8,
      async (key) => {
        const event = objectChangedEvent({ ...key, type: 'MODIFIED' }, randomUUID(), new Date(env.deps.now()));
        for (const c of ['topology', 'addons'] as const) {
          const passes = handled(await env.handlers[c](event, localLambdaContext(c, lambdaTimeoutMs))).filter(
            (p) => p.status === 'Ran',
          );
          ran['events'] = (ran['events'] ?? 0) + passes.length;
          for (const p of passes) if (p.result === 'Error') errors.push(`${p.key.kind} ${p.key.name}: ${p.reason}`);
        }
      },
    );
    await markProviderDeploymentsAvailable(env);
    const count = Object.values(ran).reduce((a, b) => a + b, 0);
    total += count;
    log(`  round ${round}: passes ${JSON.stringify(ran)} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    if (count === 0) return { rounds: round, passes: total, seconds: (performance.now() - started) / 1000, errors };
  }
  throw new Error(`no steady state after ${maxRounds} tick rounds; errors: ${errors.slice(0, 5).join('; ')}`);
}

export type PassSample = RequestSummary & {
  readonly durationMs: number;
  readonly byVerbAndResource: Record<string, number>;
  readonly statuses: Record<string, number>;
};

/** Worst case (max of each figure) and the request breakdown of the worst sample by total Kubernetes requests. */
export type PassFigures = { readonly samples: number; readonly max: PassSample; readonly meanDurationMs: number };

async function measure(env: BenchEnv, run: () => Promise<string>): Promise<PassSample> {
  env.counter.reset();
  const t0 = performance.now();
  const status = await run();
  const durationMs = performance.now() - t0;
  const requests: CountedRequest[] = [...env.counter.requests];
  return {
    ...summarize(requests),
    durationMs,
    byVerbAndResource: countByVerbAndResource(requests),
    statuses: { [status]: 1 },
  };
}

function worst(samples: readonly PassSample[]): PassFigures {
  const byTotal = [...samples].sort((a, b) => b.kube.total - a.kube.total)[0];
  if (!byTotal) throw new Error('no samples');
  const statuses: Record<string, number> = {};
  for (const s of samples) for (const [k, v] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const max = (f: (s: PassSample) => number) => Math.max(...samples.map(f));
  return {
    samples: samples.length,
    meanDurationMs: samples.reduce((a, s) => a + s.durationMs, 0) / samples.length,
    max: {
      ...byTotal,
      statuses,
      kube: {
        total: max((s) => s.kube.total),
        reads: max((s) => s.kube.reads),
        mutating: max((s) => s.kube.mutating),
        dryRuns: max((s) => s.kube.dryRuns),
      },
      dynamodb: {
        reads: max((s) => s.dynamodb.reads),
        writes: max((s) => s.dynamodb.writes),
        readUnits: max((s) => s.dynamodb.readUnits),
        writeUnits: max((s) => s.dynamodb.writeUnits),
      },
    },
  };
}

/** An event about each sampled, unchanged object, through the controller's handler (the skip path). */
export async function measureSkipPath(
  env: BenchEnv,
  controller: Controller,
  keys: readonly PassKey[],
): Promise<PassFigures> {
  const samples: PassSample[] = [];
  for (const key of keys) {
    samples.push(
      await measure(env, async () => {
        const change: ObjectChange = { ...key, type: 'MODIFIED' };
        const passes = handled(
          await env.handlers[controller](
            objectChangedEvent(change, randomUUID(), new Date(env.deps.now())),
            localLambdaContext(controller, lambdaTimeoutMs),
          ),
        );
        return passes.map((p) => `${p.status}:${p.reason}`).join(',');
      }),
    );
  }
  return worst(samples);
}

/** A forced pass (what a tick's drift correction runs) over each sampled, unchanged object. */
export async function measureForcedPass(
  env: BenchEnv,
  controller: Controller,
  keys: readonly PassKey[],
): Promise<PassFigures> {
  const runPass = createPassRunner(env.reconcilers[controller], env.deps);
  const samples: PassSample[] = [];
  for (const key of keys) {
    samples.push(
      await measure(env, async () => {
        const p = await runPass(
          { key, force: true, trigger: 'bench' },
          localLambdaContext(controller, lambdaTimeoutMs),
        );
        return `${p.status}:${p.result ?? p.reason}`;
      }),
    );
  }
  return worst(samples);
}

export type Throughput = {
  readonly concurrency: number;
  readonly passes: number;
  readonly seconds: number;
  readonly perSecond: number;
};

/** Forced topology passes over `keys` with `concurrency` at a time, in this one process. */
export async function measureThroughput(
  env: BenchEnv,
  keys: readonly PassKey[],
  concurrency: number,
): Promise<Throughput> {
  const runPass = createPassRunner(env.reconcilers.topology, env.deps);
  const t0 = performance.now();
  await mapLimit(keys, concurrency, (key) =>
    runPass({ key, force: true, trigger: 'bench' }, localLambdaContext('topology', lambdaTimeoutMs)),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { concurrency, passes: keys.length, seconds, perSecond: keys.length / seconds };
}

export type TickFigures = RequestSummary & {
  readonly controller: Controller;
  readonly listed: number;
  readonly ran: number;
  readonly swept: boolean;
  readonly durationMs: number;
  readonly workloadRequests: number;
  readonly byVerbAndResource: Record<string, number>;
};

/**
 * One tick of a controller over the unchanged fleet. `sweep`: the tick's sweep is due (the clock moves one sweep
 * interval first), so it lists the controller's kinds and reads their checkpoints in batches.
 */
export async function measureTick(
  env: BenchEnv,
  controller: Controller,
  options: { readonly sweep?: boolean } = {},
): Promise<TickFigures> {
  if (options.sweep === true) env.clock.offsetMs += env.deps.config.sweepIntervalMs + 1;
  env.counter.reset();
  const t0 = performance.now();
  const result = await env.handlers[controller](
    tickEvent(controller, randomUUID(), new Date(env.deps.now())),
    localLambdaContext(controller, 15 * 60_000),
  );
  const durationMs = performance.now() - t0;
  if (result.status !== 'Handled') throw new Error(result.reason);
  const requests = [...env.counter.requests];
  return {
    controller,
    listed: result.tick?.listed ?? 0,
    swept: result.tick?.swept ?? false,
    ran: result.passes.filter((p) => p.status === 'Ran').length,
    durationMs,
    workloadRequests: requests.filter((r) => r.server === 'workload').length,
    ...summarize(requests),
    byVerbAndResource: countByVerbAndResource(requests),
  };
}

export type ChangeFigures = RequestSummary & {
  readonly durationMs: number;
  readonly invocations: number;
  /** Writes to the management cluster: each is one more watch event the forwarder puts on the bus. */
  readonly followUpEvents: number;
  readonly byVerbAndResource: Record<string, number>;
};

/** One spec change of one Cluster (a variable), handled by every controller it is routed to. */
export async function measureSpecChange(env: BenchEnv, i: number): Promise<ChangeFigures> {
  const key = clusterKey(i);
  // NOTE: the whole Cluster as its author applies it (a partial apply would drop the fields it leaves out).
  const cluster = fleetCluster(fleetClusterTemplate(), i);
  const spec = cluster['spec'] as { topology: { variables: { name: string; value: unknown }[] } };
  spec.topology.variables = spec.topology.variables.map((v) =>
    v.name === 'workerImageTag' ? { ...v, value: 'v1.31.0' } : v,
  );
  await applyObject(env.mgmt.kube, cluster, { fieldManager: fleetManager, force: true });
  env.counter.reset();
  const t0 = performance.now();
  const event = objectChangedEvent({ ...key, type: 'MODIFIED' }, randomUUID(), new Date(env.deps.now()));
  await Promise.all(
    (['topology', 'addons'] as const).map((c) => env.handlers[c](event, localLambdaContext(c, lambdaTimeoutMs))),
  );
  const durationMs = performance.now() - t0;
  const requests = [...env.counter.requests];
  const summary = summarize(requests);
  return {
    ...summary,
    durationMs,
    invocations: 2,
    followUpEvents: requests.filter((r) => r.server === 'management' && r.mutating).length,
    byVerbAndResource: countByVerbAndResource(requests),
  };
}

export type LatencyFigures = {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
};

/**
 * Event → start of the pass through the local bus: a real change (an annotation) of a Cluster, then the forwarder's
 * event into `putEvents`; measured until the topology reconciler's `reconcile` is called (after the checkpoint
 * read, the facts and the lease).
 */
export async function measureEventLatency(env: BenchEnv, n: number, samples: number): Promise<LatencyFigures> {
  let onStart: (() => void) | undefined;
  const base = env.reconcilers.topology;
  const timed: Reconciler = {
    ...base,
    reconcile(deps, key, ctx) {
      onStart?.();
      return base.reconcile(deps, key, ctx);
    },
  };
  const handler = createControllerHandler({
    reconciler: timed,
    logger: env.deps.logger,
    getDeps: () => Promise.resolve(env.deps),
  });
  const bus = createLocalBus({ handlers: { topology: handler } });
  const latencies: number[] = [];
  for (let s = 0; s < samples; s++) {
    const key = clusterKey((s * 7) % n);
    await applyObject(
      env.mgmt.kube,
      {
        apiVersion: capi,
        kind: 'Cluster',
        metadata: { namespace: fleetNamespace, name: key.name, annotations: { 'bench/touch': String(s) } },
      },
      { fieldManager: 'bench-annotator', force: true },
    );
    const started = new Promise<number>((resolve) => (onStart = () => resolve(performance.now())));
    const t0 = performance.now();
    await bus.putEvents([{ ...key, type: 'MODIFIED' }]);
    latencies.push((await started) - t0);
    await bus.drain();
  }
  await bus.stop();
  return {
    samples: latencies.length,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: Math.max(...latencies),
  };
}
