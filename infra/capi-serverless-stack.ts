// The deployed product: three controller functions (esbuild-bundled, arm64), the bus and its routing rules, tick
// schedules, the state table, dead-letter queues, alarms notifying an SNS topic, log groups with retention and
// least-privilege IAM; cdk-nag's findings that remain are suppressed with their reasons in nag-suppressions.ts.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { controllers, dueIndex, tableDesign, type Controller } from '#shared/checkpoint/table.ts';
import { detailTypes, eventSources } from '#shared/runtime/events.ts';
import { eventPatternOf, fanOutPatternOf, routes } from '#shared/runtime/routes.ts';
import { acknowledgeAcceptedFindings } from './nag-suppressions.ts';
import { validateStackProps } from './settings.ts';
import { createSecretsExtension } from './secrets-extension.ts';
import { PrivateNetwork, type PrivateNetworkProps } from './private-network.ts';
import { WebhooksFunction } from './webhooks/webhooks-function.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export type CapiServerlessStackProps = StackProps & {
  /** Secrets Manager secret (name) holding the management cluster's kubeconfig; unset: in-cluster/default rules. */
  readonly kubeconfigSecretName?: string;
  /** Minutes between ticks (default 5). */
  readonly tickMinutes?: number;
  /**
   * Secrets Manager secret (name) holding the webhooks' path token(s); unset: the stack creates one with a generated
   * token. The webhooks function refuses every request without a token (see README, "Registering the webhooks").
   */
  readonly webhookTokenSecretName?: string;
  /** Reserved (and maximum) concurrency of the webhooks function (default 10). */
  readonly webhookReservedConcurrency?: number;
  /** SNS topic (ARN) every alarm notifies; unset: the stack creates one (output `AlarmTopicArn`). */
  readonly alarmTopicArn?: string;
  /** Retention of every function's log group (default one month). */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Hosts (`host` or `host:port`) the providers function may download from over plain HTTP or at private addresses
   * (`PROVIDER_FETCH_ALLOWED_HOSTS`; default none: HTTPS to public addresses only).
   */
  readonly providerFetchAllowedHosts?: readonly string[];
  /** GitLab hosts (exact) of provider URLs (`PROVIDER_GITLAB_HOSTS`; default gitlab.com). */
  readonly providerGitlabHosts?: readonly string[];
  /**
   * An EKS management cluster reached with IAM tokens the functions sign themselves (EKS access entries map each
   * function's role, output `<controller>RoleArn`): no kubeconfig secret, so no Secrets Manager call.
   */
  readonly eksCluster?: { readonly name: string; readonly endpoint: string; readonly caData: string };
  /**
   * Attach the functions to these private subnets (a private or CIDR-restricted API endpoint) with no fixed-cost
   * network: no NAT gateway, no interface endpoint (see infra/private-network.ts). Needs `eksCluster`.
   */
  readonly privateNetwork?: PrivateNetworkProps;
  /**
   * Deletion protection on the state table (default true). False is for test stacks only: the table can be deleted,
   * and `cdk destroy` deletes it with its checkpoints and leases instead of retaining it.
   */
  readonly tableDeletionProtection?: boolean;
};

/** Tags on the stack and every resource that takes tags (cost allocation, finding an install's resources). */
export const appTag = { key: 'app', value: 'capi-serverless' } as const;
/** The tag key whose value is the stack's name (which install a resource belongs to). */
export const stackTagKey = 'capi-serverless:stack';

/** Log retention when none is given: long enough to investigate last month's incident, not forever. */
export const defaultLogRetention = logs.RetentionDays.ONE_MONTH;

/** The DynamoDB actions a pass uses: get the checkpoint, conditional put/update/delete of lease rows, transactions. */
export const tableActions = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  // NOTE: the tick: Query on the due index, BatchGetItem of checkpoints during a sweep.
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
] as const;

