// What the synthesized template deploys, as the facts the cost model prices: every function's memory, tracing mode,
// log retention, schedules, secrets and who reads them, alarms, queues, the table's indexes and any VPC endpoint.
// Pure: the template is the argument. A resource type not in `resourcePricing` is returned in `unpriced`, so the
// model (and its test) cannot miss a billable resource the stack gains.
import type { CfnTemplate } from '#shared/pricing/synthesize-stack.ts';

/** How the cost model treats each CloudFormation type: the line that prices it, or why it costs nothing itself. */
export const resourcePricing = {
  'AWS::Lambda::Function': {
    priced: 'Lambda requests, duration (incl. INIT), and the X-Ray traces of its tracing mode',
  },
  'AWS::Lambda::Url': { priced: 'webhooks Lambda requests and duration (a Function URL adds no charge of its own)' },
  'AWS::Logs::LogGroup': { priced: 'CloudWatch Logs ingestion and storage for its retention' },
  'AWS::CloudWatch::Alarm': {
    priced: 'CloudWatch alarms (per standard-resolution alarm metric: a metric-math alarm per metric it reads)',
  },
  'AWS::SecretsManager::Secret': { priced: 'Secrets Manager secret-months and API calls' },
  'AWS::SSM::Parameter': { priced: 'SSM Parameter Store (advanced parameters per month; standard free)' },
  'AWS::Scheduler::Schedule': { priced: 'EventBridge Scheduler invocations (and the invocations they start)' },
  'AWS::Scheduler::ScheduleGroup': {
    priced: 'the one-time schedules requeued passes create in it: Scheduler invocations and the passes they start',
  },
  'AWS::DynamoDB::Table': { priced: 'DynamoDB reads, writes incl. index writes, storage and PITR' },
  'AWS::SQS::Queue': { priced: 'SQS requests (a dead-letter queue gets one per failed event)' },
  'AWS::EC2::VPCEndpoint': { priced: 'interface endpoints per zone-hour (a gateway endpoint is free)' },
  'AWS::Events::EventBus': { free: 'no charge for a bus; events put on it are priced as PutEvents' },
  'AWS::Events::Rule': { free: 'rules and their deliveries to Lambda targets cost nothing; PutEvents is priced' },
  'AWS::Lambda::Permission': { free: 'IAM resource policy' },
  'AWS::Lambda::EventInvokeConfig': { free: 'retry and destination settings' },
  'AWS::IAM::Role': { free: 'IAM is free' },
  'AWS::IAM::Policy': { free: 'IAM is free' },
  'AWS::IAM::ManagedPolicy': { free: 'IAM is free' },
  'AWS::SQS::QueuePolicy': { free: 'access policy' },
  'AWS::SNS::Topic': {
    free: 'a topic costs nothing; alarm notifications and failed-event records are the first 1,000 e-mails / 1 million publishes free',
  },
  'AWS::SNS::TopicPolicy': { free: 'access policy' },
  'AWS::EC2::SecurityGroup': { free: 'security groups are free' },
  'AWS::EC2::SecurityGroupEgress': { free: 'a security group rule is free' },
  'AWS::EC2::SecurityGroupIngress': { free: 'a security group rule is free' },
  'AWS::EKS::AccessEntry': { free: 'EKS access entries cost nothing beyond the cluster, which stays either way' },
  'AWS::EKS::PodIdentityAssociation': { free: 'EKS Pod Identity associations cost nothing' },
  'AWS::CDK::Metadata': { free: 'CDK version metadata, not deployed as anything billable' },
} as const satisfies Record<string, { priced: string } | { free: string }>;

export type PricedResourceType = keyof typeof resourcePricing;

export type TracingMode = 'Active' | 'PassThrough' | 'Disabled';

export type DeployedFunction = {
  readonly logicalId: string;
  /** `controller` (topology, addons, providers) or `webhooks` (behind a Function URL). */
  readonly role: 'controller' | 'webhooks';
  /** Which one (POWERTOOLS_SERVICE_NAME without `capi-serverless-`): topology, addons, providers, rollout, webhooks. */
  readonly name?: string;
  readonly memoryGb: number;
  readonly architecture: 'arm64' | 'x86_64';
  readonly tracing: TracingMode;
  /** Retention of its log group, days (0: never expires). */
  readonly logRetentionDays: number;
  /**
   * Lambda's own log lines (LoggingConfig.SystemLogLevel; INFO when unset): at INFO or DEBUG a START, END and REPORT
   * line per invocation, at WARN only a failed invocation's.
   */
  readonly systemLogLevel: 'DEBUG' | 'INFO' | 'WARN';
  /**
   * Secrets Manager secrets it reads at run time through the Parameters and Secrets extension (a token in a
   * Kubernetes Secret or an SSM standard parameter costs nothing to read).
   */
  readonly secretsRead: number;
  /** The extension's cache TTL, seconds: one Secrets Manager call per secret per environment per TTL at most. */
  readonly secretsTtlSeconds: number;
  /** Scheduled invocations a month (its schedules' rates). */
  readonly scheduledPerMonth: number;
};

