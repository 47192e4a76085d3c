// Shared setup of the wired-function tests: a real management cluster and DynamoDB Local, the environment a deployed
// function reads, the functions' own handlers (functions/<controller>.ts, imported once the environment is set), and
// a second handler over the same wired reconciler whose Kubernetes and DynamoDB requests are counted.
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { createCheckpointStore, createDynamoDBClient, ensureTable, type Controller } from '#shared/checkpoint/index.ts';
import type { CheckpointStore } from '#shared/checkpoint/index.ts';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import {
  createControllerHandler,
  type ControllerHandler,
  type HandlerResult,
} from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent, type ObjectChange } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { reconcilers } from '#shared/controllers.ts';
import type { PassReport, RuntimeDeps } from '#shared/runtime/types.ts';
import { startManagementCluster, type RequestLog, type TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/support/harness/dynamodb.ts';

export const writeCommands = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
]);

export type WiredContext = {
  mgmt: TestCluster;
  ddb: DynamoDBServer;
  store: CheckpointStore;
  /** The deployed function's handler (`functions/<controller>.ts`). */
  functionHandler: ControllerHandler;
  /** The same wired reconciler with counted clients and the clock below. */
  countedHandler: ControllerHandler;
  kubeLog: RequestLog;
  ddbCommands: string[];
  clock: { now: number };
};

/** Registers hooks that start the servers and load `functions/<controller>.ts` with the environment pointing at them. */
export function useWiredFunction(
  controller: Controller,
  opts: { extraCrds?: readonly KubeObject[] } = {},
): WiredContext {
  const ctx = {} as WiredContext;
  let deps: RuntimeDeps | undefined;
  before(async () => {
    [ctx.mgmt, ctx.ddb] = await Promise.all([
      startManagementCluster({ name: `wired-${controller}`, ...(opts.extraCrds ? { extraCrds: opts.extraCrds } : {}) }),
      startDynamoDB(),
    ]);
    const tableName = `wired-${controller}-${process.pid}`;
    // NOTE: exactly what a deployed function gets from its environment (credentials: DynamoDB Local's).
    Object.assign(process.env, {
      KUBECONFIG: ctx.mgmt.controlPlane.kubeconfigPath,
      DYNAMODB_ENDPOINT: ctx.ddb.endpoint,
      AWS_REGION: ctx.ddb.region,
      AWS_ACCESS_KEY_ID: ctx.ddb.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ctx.ddb.credentials.secretAccessKey,
      TABLE_NAME: tableName,
      BACKOFF_BASE_MS: '1000',
      BACKOFF_MAX_MS: '60000',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    const client = createDynamoDBClient(ctx.ddb);
    ctx.ddbCommands = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        ctx.ddbCommands.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
    ctx.store = createCheckpointStore({ client, tableName });
    await ensureTable(ctx.store);
    const modules = {
      topology: () => import('#functions/topology.ts'),
      addons: () => import('#functions/addons.ts'),
      providers: () => import('#functions/providers.ts'),
      rollout: () => import('#functions/rollout.ts'),
    } as const;
    ctx.functionHandler = (await modules[controller]()).handler;
    const counted = await ctx.mgmt.newClient();
    ctx.kubeLog = counted.log;
    ctx.clock = { now: Date.now() };
    const logger = new Logger({ serviceName: `wired-${controller}`, logLevel: 'SILENT' });
    deps = {
      kube: counted.kube,
      store: ctx.store,
      logger,
      config: computeRuntimeConfig(process.env),
      now: () => ctx.clock.now,
      jitter: () => 0.5,
    };
    const reconciler = reconcilers[controller];
    if (!reconciler) throw new Error(`no ${controller} reconciler is wired`);
    ctx.countedHandler = createControllerHandler({ reconciler, logger, getDeps: () => Promise.resolve(deps!) });
    resetCounters(ctx);
  });
  after(async () => {
    deps?.kube.close();
    ctx.store?.client.destroy();
    await Promise.all([ctx.mgmt?.stop(), ctx.ddb?.stop()]);
  });
  return ctx;
}

export function resetCounters(ctx: WiredContext): void {
  ctx.kubeLog.reset();
  ctx.ddbCommands.length = 0;
}

export const ddbWrites = (ctx: WiredContext) => ctx.ddbCommands.filter((c) => writeCommands.has(c));

/** An EventBridge event from the forwarder about one object. */
export function changeEvent(change: Omit<ObjectChange, 'type'> & { type?: ObjectChange['type'] }) {
  return objectChangedEvent({ type: 'MODIFIED', ...change } as ObjectChange, randomUUID(), new Date());
}

/** Invokes a handler with a fresh Lambda context (one minute left). */
export async function invoke(
  handler: ControllerHandler,
  event: unknown,
  name = 'wired',
): Promise<readonly PassReport[]> {
  const result: HandlerResult = await handler(event, localLambdaContext(name, 60_000));
  if (result.status !== 'Handled') throw new Error(`event rejected: ${result.reason}`);
  return result.passes;
}
