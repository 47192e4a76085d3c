// Runtime settings from the environment, parsed with zod once per cold start; a bad value names its variable.
import * as z from 'zod';
import { defaultTableName } from '#shared/checkpoint/index.ts';
import { ValidationError } from '#shared/errors/index.ts';

/** Where the AWS Parameters and Secrets Lambda Extension listens (the stack configures the layer with it). */
export const kubeconfigSecretExtensionPort = 2773;

/**
 * Requests one flow may have queued in the shipped `capi-serverless` priority level before the API server answers
 * 429: its hand of queues times each queue's length (handSize 4 × queueLengthLimit 50 in
 * infra/chart/capi-serverless/files/flow-control.yaml; a unit test keeps the two in step).
 */
export const flowQueueCapacity = 4 * 50;

/** Passes a tick (or one invocation's mapped passes) runs at once when TICK_CONCURRENCY is unset. */
export const defaultTickConcurrency = 4;

/**
 * Invocations of one controller at once when CONTROLLER_CONCURRENCY is unset: what one flow queues divided by the
 * passes each invocation runs at once (200 / 4 = 50). The stack reserves it for each controller function.
 * NOTE: measured (test/bench/results/flow-control.json): the shipped level answered no 429 to 50–800 concurrent
 * passes of one flow (it borrows seats); what grew was latency, so this stays a cap on load, not a 429 bound.
 */
export const defaultControllerConcurrency = Math.floor(flowQueueCapacity / defaultTickConcurrency);

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The environment variables the functions read (all optional except where a deployment needs them). */
export const RuntimeEnv = z.object({
  /** DynamoDB table of leases and checkpoints. */
  TABLE_NAME: z.string().min(1).default(defaultTableName),
  /** DynamoDB endpoint override (DynamoDB Local); unset on AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Management cluster: a kubeconfig file path (local mode)... */
  KUBECONFIG: z.string().min(1).optional(),
  /** ...or the ARN/name of a Secrets Manager secret holding a kubeconfig (deployed). */
  KUBECONFIG_SECRET_ARN: z.string().min(1).optional(),
  /** Port of the Parameters and Secrets extension the secret is read through (the layer sets it). */
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: z.coerce.number().int().positive().default(kubeconfigSecretExtensionPort),
  /**
   * EKS management cluster: authenticate with a token computed from the function's IAM role (no exec plugin)...
   * with the server and CA of the kubeconfig, or of EKS_CLUSTER_ENDPOINT and EKS_CLUSTER_CA_DATA when there is none.
   */
  EKS_CLUSTER_NAME: z.string().min(1).optional(),
  EKS_CLUSTER_ENDPOINT: z.url().optional(),
  /** Base64 PEM of the cluster's CA (`certificateAuthority.data` of DescribeCluster). */
  EKS_CLUSTER_CA_DATA: z.string().min(1).optional(),
  /** How long a lease lasts; keep it above the function timeout. */
  LEASE_TTL_MS: ms(15 * 60_000),
  /** Backoff after a failed pass: first delay and cap. */
  BACKOFF_BASE_MS: ms(5_000),
  BACKOFF_MAX_MS: ms(15 * 60_000),
  /** When a pass asks to requeue without saying when. */
  REQUEUE_AFTER_MS: ms(30_000),
  /** Stop a pass this long before the Lambda timeout, leaving time to write the checkpoint. */
  STOP_BEFORE_TIMEOUT_MS: ms(10_000),
  /**
   * How often one tick sweeps: lists each kind (one paginated LIST per kind) and passes over what no pass has seen
   * at its current generation (events that never arrived). Between sweeps a tick reads only the due index.
   */
  SWEEP_INTERVAL_MS: ms(60 * 60_000),
  /**
   * The EventBridge Scheduler group and role of one-time schedules: a pass that asks to run again at a time gets a
   * schedule invoking the function then (the stack sets both; unset: only the sweep runs requeued passes).
   */
  SCHEDULE_GROUP_NAME: z.string().min(1).max(64).optional(),
  SCHEDULER_ROLE_ARN: z.string().min(1).optional(),
  /**
   * Optional drift net for objects nothing watches: a sweep also forces a pass over objects whose last pass is older
   * than this. Unset (the default): no pass per object on a timer.
   */
  RESYNC_AFTER_MS: z.coerce.number().int().positive().optional(),
  /** How many objects a tick (or one invocation's mapped passes) reconciles at the same time. */
  TICK_CONCURRENCY: ms(defaultTickConcurrency),
  /**
   * At most this many invocations of one controller at once (Lambda: its reserved concurrency; local mode: the
   * bus, at most 16). Default: what one flow of the shipped priority level queues, {@link flowQueueCapacity},
   * divided by TICK_CONCURRENCY (each invocation waits on about one request per pass it runs), so 50.
   */
  CONTROLLER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).optional(),
  /**
   * The bus the functions fan out on (the stack sets it; unset, e.g. in the private-network variant: every mapped pass
   * runs in the invocation that mapped it).
   */
  EVENT_BUS_NAME: z.string().min(1).optional(),
  /**
   * Passes per invocation when a change maps to more objects (a ClusterClass change reaching every Cluster): the
   * invocation runs the first FANOUT_BATCH and hands each further FANOUT_BATCH to another invocation (at most 100).
   */
  FANOUT_BATCH: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Mapping a change to every Cluster of a class lists the Clusters in pages of MAPPING_PAGE_SIZE (at most 500),
   * fanning out each page's batches as it arrives; with less than MAPPING_HAND_OFF_BEFORE_TIMEOUT_MS of the
   * invocation left, the rest of the list is handed to another invocation (with fan-out on).
   */
  MAPPING_PAGE_SIZE: z.coerce.number().int().min(1).max(500).default(500),
  MAPPING_HAND_OFF_BEFORE_TIMEOUT_MS: ms(120_000),
  /**
   * Who discovers ExtensionConfigs and writes their status: `capi-serverless` (its ExtensionConfig pass; upstream's
   * core manager runs with RuntimeSDK off) or `upstream` (the core manager runs with RuntimeSDK on, e.g. for
   * in-place updates, and its ExtensionConfig controller is the one writer; capi-serverless only reads). The providers
   * pass warns on the core provider when its RuntimeSDK gate says otherwise.
   */
  EXTENSION_CONFIG_DISCOVERY: z.enum(['capi-serverless', 'upstream']).default('capi-serverless'),
  /** Field manager of server-side applies. */
  FIELD_MANAGER: z.string().min(1).default('capi-serverless'),
  /**
   * Providers function: hosts (`host` or `host:port`, comma-separated) it may download from over plain HTTP or at
   * loopback, link-local or private addresses (default none: HTTPS to public addresses only).
   */
  PROVIDER_FETCH_ALLOWED_HOSTS: z.string().default(''),
  /** Providers function: GitLab hosts (exact, comma-separated) whose package URLs are GitLab repositories. */
  PROVIDER_GITLAB_HOSTS: z.string().default('gitlab.com'),
  POWERTOOLS_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT', 'CRITICAL']).default('INFO'),
});
export type RuntimeEnv = z.infer<typeof RuntimeEnv>;