export type DeployedStack = {
  readonly functions: readonly DeployedFunction[];
  /** Alarm metrics: one per standard alarm, one per metric a metric-math alarm reads (AWS bills per alarm metric). */
  readonly alarms: number;
  /**
   * Namespace/name of the metrics the alarms watch, a metric-math alarm's included (the model checks the code declares
   * each custom one; `AWS/...` metrics are Lambda's own, free).
   */
  readonly alarmedMetrics: readonly string[];
  /** Secrets: created by the stack, and referenced by name (the kubeconfig a user keeps in Secrets Manager). */
  readonly secretsCreated: number;
  readonly secretsReferenced: number;
  readonly advancedParameters: number;
  readonly standardParameters: number;
  readonly schedules: number;
  readonly queues: number;
  /** Interface endpoint-zones: each interface endpoint once per subnet (zone) it sits in; gateway endpoints are free. */
  readonly interfaceEndpoints: number;
  readonly table: {
    readonly onDemand: boolean;
    readonly pointInTimeRecovery: boolean;
    /** Global secondary indexes: each write that adds, changes or removes an item's index keys writes the index too. */
    readonly globalSecondaryIndexes: readonly string[];
  };
  /** Whether the functions may put fanned-out batches on the bus (EVENT_BUS_NAME set). */
  readonly fanOutOnBus: boolean;
  /**
   * Whether a pass that asks to run again gets a one-time schedule at its due time (SCHEDULE_GROUP_NAME set): one
   * Scheduler invocation and one Lambda invocation per requeue. Without them the template's ticks run those passes.
   */
  readonly wakeUpSchedules: boolean;
  /** Resource types the model has no price for: the test fails on any. */
  readonly unpriced: readonly string[];
};

const minutesPerMonth = 730 * 60;

/** Invocations a month of `rate(N unit)` (cron expressions are not used by the stack). */
function computeScheduledPerMonth(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!m) throw new Error(`unsupported schedule expression ${JSON.stringify(expression)}`);
  const perUnit = m[2]?.startsWith('minute') ? 1 : m[2]?.startsWith('hour') ? 60 : 1440;
  return minutesPerMonth / (Number(m[1]) * perUnit);
}

