// Side B's functions as a process of their own, so the bench measures their CPU and memory apart from the driver:
// DynamoDB Local, the functions' handlers (createFunctionHandler over the same reconcilers as Lambda) behind the local
// bus with ticks at BENCH_TICK_MS, the webhooks Lambda's handler on loopback (registered as deployed), and an HTTP
// endpoint the forwarder process puts events on (`POST /events`, what PutEvents is to EventBridge). `GET /stats`
// answers what a Lambda bill counts: invocations and their summed duration per controller, passes run and skipped,
// requeues, and the one-time schedules (EventBridge Scheduler) the functions create for passes that asked to run
// again: the schedules go to a real Scheduler API (moto's server) as deployed (SCHEDULE_GROUP_NAME and
// SCHEDULER_ROLE_ARN set, as the public variant's stack sets them), and fire-due-schedules.ts fires them when due.
// BENCH_WAKE_UPS=0 leaves them out (requeued passes then wait for a tick, as in private subnets).
// Logs at level ERROR only: each failed pass and failed invocation is one JSON line, which the bench reads from this
// process's output (compute-pass-errors.ts). Prints `READY <json>` on stdout once serving; stops on SIGTERM.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCheckpointStore, createDynamoDBClient, ensureTable, type Controller } from '#shared/checkpoint/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { applyObject, createKubeClient } from '#shared/kube/index.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import type { ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import type { FanOutSink } from '#shared/runtime/fan-out.ts';
import { createLocalBus, type LocalBus } from '#shared/runtime/local-bus.ts';
import { reconcilers } from '#shared/controllers.ts';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { startWebhookServer } from '#test/support/harness/webhook-server.ts';
import { createScheduleGroup, startMoto } from '#test/support/harness/moto.ts';
import { computeInvocationFailedLine } from './compute-pass-errors.ts';
import { startScheduleFiring, type ScheduleFiring } from './fire-due-schedules.ts';
import { loadWebhookConfigurations } from '../../../infra/webhooks/webhook-manifests.ts';

export type FunctionsStats = {
  invocations: Record<
    string,
    {
      events: number;
      ticks: number;
      fanOuts?: number;
      /** Invocations a one-time schedule started (a `Pass Due` event). */
      wakeUps?: number;
      durationMs: number;
      tickDurationMs?: number;
      wakeUpDurationMs?: number;
      failed: number;
    }
  >;
  /** `requeued`: passes that ran and asked to run again at a time (Requeue); `errors` ask the same with backoff. */
  passes: { ran: number; skipped: number; errors: number; requeued?: number };
  /**
   * One-time schedules: what the functions' wake-up sink reported (created, updated, kept, failed), how many were
   * deleted before they fired (their passes no longer asked to run again) and how many fired (each one Scheduler
   * invocation); absent without wake-ups.
   */
  schedules?: { created: number; updated: number; kept: number; failed: number; deleted: number; fired: number };
  webhookCalls: number;
  eventsReceived: number;
};

const controllers: Controller[] = ['topology', 'addons'];
const kubeconfigPath = process.env['BENCH_KUBECONFIG'];
if (!kubeconfigPath) throw new Error('BENCH_KUBECONFIG is not set');
const tickMs = Number(process.env['BENCH_TICK_MS'] ?? 300_000);
const withWakeUps = process.env['BENCH_WAKE_UPS'] !== '0';