export class CapiServerlessStack extends Stack {
  readonly table: dynamodb.Table;
  readonly bus: events.EventBus;
  readonly functions: Readonly<Record<Controller, nodejs.NodejsFunction>>;
  readonly webhooks: WebhooksFunction;
  readonly alarmTopic: sns.ITopic;
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: CapiServerlessStackProps = {}) {
    validateStackProps(props);
    // NOTE: stack tags (CloudFormation tags what it creates with them) and the same tags on every resource in the
    // template; with @aws-cdk/core:explicitStackTags only props.tags reach the stack itself.
    const tags = { [appTag.key]: appTag.value, [stackTagKey]: props.stackName ?? id };
    super(scope, id, { ...props, tags: { ...tags, ...props.tags } });
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value);
    this.table = new dynamodb.Table(this, 'State', {
      partitionKey: { name: tableDesign.partitionKey.name, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDesign.sortKey.name, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDesign.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.tableDeletionProtection ?? true,
      removalPolicy: props.tableDeletionProtection === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    // NOTE: the sparse due index the ticks query instead of reading every checkpoint (shared/checkpoint/due.ts).
    this.table.addGlobalSecondaryIndex({
      indexName: dueIndex.name,
      partitionKey: { name: dueIndex.partitionKey.name, type: dynamodb.AttributeType.STRING },
      sortKey: { name: dueIndex.sortKey.name, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
    // NOTE: the one physical name the stack sets; every other name is generated by CloudFormation from the stack's.
    // Derived from the stack name so a second install (staging beside production) in the account and region coexists.
    this.bus = new events.EventBus(this, 'Bus', { eventBusName: this.stackName });
    const network = props.privateNetwork
      ? new PrivateNetwork(this, 'PrivateNetwork', props.privateNetwork).functionProps
      : undefined;
    const eksEnvironment = props.eksCluster
      ? {
          EKS_CLUSTER_NAME: props.eksCluster.name,
          EKS_CLUSTER_ENDPOINT: props.eksCluster.endpoint,
          EKS_CLUSTER_CA_DATA: props.eksCluster.caData,
        }
      : {};
    const secret = props.kubeconfigSecretName
      ? secretsmanager.Secret.fromSecretNameV2(this, 'Kubeconfig', props.kubeconfigSecretName)
      : undefined;
    const paramsAndSecrets = secret ? createSecretsExtension() : undefined;
    const logRetention = props.logRetention ?? defaultLogRetention;
    const alarms: cloudwatch.Alarm[] = [];
    const dlqAlarm = (queue: sqs.Queue, name: string) =>
      alarms.push(
        queue
          .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) })
          .createAlarm(this, `${name}DlqAlarm`, {
            alarmDescription: `events for ${name} that could not be delivered or processed`,
            threshold: 1,
            evaluationPeriods: 1,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          }),
      );

    const functions = {} as Record<Controller, nodejs.NodejsFunction>;
    const deadLetterQueues: sqs.Queue[] = [];
    for (const controller of controllers) {
      const name = controller[0]?.toUpperCase() + controller.slice(1);
      const dlq = new sqs.Queue(this, `${name}Dlq`, {
        retentionPeriod: Duration.days(14),
        enforceSSL: true,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
      });
      dlqAlarm(dlq, name);
      deadLetterQueues.push(dlq);
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: logRetention,
      });
      const fn = new nodejs.NodejsFunction(this, `${name}Function`, {
        logGroup,
        entry: join(repoRoot, 'functions', `${controller}.ts`),
        handler: 'handler',
        projectRoot: repoRoot,
        depsLockFilePath: join(repoRoot, 'package-lock.json'),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: 512,
        timeout: Duration.minutes(5),
        retryAttempts: 2,
        deadLetterQueue: dlq,
        // NOTE: Powertools Tracer writes one segment per invocation; metrics are EMF log lines (no API calls).
        // In private subnets the X-Ray daemon would need an endpoint or NAT: tracing is off there.
        tracing: network ? lambda.Tracing.DISABLED : lambda.Tracing.ACTIVE,
        ...(network ?? {}),
        ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
        environment: {
          ...eksEnvironment,
          ...(network ? { POWERTOOLS_TRACE_ENABLED: 'false' } : {}),
          TABLE_NAME: this.table.tableName,
          // NOTE: fan-out (shared/runtime/fan-out.ts) puts events on the bus; from private subnets that would need an
          // EventBridge interface endpoint, which bills by the hour: there every mapped pass runs in its invocation.
          ...(network ? {} : { EVENT_BUS_NAME: this.bus.eventBusName }),
          POWERTOOLS_SERVICE_NAME: `capi-serverless-${controller}`,
          POWERTOOLS_METRICS_NAMESPACE: 'CapiServerless',
          // NOTE: leases outlive the function timeout, so a crashed pass's lease lapses before a retry could run twice.
          LEASE_TTL_MS: String(6 * 60_000),
          ...(props.kubeconfigSecretName ? { KUBECONFIG_SECRET_ARN: props.kubeconfigSecretName } : {}),
          ...(controller === 'providers' && props.providerFetchAllowedHosts?.length
            ? { PROVIDER_FETCH_ALLOWED_HOSTS: props.providerFetchAllowedHosts.join(',') }
            : {}),
          ...(controller === 'providers' && props.providerGitlabHosts?.length
            ? { PROVIDER_GITLAB_HOSTS: props.providerGitlabHosts.join(',') }
            : {}),
        },
        bundling: {
          forceDockerBundling: false,
          format: nodejs.OutputFormat.ESM,
          target: 'node20',
          minify: true,
          sourceMap: true,
          keepNames: true,
          mainFields: ['module', 'main'],
          banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          externalModules: [],
        },
      });
      // NOTE: the table and its due index by name (Table.grant would add a `/index/*` wildcard).
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...tableActions],
          resources: [this.table.tableArn, `${this.table.tableArn}/index/${dueIndex.name}`],
        }),
      );
      secret?.grantRead(fn);
      if (!network)
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['events:PutEvents'],
            resources: [this.bus.eventBusArn],
            conditions: { StringEquals: { 'events:source': eventSources.fanOut } },
          }),
        );
      alarms.push(
        fn.metricErrors({ period: Duration.minutes(5) }).createAlarm(this, `${name}ErrorsAlarm`, {
          alarmDescription: `${controller} invocations that failed (not recorded as a pass outcome)`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      functions[controller] = fn;

      const route = routes.find((r) => r.controller === controller);
      if (route) {
        new events.Rule(this, `${name}Rule`, {
          eventBus: this.bus,
          description: `object changes routed to ${controller}`,
          eventPattern: eventPatternOf(route),
        }).addTarget(
          new eventTargets.LambdaFunction(fn, {
            deadLetterQueue: dlq,
            retryAttempts: 4,
            maxEventAge: Duration.hours(1),
          }),
        );
      }
      // Batches of passes another invocation of this controller fanned out (fan-out.ts), retried as object changes.
      if (!network)
        new events.Rule(this, `${name}FanOutRule`, {
          eventBus: this.bus,
          description: `batches of passes fanned out to ${controller}`,
          eventPattern: fanOutPatternOf(controller),
        }).addTarget(
          new eventTargets.LambdaFunction(fn, {
            deadLetterQueue: dlq,
            retryAttempts: 4,
            maxEventAge: Duration.hours(1),
          }),
        );
      new scheduler.Schedule(this, `${name}Tick`, {
        description: `${controller} tick: list, compare with checkpoints, reconcile what is due`,
        schedule: scheduler.ScheduleExpression.rate(Duration.minutes(props.tickMinutes ?? 5)),
        target: new schedulerTargets.LambdaInvoke(fn, {
          input: scheduler.ScheduleTargetInput.fromObject({
            version: '0',
            id: scheduler.ContextAttribute.executionId,
            'detail-type': detailTypes.tick,
            source: eventSources.scheduler,
            time: scheduler.ContextAttribute.scheduledTime,
            resources: [],
            detail: { controller },
          }),
          deadLetterQueue: dlq,
          retryAttempts: 0,
          maxEventAge: Duration.minutes(5),
        }),
      });
    }
    this.functions = functions;

    // The forwarder runs in the cluster; attach this policy to its IAM identity (IRSA or EKS Pod Identity).
    const forwarderPolicy = new iam.ManagedPolicy(this, 'ForwarderPolicy', {
      description: 'lets the capi-serverless event forwarder put events on the bus',
      statements: [
        new iam.PolicyStatement({
          actions: ['events:PutEvents'],
          resources: [this.bus.eventBusArn],
          conditions: { StringEquals: { 'events:source': eventSources.forwarder } },
        }),
      ],
    });
    new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName });
    new CfnOutput(this, 'ForwarderPolicyArn', { value: forwarderPolicy.managedPolicyArn });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    for (const controller of controllers) {
      new CfnOutput(this, `${controller}RoleArn`, {
        description: `map to a Kubernetes identity (EKS access entry) for the ${controller} function`,
        value: functions[controller].role?.roleArn ?? '',
      });
    }
    // Admission webhooks behind a Function URL; register infra/webhooks/manifests with its URL (see README).
    this.webhooks = new WebhooksFunction(this, 'Webhooks', {
      ...(secret ? { kubeconfigSecret: secret } : {}),
      ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
      ...(props.webhookTokenSecretName
        ? { tokenSecret: secretsmanager.Secret.fromSecretNameV2(this, 'WebhookToken', props.webhookTokenSecretName) }
        : {}),
      ...(props.webhookReservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: props.webhookReservedConcurrency }),
      logRetention,
      environment: eksEnvironment,
      ...(network ? { network } : {}),
    });
    alarms.push(...this.webhooks.createAlarms());

    this.alarmTopic = props.alarmTopicArn
      ? sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)
      : new sns.Topic(this, 'AlarmTopic', { displayName: 'capi-serverless alarms', enforceSSL: true });
    const notify = new cloudwatchActions.SnsAction(this.alarmTopic);
    for (const alarm of alarms) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
    this.alarms = alarms;
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'subscribe to be told when an alarm fires (or clears)',
      value: this.alarmTopic.topicArn,
    });
    acknowledgeAcceptedFindings({
      controllerFunctions: Object.values(functions),
      deadLetterQueues,
      webhooks: this.webhooks,
      schedulerRoles: this.node.children.filter((c) => c.node.id.startsWith('SchedulerRoleForTarget')),
      privateNetwork: network !== undefined,
    });
  }
}