const refOf = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
  if (typeof v.Ref === 'string') return v.Ref;
  const getAtt = v['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};

/** A referenced secret's name, whether the environment holds its name or an ARN built from it. */
function secretNameOf(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /:secret:([A-Za-z0-9/_+=.@-]+)/.exec(text)?.[1] ?? text;
}

/**
 * The billable facts of a synthesized template.
 *
 * @example
 * readDeployedStack(synthesizeStack('public')).alarms; // 1
 */
export function readDeployedStack(template: CfnTemplate): DeployedStack {
  const entries = Object.entries(template.Resources);
  const of = (type: string) => entries.filter(([, r]) => r.Type === type);
  const props = (r: { Properties?: Record<string, unknown> }) => r.Properties ?? {};
  const retention = new Map(
    of('AWS::Logs::LogGroup').map(([id, r]) => [id, Number(props(r)['RetentionInDays'] ?? 0)] as const),
  );
  const scheduled = new Map<string, number>();
  for (const [, r] of of('AWS::Scheduler::Schedule')) {
    const p = props(r);
    const target = refOf((p['Target'] as { Arn?: unknown } | undefined)?.Arn);
    if (target && p['State'] !== 'DISABLED')
      scheduled.set(target, (scheduled.get(target) ?? 0) + computeScheduledPerMonth(String(p['ScheduleExpression'])));
  }
  const envOf = (r: { Properties?: Record<string, unknown> }) =>
    ((props(r)['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<
      string,
      unknown
    >;
  const urlTargets = new Set(of('AWS::Lambda::Url').map(([, r]) => refOf(props(r)['TargetFunctionArn'])));
  const functions = of('AWS::Lambda::Function').map(([id, r]): DeployedFunction => {
    const p = props(r);
    const env = envOf(r);
    const logging = (p['LoggingConfig'] ?? {}) as { LogGroup?: unknown; SystemLogLevel?: unknown };
    const logGroup = refOf(logging.LogGroup);
    return {
      logicalId: id,
      role: urlTargets.has(id) ? 'webhooks' : 'controller',
      ...(typeof env['POWERTOOLS_SERVICE_NAME'] === 'string'
        ? { name: env['POWERTOOLS_SERVICE_NAME'].replace(/^capi-serverless-/, '') }
        : {}),
      memoryGb: Number(p['MemorySize'] ?? 128) / 1024,
      architecture: (p['Architectures'] as string[] | undefined)?.[0] === 'arm64' ? 'arm64' : 'x86_64',
      tracing: ((p['TracingConfig'] as { Mode?: TracingMode } | undefined)?.Mode ?? 'PassThrough') as TracingMode,
      // NOTE: a function without its own log group writes to /aws/lambda/<name>, kept forever.
      logRetentionDays: logGroup === undefined ? 0 : (retention.get(logGroup) ?? 0),
      systemLogLevel:
        logging.SystemLogLevel === 'WARN' || logging.SystemLogLevel === 'DEBUG' ? logging.SystemLogLevel : 'INFO',
      secretsRead: ['KUBECONFIG_SECRET_ARN', 'WEBHOOK_TOKEN_SECRET_ARN'].filter((k) => env[k] !== undefined).length,
      secretsTtlSeconds: Number(env['SECRETS_MANAGER_TTL'] ?? 300),
      scheduledPerMonth: scheduled.get(id) ?? 0,
    };
  });
  // NOTE: a secret the user keeps (the kubeconfig, a given webhook token secret) is referenced by name, not created
  // here, and billed all the same: each distinct reference that is not a Ref to a secret of the template counts.
  const created = new Set(of('AWS::SecretsManager::Secret').map(([id]) => id));
  const referenced = new Set(
    of('AWS::Lambda::Function')
      .flatMap(([, r]) => ['KUBECONFIG_SECRET_ARN', 'WEBHOOK_TOKEN_SECRET_ARN'].map((k) => envOf(r)[k]))
      .filter((v) => v !== undefined && !created.has(refOf(v) ?? ''))
      .map(secretNameOf),
  );
  const parameters = of('AWS::SSM::Parameter').map(([, r]) => props(r)['Tier']);
  const table = of('AWS::DynamoDB::Table')[0]?.[1];
  const tableProps = table ? props(table) : {};
  const alarms = of('AWS::CloudWatch::Alarm').map(([, r]) => props(r));
  // NOTE: a metric-math alarm lists its metrics under `Metrics`; only those with a MetricStat are billed.
  const alarmMetrics = (p: Record<string, unknown>) =>
    Array.isArray(p['Metrics'])
      ? (p['Metrics'] as { MetricStat?: unknown }[]).filter((m) => m.MetricStat !== undefined).length
      : 1;
  return {
    functions,
    alarms: alarms.reduce((n, p) => n + alarmMetrics(p), 0),
    alarmedMetrics: alarms.flatMap(alarmedMetricsOf),
    secretsCreated: of('AWS::SecretsManager::Secret').length,
    secretsReferenced: referenced.size,
    advancedParameters: parameters.filter((t) => t === 'Advanced').length,
    standardParameters: parameters.filter((t) => t !== 'Advanced').length,
    schedules: of('AWS::Scheduler::Schedule').length,
    queues: of('AWS::SQS::Queue').length,
    // NOTE: an interface endpoint is billed per zone it sits in: one network interface per subnet given.
    interfaceEndpoints: of('AWS::EC2::VPCEndpoint')
      .filter(([, r]) => props(r)['VpcEndpointType'] === 'Interface')
      .reduce((zones, [, r]) => {
        const subnets = props(r)['SubnetIds'];
        return zones + (Array.isArray(subnets) && subnets.length > 0 ? subnets.length : 1);
      }, 0),
    table: {
      onDemand: tableProps['BillingMode'] === 'PAY_PER_REQUEST',
      pointInTimeRecovery:
        (tableProps['PointInTimeRecoverySpecification'] as { PointInTimeRecoveryEnabled?: boolean } | undefined)
          ?.PointInTimeRecoveryEnabled === true,
      globalSecondaryIndexes: ((tableProps['GlobalSecondaryIndexes'] as { IndexName: string }[] | undefined) ?? []).map(
        (i) => i.IndexName,
      ),
    },
    fanOutOnBus: of('AWS::Lambda::Function').some(([, r]) => envOf(r)['EVENT_BUS_NAME'] !== undefined),
    wakeUpSchedules: of('AWS::Lambda::Function').some(([, r]) => envOf(r)['SCHEDULE_GROUP_NAME'] !== undefined),
    unpriced: [...new Set(entries.map(([, r]) => r.Type))].filter((t) => !(t in resourcePricing)).sort(),
  };
}

/** `Namespace/MetricName` of each metric an alarm reads: its own, or each `MetricStat` of a metric-math alarm. */
function alarmedMetricsOf(alarm: Record<string, unknown>): string[] {
  const named = (m: Record<string, unknown> | undefined) =>
    typeof m?.['Namespace'] === 'string' && typeof m['MetricName'] === 'string'
      ? [`${m['Namespace']}/${m['MetricName']}`]
      : [];
  if (!Array.isArray(alarm['Metrics'])) return named(alarm);
  return (alarm['Metrics'] as { MetricStat?: { Metric?: Record<string, unknown> } }[]).flatMap((q) =>
    named(q.MetricStat?.Metric),
  );
}