/** Settings in the units the code uses. */
export type RuntimeConfig = {
  readonly tableName: string;
  readonly dynamoDBEndpoint: string | undefined;
  readonly region: string;
  readonly kubeconfigPath: string | undefined;
  readonly kubeconfigSecretArn: string | undefined;
  readonly secretsExtensionPort: number;
  readonly eks: { readonly clusterName: string; readonly endpoint?: string; readonly caData?: string } | undefined;
  readonly leaseTtlMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly requeueAfterMs: number;
  readonly stopBeforeTimeoutMs: number;
  readonly sweepIntervalMs: number;
  /** One-time schedules for passes that asked to run again (undefined: the sweep alone runs them). */
  readonly wakeUps: { readonly groupName: string; readonly roleArn: string } | undefined;
  readonly resyncAfterMs: number | undefined;
  readonly tickConcurrency: number;
  /** Invocations of one controller at once (see CONTROLLER_CONCURRENCY). */
  readonly controllerConcurrency: number;
  /** Fan-out of mapped passes: the bus (undefined: no fan-out) and the passes per invocation. */
  readonly fanOut: { readonly eventBusName: string | undefined; readonly batch: number };
  /** Paged mapping: objects per LIST page, and how much of the invocation is left when the rest is handed off. */
  readonly mapping: { readonly pageSize: number; readonly handOffBeforeTimeoutMs: number };
  readonly fieldManager: string;
  /** Who writes ExtensionConfig status (EXTENSION_CONFIG_DISCOVERY). */
  readonly extensionConfigDiscovery: RuntimeEnv['EXTENSION_CONFIG_DISCOVERY'];
  readonly logLevel: RuntimeEnv['POWERTOOLS_LOG_LEVEL'];
  /** Where the providers function may download from (see `FetchPolicy`). */
  readonly providerFetch: { readonly allowedHosts: readonly string[]; readonly gitlabHosts: readonly string[] };
};

