// Shared setup of the runtime integration tests: a real management cluster, DynamoDB Local with a fresh table,
// and counters of the Kubernetes and DynamoDB requests the handlers make.
import { after, before } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import type { CheckpointStore } from '#shared/checkpoint/index.ts';
import { applyObject } from '#shared/kube/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';
import { startManagementCluster, type RequestLog, type TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer, type StartDynamoDBOptions } from '#test/support/harness/dynamodb.ts';
import { sourceLabel } from './configmap-reconciler.ts';

export type RuntimeTestContext = {
  mgmt: TestCluster;
  ddb: DynamoDBServer;
  store: CheckpointStore;
  /** Requests of the handlers' kube client. */
  kubeLog: RequestLog;
  /** DynamoDB commands the handlers sent, by name (`GetItemCommand`, `PutItemCommand`, ...). */
  ddbCommands: string[];
  clock: { now: number };
  deps: RuntimeDeps;
};

export const writeCommands = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

export type RuntimeServersOptions = { readonly dynamodb?: StartDynamoDBOptions };

/** Registers hooks that start the servers; fields are filled in by the time the tests run. */
export function useRuntimeServers(
  env: Record<string, string> = {},
  options: RuntimeServersOptions = {},
): RuntimeTestContext {
  const ctx = {} as RuntimeTestContext;
  before(async () => {
    [ctx.mgmt, ctx.ddb] = await Promise.all([
      startManagementCluster({ name: 'runtime' }),
      startDynamoDB(options.dynamodb),
    ]);
    const client = createDynamoDBClient(ctx.ddb);
    ctx.ddbCommands = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        ctx.ddbCommands.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
    ctx.store = createCheckpointStore({ client, tableName: `runtime-${process.pid}-${Date.now()}` });
    await ensureTable(ctx.store);
    ctx.ddbCommands.length = 0;
    const { kube, log } = await ctx.mgmt.newClient();
    ctx.kubeLog = log;
    // NOTE: a fixed clock near real time: DynamoDB Local enforces TTL, so rows stamped in the past vanish.
    ctx.clock = { now: Date.now() };
    ctx.deps = {
      kube,
      store: ctx.store,
      logger: new Logger({ serviceName: 'runtime-test', logLevel: 'SILENT' }),
      config: computeRuntimeConfig({ BACKOFF_BASE_MS: '1000', BACKOFF_MAX_MS: '60000', ...env }),
      now: () => ctx.clock.now,
      jitter: () => 0.5,
    };
  });
  after(async () => {
    ctx.deps?.kube.close();
    ctx.store?.client.destroy();
    await Promise.all([ctx.mgmt?.stop(), ctx.ddb?.stop()]);
  });
  return ctx;
}

/** Creates or updates a source ConfigMap through the admin client (not counted in `kubeLog`). */
export async function putSource(ctx: RuntimeTestContext, name: string, data: Record<string, string>): Promise<void> {
  await applyObject(
    ctx.mgmt.kube,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name, labels: { [sourceLabel]: 'true' } },
      data,
    },
    { fieldManager: 'test-user', force: true },
  );
}

/** Clears both request counters. */
export function resetCounters(ctx: RuntimeTestContext): void {
  ctx.kubeLog.reset();
  ctx.ddbCommands.length = 0;
}