const ddb = await startDynamoDB();
const scheduleGroup = 'capi-serverless-bench';
const moto = withWakeUps ? await startMoto({ region: ddb.region }) : undefined;
const tableName = `bench-side-${process.pid}`;
const env = {
  ...process.env,
  KUBECONFIG: kubeconfigPath,
  DYNAMODB_ENDPOINT: ddb.endpoint,
  AWS_REGION: ddb.region,
  AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
  TABLE_NAME: tableName,
  // NOTE: error lines only (failed passes, timed-out passes, webhook errors): the bench reads them from this process's
  // output into its result (compute-pass-errors.ts); quieter levels would cost the measured CPU.
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  POWERTOOLS_METRICS_DISABLED: 'true',
  POWERTOOLS_TRACE_ENABLED: 'false',
  ...(moto
    ? { SCHEDULE_GROUP_NAME: scheduleGroup, SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/bench-wake-ups' }
    : {}),
};
Object.assign(process.env, {
  // NOTE: the functions' SchedulerClient takes its endpoint from the environment (service-specific endpoint).
  ...(moto ? { AWS_ENDPOINT_URL_SCHEDULER: moto.endpoint } : {}),
  AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
  POWERTOOLS_METRICS_DISABLED: 'true',
});
const ddbClient = createDynamoDBClient(ddb);
await ensureTable(createCheckpointStore({ client: ddbClient, tableName }));

const scheduler = moto?.createSchedulerClient();
if (scheduler) await createScheduleGroup(scheduler, scheduleGroup);

const stats: FunctionsStats = {
  invocations: {},
  passes: { ran: 0, skipped: 0, errors: 0, requeued: 0 },
  ...(moto ? { schedules: { created: 0, updated: 0, kept: 0, failed: 0, deleted: 0, fired: 0 } } : {}),
  webhookCalls: 0,
  eventsReceived: 0,
};

/** A line on stderr with the time (the bench keeps it with BENCH_SIDE_LOGS). */
const stamp = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/** The handler, with what Lambda would bill (one invocation, its duration) counted. */
function counted(controller: Controller, handler: ControllerHandler): ControllerHandler {
  return async (event, context) => {
    const row = (stats.invocations[controller] ??= {
      events: 0,
      ticks: 0,
      fanOuts: 0,
      wakeUps: 0,
      durationMs: 0,
      tickDurationMs: 0,
      wakeUpDurationMs: 0,
      failed: 0,
    });
    const detailType = (event as { 'detail-type'?: string })['detail-type'];
    if (detailType === 'Tick') row.ticks++;
    else if (detailType === 'Passes Requested') row.fanOuts = (row.fanOuts ?? 0) + 1;
    else if (detailType === 'Pass Due') row.wakeUps = (row.wakeUps ?? 0) + 1;
    else row.events++;
    const started = performance.now();
    try {
      const result = await handler(event, context);
      if (result.status === 'Handled')
        for (const p of result.passes) {
          if (p.status === 'Ran') stats.passes.ran++;
          else stats.passes.skipped++;
          if (p.status === 'Ran' && p.result === 'Requeue') stats.passes.requeued = (stats.passes.requeued ?? 0) + 1;
          // NOTE: the pass logged what the error was (`pass finished` at level ERROR).
          if (p.result === 'Error') stats.passes.errors++;
        }
      if (result.status === 'Handled' && result.wakeUps && stats.schedules)
        for (const k of ['created', 'updated', 'kept', 'failed'] as const) stats.schedules[k] += result.wakeUps[k];
      if (result.status === 'Handled' && result.wakeUpsDeleted && stats.schedules)
        stats.schedules.deleted += result.wakeUpsDeleted.deleted;
      return result;
    } catch (err) {
      row.failed++;
      const durationMs = performance.now() - started;
      process.stderr.write(
        computeInvocationFailedLine({ at: new Date(), controller, event, durationMs, error: errorMessage(err) }),
      );
      throw err;
    } finally {
      const ms = performance.now() - started;
      row.durationMs += ms;
      if (detailType === 'Tick') row.tickDurationMs = (row.tickDurationMs ?? 0) + ms;
      if (detailType === 'Pass Due') row.wakeUpDurationMs = (row.wakeUpDurationMs ?? 0) + ms;
    }
  };
}

// NOTE: handlers fan out through the bus they are on, created below (a batch invokes its controller once, as on Lambda).
const fanOutTo: { bus?: LocalBus } = {};
const fanOut: FanOutSink = (requests) => fanOutTo.bus?.putPassRequests(requests) ?? Promise.resolve(requests);
const handlers: Partial<Record<Controller, ControllerHandler>> = {};
for (const controller of controllers) {
  const reconciler = reconcilers[controller];
  if (!reconciler) throw new Error(`no ${controller} reconciler is wired`);
  handlers[controller] = counted(controller, createFunctionHandler(reconciler, env, { fanOut }));
}
const bus = createLocalBus({
  handlers,
  retryDelayMs: 500,
  onError: (controller, _event, err) => stamp(`${controller} failed: ${errorMessage(err)}`),
});
fanOutTo.bus = bus;
// NOTE: a fired schedule invokes its function directly (Scheduler's asynchronous invocation; not through the bus).
const firing: ScheduleFiring | undefined = scheduler
  ? startScheduleFiring({
      client: scheduler,
      groupName: scheduleGroup,
      invoke: async (event) => {
        const controller = (event as { detail?: { controller?: Controller } }).detail?.controller;
        const handler = controller ? handlers[controller] : undefined;
        if (!controller || !handler) throw new Error(`a schedule for no wired controller: ${String(controller)}`);
        if (stats.schedules) stats.schedules.fired++;
        return handler(event, localLambdaContext(controller, 5 * 60_000));
      },
      onError: stamp,
    })
  : undefined;

const kube = await createKubeClient({ kubeconfigPath });
const pathToken = randomBytes(24).toString('hex');
const webhooksHandler = createWebhooksHandler(computeWebhooksHandlerOptions({ ...env, WEBHOOK_PATH_TOKEN: pathToken }));
const webhooks = await startWebhookServer((request) => {
  stats.webhookCalls++;
  return webhooksHandler(request);
});
for (const object of loadWebhookConfigurations({
  baseUrl: `${webhooks.url}/${pathToken}`,
  caBundle: webhooks.caBundle,
}))
  await applyObject(kube, object, { fieldManager: 'capi-serverless-install', force: true });

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(stats));
    return;
  }
  if (req.method !== 'POST' || req.url !== '/events') {
    res.statusCode = 404;
    res.end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const changes = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ObjectChange[];
    stats.eventsReceived += changes.length;
    void bus.putEvents(changes).then((refused) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(refused));
    });
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
bus.startTicks(tickMs);

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    server.close();
    await firing?.stop();
    await bus.stop();
    scheduler?.destroy();
    await moto?.stop();
    await webhooks.stop();
    kube.close();
    ddbClient.destroy();
    await ddb.stop();
    process.exit(0);
  })();
});

const { port } = server.address() as AddressInfo;
process.stdout.write(
  `READY ${JSON.stringify({ eventsUrl: `http://127.0.0.1:${port}/events`, statsUrl: `http://127.0.0.1:${port}/stats` })}\n`,
);