const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * An environment parsed with its schema; throws a ValidationError naming every bad variable (reason
 * `InvalidEnvironment`, the first one's name as the field path).
 *
 * @example
 * parseEnvironment(z.object({ TICK_MS: z.coerce.number() }), process.env).TICK_MS;
 */
export function parseEnvironment<T extends z.ZodType>(
  schema: T,
  env: Readonly<Record<string, string | undefined>>,
): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new ValidationError(`invalid environment: ${problems}`, {
    fieldPath: parsed.error.issues[0]?.path.join('.') ?? '',
    reason: 'InvalidEnvironment',
  });
}

/**
 * Parses the environment; throws a ValidationError naming every bad variable.
 *
 * @example
 * const config = computeRuntimeConfig(process.env); // at module scope: once per cold start
 */
export function computeRuntimeConfig(env: Readonly<Record<string, string | undefined>>): RuntimeConfig {
  const e = parseEnvironment(RuntimeEnv, env);
  if (e.EKS_CLUSTER_ENDPOINT !== undefined && e.EKS_CLUSTER_NAME === undefined) {
    throw new ValidationError(`invalid environment: EKS_CLUSTER_ENDPOINT needs EKS_CLUSTER_NAME`, {
      fieldPath: 'EKS_CLUSTER_NAME',
      reason: 'InvalidEnvironment',
    });
  }
  if ((e.SCHEDULE_GROUP_NAME === undefined) !== (e.SCHEDULER_ROLE_ARN === undefined)) {
    const missing = e.SCHEDULE_GROUP_NAME === undefined ? 'SCHEDULE_GROUP_NAME' : 'SCHEDULER_ROLE_ARN';
    throw new ValidationError(
      `invalid environment: SCHEDULE_GROUP_NAME and SCHEDULER_ROLE_ARN go together; ${missing} is unset`,
      {
        fieldPath: missing,
        reason: 'InvalidEnvironment',
      },
    );
  }
  if (e.BACKOFF_MAX_MS < e.BACKOFF_BASE_MS) {
    throw new ValidationError(`invalid environment: BACKOFF_MAX_MS must be >= BACKOFF_BASE_MS`, {
      fieldPath: 'BACKOFF_MAX_MS',
      reason: 'InvalidEnvironment',
    });
  }
  return {
    tableName: e.TABLE_NAME,
    dynamoDBEndpoint: e.DYNAMODB_ENDPOINT,
    region: e.AWS_REGION,
    kubeconfigPath: e.KUBECONFIG,
    kubeconfigSecretArn: e.KUBECONFIG_SECRET_ARN,
    secretsExtensionPort: e.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT,
    eks:
      e.EKS_CLUSTER_NAME === undefined
        ? undefined
        : {
            clusterName: e.EKS_CLUSTER_NAME,
            ...(e.EKS_CLUSTER_ENDPOINT === undefined ? {} : { endpoint: e.EKS_CLUSTER_ENDPOINT }),
            ...(e.EKS_CLUSTER_CA_DATA === undefined ? {} : { caData: e.EKS_CLUSTER_CA_DATA }),
          },
    leaseTtlMs: e.LEASE_TTL_MS,
    backoffBaseMs: e.BACKOFF_BASE_MS,
    backoffMaxMs: e.BACKOFF_MAX_MS,
    requeueAfterMs: e.REQUEUE_AFTER_MS,
    stopBeforeTimeoutMs: e.STOP_BEFORE_TIMEOUT_MS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    wakeUps:
      e.SCHEDULE_GROUP_NAME === undefined || e.SCHEDULER_ROLE_ARN === undefined
        ? undefined
        : { groupName: e.SCHEDULE_GROUP_NAME, roleArn: e.SCHEDULER_ROLE_ARN },
    resyncAfterMs: e.RESYNC_AFTER_MS,
    tickConcurrency: e.TICK_CONCURRENCY,
    // NOTE: a controller's identity is one flow (the FlowSchema distinguishes by user): invocations × passes per
    // invocation is what it can have waiting at once; kept within the flow's queues, a burst is queued, not refused.
    controllerConcurrency: e.CONTROLLER_CONCURRENCY ?? Math.max(1, Math.floor(flowQueueCapacity / e.TICK_CONCURRENCY)),
    fanOut: { eventBusName: e.EVENT_BUS_NAME, batch: e.FANOUT_BATCH },
    mapping: { pageSize: e.MAPPING_PAGE_SIZE, handOffBeforeTimeoutMs: e.MAPPING_HAND_OFF_BEFORE_TIMEOUT_MS },
    fieldManager: e.FIELD_MANAGER,
    extensionConfigDiscovery: e.EXTENSION_CONFIG_DISCOVERY,
    logLevel: e.POWERTOOLS_LOG_LEVEL,
    providerFetch: {
      allowedHosts: commaList(e.PROVIDER_FETCH_ALLOWED_HOSTS),
      gitlabHosts: commaList(e.PROVIDER_GITLAB_HOSTS),
    },
  };
}
