// The real product on a management cluster that already runs upstream Cluster API: DynamoDB Local, the functions'
// own handlers (functions/<controller>.ts's createFunctionHandler over the same reconcilers) behind the local bus,
// the forwarder watching the cluster and feeding the bus, ticks on a timer, and the webhooks Lambda's handler served
// on loopback and registered by the deployment's own Helm chart. Every pass's outcome is kept for failures.
import { randomBytes } from 'node:crypto';
import { createCheckpointStore, createDynamoDBClient, ensureTable, type Controller } from '#shared/checkpoint/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { computeProgressLines } from '#shared/local/print-progress.ts';
import type { ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import type { FanOutSink } from '#shared/runtime/fan-out.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createLocalBus, type LocalBus } from '#shared/runtime/local-bus.ts';
import type { RuntimeEvent } from '#shared/runtime/events.ts';
import type { HandlerResult } from '#shared/runtime/handler-result.ts';
import { reconcilers } from '#shared/controllers.ts';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { installChart } from '#test/support/harness/helm.ts';
import { createScheduleGroup, getSchedules, startMoto } from '#test/support/harness/moto.ts';
import { startWebhookServer } from '#test/support/harness/webhook-server.ts';
import { startScheduleFiring } from '#test/bench/side/fire-due-schedules.ts';

export type RunningProduct = {
  readonly bus: LocalBus;
  /** One line per pass that ran (computeProgressLines), plus failed invocations. */
  readonly passLines: string[];
  /** The last `n` pass lines (print them when a step fails). */
  recentPasses(n?: number): string;
  /**
   * Invocations so far, by controller and by what invoked them (a tick, an object change of a kind, or `Pass Due`: a
   * one-time schedule a requeued pass asked for, with `wakeUps`).
   */
  readonly invocations: {
    controller: Controller;
    trigger: 'Tick' | 'Pass Due' | string;
    at: number;
    /** Handler time, ms. */
    ms: number;
    /** Passes skipped because another pass held the lease (after a woken pass's retries). */
    leaseHeld: number;
    /** Passes that ran, reruns a pass was asked for while it held the lease included. */
    ran: number;
    /** Each pass's status and reason (`Ran:Requeue`, `Skipped:UpToDate`), for a test that says what ran and why. */
    passes: string[];
  }[];
  /** The in-process forwarder (its outbox counts the entries sent). */
  readonly forwarder: Forwarder;
  /**
   * The one-time schedules waiting to fire, by their `at(...)` expressions (with `wakeUps`; none without): each one
   * fires later, a billed schedule and invocation, unless a later pass of its object that no longer asks to run again
   * deletes it first.
   */
  pendingWakeUps(): Promise<string[]>;
  stop(): Promise<void>;
};

/**
 * Starts the product against `mgmt` (upstream's CRDs installed, upstream's managers running).
 *
 * @example
 * const product = await startProduct(mgmt, ['topology', 'addons']);
 * try { ... } finally { await product.stop(); }
 */
export async function startProduct(
  mgmt: TestCluster,
  controllers: readonly Controller[],
  opts: {
    tickMs?: number;
    /**
     * Requeued passes get one-time schedules as deployed (SCHEDULE_GROUP_NAME set): the schedules go to a real
     * Scheduler API (moto's server), and each fires when due (fire-due-schedules.ts), invoking its function directly.
     */
    wakeUps?: boolean;
  } = {},
): Promise<RunningProduct> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    const ddb = await startDynamoDB();
    stops.push(() => ddb.stop());
    const kubeconfigPath = mgmt.controlPlane.kubeconfigPath;
    const scheduleGroup = 'capi-serverless-e2e';
    const moto = opts.wakeUps === true ? await startMoto({ region: ddb.region }) : undefined;
    if (moto) stops.push(() => moto.stop());
    const tableName = `e2e-${process.pid}`;
    // NOTE: what a deployed function reads from its environment (credentials: DynamoDB Local's).
    const env = {
      ...process.env,
      KUBECONFIG: kubeconfigPath,
      DYNAMODB_ENDPOINT: ddb.endpoint,
      AWS_REGION: ddb.region,
      AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
      TABLE_NAME: tableName,
      BACKOFF_BASE_MS: '1000',
      BACKOFF_MAX_MS: '10000',
      REQUEUE_AFTER_MS: '5000',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...(moto
        ? { SCHEDULE_GROUP_NAME: scheduleGroup, SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/e2e-wake-ups' }
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
    stops.push(() => Promise.resolve(ddbClient.destroy()));
    await ensureTable(createCheckpointStore({ client: ddbClient, tableName }));

    const handlers: Partial<Record<Controller, ControllerHandler>> = {};
    const durations = new WeakMap<object, number>();
    // NOTE: handlers fan out through the bus they are on, created below (a batch invokes its controller once).
    const fanOutTo: { bus?: LocalBus } = {};
    const fanOut: FanOutSink = (requests) => fanOutTo.bus?.putPassRequests(requests) ?? Promise.resolve(requests);
    for (const controller of controllers) {
      const reconciler = reconcilers[controller];
      if (!reconciler) throw new Error(`no ${controller} reconciler is wired`);
      const handler = createFunctionHandler(reconciler, env, { fanOut });
      handlers[controller] = async (event, context) => {
        const started = performance.now();
        try {
          return await handler(event, context);
        } finally {
          durations.set(event as object, performance.now() - started);
        }
      };
    }
    const passLines: string[] = [];
    const invocations: RunningProduct['invocations'] = [];
    const record = (controller: Controller, event: RuntimeEvent, result: HandlerResult) => {
      invocations.push({
        controller,
        trigger: event['detail-type'] === 'Object Changed' ? event.detail.kind : event['detail-type'],
        at: Date.now(),
        ms: durations.get(event) ?? 0,
        leaseHeld:
          result.status === 'Handled' ? result.passes.filter((p) => p.reason.startsWith('LeaseHeld')).length : 0,
        ran:
          result.status === 'Handled'
            ? result.passes.filter((p) => p.status === 'Ran').reduce((n, p) => n + (p.runs ?? 1), 0)
            : 0,
        passes: result.status === 'Handled' ? result.passes.map((p) => `${p.status}:${p.reason}`) : [result.status],
      });
      const lines = computeProgressLines(controller, event, result, new Date());
      // NOTE: when the event was sent and how long its invocation took: a pass that lands after a step settled
      // shows whether it started late (the bus, a held lease) or ran long (a loaded machine).
      // NOTE: and where a pass's time went (checkpoint and facts read, lease, reconcile, record), e.g. the first
      // pass of a new Cluster, which upstream's RuntimeSDK spec expects to call BeforeClusterCreate within 1 s.
      const steps =
        result.status === 'Handled'
          ? result.passes
              .filter((p) => p.timings)
              .map(
                (p) =>
                  `${p.key.kind} ${p.key.name}: read ${p.timings?.readMs} lease ${p.timings?.leaseMs} reconcile ` +
                  `${p.timings?.reconcileMs} record ${p.timings?.recordMs} ms`,
              )
          : [];
      if (lines.length > 0)
        lines.push(
          `${' '.repeat(19)}· sent ${event.time?.slice(11, 23) ?? '?'}, started ${new Date(Date.now() - (durations.get(event) ?? 0)).toISOString().slice(11, 23)}, invocation ${Math.round(durations.get(event) ?? 0)} ms${steps.length > 0 ? ` (${steps.join('; ')})` : ''}`,
        );
      passLines.push(...lines);
    };
    const bus = createLocalBus({
      handlers,
      retryDelayMs: 500,
      onResult: record,
      onError: (controller, event, err) =>
        passLines.push(`${new Date().toISOString().slice(11, 19)} ${controller} failed: ${errorMessage(err)}`),
    });
    fanOutTo.bus = bus;
    const scheduler = moto?.createSchedulerClient();
    if (moto && scheduler) {
      stops.push(() => Promise.resolve(scheduler.destroy()));
      await createScheduleGroup(scheduler, scheduleGroup);
      // NOTE: a fired schedule invokes its function directly (Scheduler's asynchronous invocation; not the bus).
      const firing = startScheduleFiring({
        client: scheduler,
        groupName: scheduleGroup,
        invoke: async (raw) => {
          const event = raw as RuntimeEvent;
          const controller = (event as { detail?: { controller?: Controller } }).detail?.controller;
          const handler = controller ? handlers[controller] : undefined;
          if (!controller || !handler) throw new Error(`a schedule for no wired controller: ${String(controller)}`);
          const result = await handler(event, localLambdaContext(controller, 5 * 60_000));
          record(controller, event, result);
          return result;
        },
        onError: (message) => passLines.push(`${new Date().toISOString().slice(11, 19)} schedule: ${message}`),
      });
      stops.push(() => firing.stop());
    }

    // NOTE: the webhooks Lambda's handler over HTTPS on loopback, registered with the deployment's configurations:
    // what upstream's webhooks now let through (topology Clusters and ClusterClasses) is validated here.
    const pathToken = randomBytes(24).toString('hex');
    const webhooks = await startWebhookServer(
      createWebhooksHandler(computeWebhooksHandlerOptions({ ...env, WEBHOOK_PATH_TOKEN: pathToken })),
    );
    stops.push(() => webhooks.stop());
    // NOTE: the cluster side is installed as a user installs it: the Helm chart, with values shaped as the stack's
    // ChartValues output. Its forwarder Deployment never runs here (no kubelet): the forwarder runs in process below.
    await installChart(kubeconfigPath, {
      region: 'us-east-1',
      eventBusName: 'capi-serverless-e2e',
      webhooks: { baseUrl: webhooks.url, token: pathToken, caBundle: webhooks.caBundle },
      forwarder: {
        namespace: 'capi-serverless-system',
        image: { repository: 'capi-serverless-forwarder', tag: 'e2e' },
      },
    });

    stops.push(() => bus.stop());
    const targets = [...defaultTargets(), ...(await discoverProviderTargets(mgmt.kube))];
    const forwarder: Forwarder = startForwarder({
      kube: mgmt.kube,
      source: { kubeconfigPath },
      targets,
      sink: bus.putEvents,
      coalesceMs: 300,
    });
    stops.push(() => forwarder.stop());
    // NOTE: tickMs 0: no ticks at all (what reacts must be the events).
    if (opts.tickMs !== 0) bus.startTicks(opts.tickMs ?? 5_000);
    return {
      bus,
      passLines,
      invocations,
      forwarder,
      recentPasses: (n = 80) => passLines.slice(-n).join('\n'),
      pendingWakeUps: async () =>
        scheduler ? (await getSchedules(scheduler, scheduleGroup)).map((sc) => sc.expression) : [],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
