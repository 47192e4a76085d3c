// One controller's function (topology, addons, providers or rollout): its dead-letter queue, the alarm topic as its
// on-failure destination, log group, environment and the least-privilege grants on the table, the kubeconfig secret,
// the bus and its one-time schedules.
import { Duration, type Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as lambdaDestinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { dueIndex, type Controller } from '#shared/checkpoint/table.ts';
import { eventSources } from '#shared/runtime/events.ts';
import { constructPrefixOf, type WakeUpSchedules } from './event-routing.ts';
import { computeBundledFunctionProps, functionRuntimeEnvironment } from './function-bundling.ts';
import type { FunctionNetworkProps } from './private-network.ts';
import { tableActions } from './state-table.ts';

export type ControllerFunctionOptions = {
  readonly table: dynamodb.Table;
  readonly bus: events.EventBus;
  readonly logRetention: logs.RetentionDays;
  /** EKS_CLUSTER_* variables when the management cluster is an EKS cluster. */
  readonly eksEnvironment: Readonly<Record<string, string>>;
  readonly kubeconfigSecret?: secretsmanager.ISecret;
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
  /** Private subnets (no fan-out on the bus, no X-Ray there). */
  readonly network?: FunctionNetworkProps;
  /** X-Ray active tracing (opt-in setting `tracing`; never in private subnets). */
  readonly tracing: boolean;
  /** Where a record of an event that failed every retry goes (the alarm topic), besides the dead-letter queue. */
  readonly onFailureTopic: sns.ITopic;
  /** Variables only this controller reads (the providers' download allow-list). */
  readonly extraEnvironment?: Readonly<Record<string, string>>;
  /** Minutes between sweeps: every tick of the sweep schedule sweeps. */
  readonly sweepMinutes: number;
  /** Where requeued passes get their one-time schedules (none in private subnets). */
  readonly wakeUps?: WakeUpSchedules;
  /**
   * Invocations at once: the function's reserved (and so maximum) concurrency and its CONTROLLER_CONCURRENCY, so the
   * controller's requests stay within its flow's queues at the API server (unset: the account's limit only).
   */
  readonly concurrency?: number;
};

/**
 * Memory size per controller, MB. Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB) and bills GB-seconds;
 * a pass mostly waits on the API server. Topology and addons: the size `computeControllerMemory`
 * (shared/pricing/compute-controller-memory.ts) chooses from their passes measured in the Lambda runtime emulator
 * (test/bench/results/passes-rie.json): the smallest whose modelled slowdown, peak RSS share and INIT stay within its
 * bounds. NOTE: providers (downloads and parses provider components) and rollout were not measured; they keep 512 MB
 * (they run rarely, so their size hardly moves the cost).
 */
export const controllerMemoryMb = {
  topology: 384,
  addons: 384,
  providers: 512,
  rollout: 512,
} as const satisfies Record<Controller, number>;

export type ControllerFunction = { readonly fn: nodejs.NodejsFunction; readonly dlq: sqs.Queue };

/**
 * Adds a controller's function and dead-letter queue to the stack (construct ids `<Name>Dlq`, `<Name>Logs`,
 * `<Name>Function`, kept so a deployed stack replaces nothing).
 *
 * @example
 * const { fn, dlq } = createControllerFunction(stack, 'topology', { table, bus, logRetention, eksEnvironment: {} });
 */
export function createControllerFunction(
  stack: Stack,
  controller: Controller,
  options: ControllerFunctionOptions,
): ControllerFunction {
  const name = constructPrefixOf(controller);
  const { network, table, bus } = options;
  const dlq = new sqs.Queue(stack, `${name}Dlq`, {
    retentionPeriod: Duration.days(14),
    enforceSSL: true,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
  });
  const logGroup = new logs.LogGroup(stack, `${name}Logs`, { retention: options.logRetention });
  const fn = new nodejs.NodejsFunction(stack, `${name}Function`, {
    ...computeBundledFunctionProps(controller),
    logGroup,
    memorySize: controllerMemoryMb[controller],
    timeout: Duration.minutes(5),
    retryAttempts: 2,
    deadLetterQueue: dlq,
    ...(options.concurrency === undefined ? {} : { reservedConcurrentExecutions: options.concurrency }),
    // NOTE: Lambda delivers the record itself (no route from private subnets needed); SNS publishes are free here.
    onFailure: new lambdaDestinations.SnsDestination(options.onFailureTopic),
    // NOTE: Powertools Tracer writes one segment per invocation; metrics are EMF log lines (no API calls). Off unless
    // the `tracing` setting asks (X-Ray bills per trace); in private subnets it would need an endpoint or NAT.
    tracing: options.tracing && !network ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    ...(network ?? {}),
    ...(options.paramsAndSecrets ? { paramsAndSecrets: options.paramsAndSecrets } : {}),
    environment: {
      ...functionRuntimeEnvironment,
      ...options.eksEnvironment,
      ...(options.tracing && !network ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
      TABLE_NAME: table.tableName,
      // NOTE: fan-out (shared/runtime/fan-out.ts) puts events on the bus; from private subnets that would need an
      // EventBridge interface endpoint, which bills by the hour: there every mapped pass runs in its invocation.
      ...(network ? {} : { EVENT_BUS_NAME: bus.eventBusName }),
      POWERTOOLS_SERVICE_NAME: `capi-serverless-${controller}`,
      POWERTOOLS_METRICS_NAMESPACE: 'CapiServerless',
      // NOTE: leases outlive the function timeout, so a crashed pass's lease lapses before a retry could run twice.
      LEASE_TTL_MS: String(6 * 60_000),
      // NOTE: half the schedule's rate, so a tick that fires a little early still sweeps, and two at once sweep once.
      SWEEP_INTERVAL_MS: String((options.sweepMinutes * 60_000) / 2),
      ...options.wakeUps?.environment,
      ...(options.kubeconfigSecret ? { KUBECONFIG_SECRET_ARN: options.kubeconfigSecret.secretName } : {}),
      ...(options.concurrency === undefined ? {} : { CONTROLLER_CONCURRENCY: String(options.concurrency) }),
      ...options.extraEnvironment,
    },
  });
  // NOTE: the table and its due index by name (Table.grant would add a `/index/*` wildcard).
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: [...tableActions],
      resources: [table.tableArn, `${table.tableArn}/index/${dueIndex.name}`],
    }),
  );
  options.kubeconfigSecret?.grantRead(fn);
  options.wakeUps?.grantScheduling(fn);
  if (!network)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [bus.eventBusArn],
        conditions: { StringEquals: { 'events:source': eventSources.fanOut } },
      }),
    );
  return { fn, dlq };
}
