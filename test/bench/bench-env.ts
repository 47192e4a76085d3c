// The benchmark's servers and the functions' dependencies: a real management cluster, one shared workload
// cluster, DynamoDB Local with a fresh table, the three wired controller handlers on counted clients, and a clock
// the driver can move forward (so requeues become due without waiting).
import { Logger } from '@aws-lambda-powertools/logger';
import {
  controllers,
  createCheckpointStore,
  createDynamoDBClient,
  ensureTable,
  type CheckpointStore,
  type Controller,
} from '#shared/checkpoint/index.ts';
import { createControllerHandler, type ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { reconcilers } from '#shared/controllers.ts';
import type { Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';
import { startManagementCluster, startWorkloadCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/support/harness/dynamodb.ts';
import { startRequestCounter, type RequestCounter, type ServerRole } from '#test/bench/http-counter.ts';
import { fleetCrds } from '#test/bench/fleet.ts';

export type BenchEnv = {
  readonly mgmt: TestCluster;
  readonly workload: TestCluster;
  readonly ddb: DynamoDBServer;
  readonly store: CheckpointStore;
  readonly deps: RuntimeDeps;
  readonly reconcilers: Readonly<Record<Controller, Reconciler>>;
  readonly handlers: Readonly<Record<Controller, ControllerHandler>>;
  readonly counter: RequestCounter;
  /** Added to the wall clock the functions see. */
  readonly clock: { offsetMs: number };
  stop(): Promise<void>;
};

const hostOf = (url: string) => new URL(url).host;

/** Starts everything; the caller must `stop()` it. */
export async function startBenchEnv(): Promise<BenchEnv> {
  const [mgmt, ddb] = await Promise.all([
    startManagementCluster({ name: 'bench-mgmt', extraCrds: fleetCrds() }),
    startDynamoDB(),
  ]);
  const workload = await startWorkloadCluster(mgmt, { namespace: 'default', name: 'bench-workload' });
  const client = createDynamoDBClient(ddb);
  const store = createCheckpointStore({ client, tableName: `bench-${process.pid}-${Date.now()}` });
  await ensureTable(store);
  const { kube } = await mgmt.newClient();
  const clock = { offsetMs: 0 };
  const deps: RuntimeDeps = {
    kube,
    store,
    logger: new Logger({ serviceName: 'capi-serverless-bench', logLevel: 'SILENT' }),
    config: computeRuntimeConfig({}),
    now: () => Date.now() + clock.offsetMs,
    jitter: Math.random,
  };
  const wired = {} as Record<Controller, Reconciler>;
  const handlers = {} as Record<Controller, ControllerHandler>;
  for (const controller of controllers) {
    const reconciler = reconcilers[controller];
    if (!reconciler) throw new Error(`no ${controller} reconciler is wired in shared/controllers.ts`);
    wired[controller] = reconciler;
    handlers[controller] = createControllerHandler({
      reconciler,
      logger: deps.logger,
      getDeps: () => Promise.resolve(deps),
    });
  }
  const servers = new Map<string, ServerRole>([
    [hostOf(mgmt.kube.server), 'management'],
    [hostOf(workload.kube.server), 'workload'],
    [hostOf(ddb.endpoint), 'dynamodb'],
  ]);
  const counter = startRequestCounter(servers);
  return {
    mgmt,
    workload,
    ddb,
    store,
    deps,
    reconcilers: wired,
    handlers,
    counter,
    clock,
    async stop() {
      counter.stop();
      kube.close();
      client.destroy();
      await Promise.all([workload.stop(), mgmt.stop(), ddb.stop()]);
    },
  };
}
