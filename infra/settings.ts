// The stack's settings: read from CDK context (`-c key=value` or cdk.json) once, and every value checked at synth
// with a message naming the setting, so a bad setting never deploys (and never fails later, at run time).
import * as logs from 'aws-cdk-lib/aws-logs';
import { controllers } from '#shared/checkpoint/table.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { defaultControllerConcurrency } from '#shared/runtime/config.ts';
import { defaultWebhookReservedConcurrency } from './webhooks/webhooks-function.ts';
import type { CapiServerlessStackProps } from './stack-props.ts';
import { forwarderImagePlatforms } from './forwarder-image.ts';

/** A setting that cannot deploy; `fieldPath` is the setting's context key. */
export class StackSettingError extends ValidationError {
  constructor(setting: string, message: string) {
    super(`setting ${setting}: ${message}`, { fieldPath: setting, reason: 'InvalidSetting' });
  }
}

/** The stack's id and CloudFormation name when `stackName` is not given (the name of the first install). */
export const defaultStackName = 'CapiServerless';

/** Every context key the app reads (the names the error messages use). */
export const settingKeys = [
  'stackName',
  'kubeconfigSecretName',
  'eksClusterName',
  'eksClusterEndpoint',
  'eksClusterCaData',
  'sweepMinutes',
  'tickMinutes',
  'webhookTokenKubeSecret',
  'webhookTokenSecretName',
  'webhookTokenParameterName',
  'webhookReservedConcurrency',
  'webhookProvisionedConcurrency',
  'controllerConcurrency',
  'alarmTopicArn',
  'healthAlarm',
  'tracing',
  'logRetentionDays',
  'providerFetchAllowedHosts',
  'providerGitlabHosts',
  'extensionConfigDiscovery',
  'tableDeletionProtection',
  'forwarderNamespace',
  'forwarderServiceAccount',
  'forwarderIdentity',
  'oidcIssuer',
  'podIdentityAgent',
  'forwarderImage',
  'forwarderImagePlatform',
  'vpcId',
  'availabilityZones',
  'privateSubnetIds',
  'privateSubnetRouteTableIds',
  'securityGroupIds',
  'secretStoreEndpoint',
] as const;
export type SettingKey = (typeof settingKeys)[number];

/** Whole-number settings and their bounds. */
export const integerBounds = {
  // NOTE: EventBridge Scheduler's finest rate is one minute; past a day a missed event waits too long for a sweep.
  // Requeued passes have their own one-time schedules: the sweep finds missed events and schedules that failed.
  sweepMinutes: { min: 1, max: 1440 },
  // NOTE: 0 would refuse every Cluster write (failurePolicy: Fail); Lambda's default account limit is 1,000.
  webhookReservedConcurrency: { min: 1, max: 1000 },
  // NOTE: warm containers kept for the webhooks (billed by the hour); at most the reserved concurrency.
  webhookProvisionedConcurrency: { min: 1, max: 1000 },
  // NOTE: reserved for each controller function and passed as CONTROLLER_CONCURRENCY (its flow's queues).
  controllerConcurrency: { min: 1, max: 1000 },
} as const satisfies Partial<Record<SettingKey, { min: number; max: number }>>;

const text = (key: SettingKey, value: unknown): string | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new StackSettingError(key, `must be a string, got ${JSON.stringify(value)}`);
  return value.trim() || undefined;
};

const extensionConfigDiscovery = (value: unknown): CapiServerlessStackProps['extensionConfigDiscovery'] => {
  const v = text('extensionConfigDiscovery', value);
  if (v === undefined || v === 'capi-serverless' || v === 'upstream') return v;
  throw new StackSettingError(
    'extensionConfigDiscovery',
    `must be capi-serverless or upstream, got ${JSON.stringify(v)}`,
  );
};

const forwarderIdentity = (value: unknown): CapiServerlessStackProps['forwarderIdentity'] => {
  const v = text('forwarderIdentity', value);
  if (v === undefined || v === 'podIdentity' || v === 'irsa') return v;
  throw new StackSettingError('forwarderIdentity', `must be podIdentity or irsa, got ${JSON.stringify(v)}`);
};

const integer = (key: keyof typeof integerBounds, value: unknown): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  checkInteger(key, n, value);
  return n;
};

function checkInteger(key: keyof typeof integerBounds, n: number, given: unknown = n): void {
  const { min, max } = integerBounds[key];
  if (!Number.isInteger(n) || n < min || n > max)
    throw new StackSettingError(key, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(given)}`);
}

const boolean = (key: SettingKey, value: unknown): boolean | undefined => {
  if (value === undefined || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new StackSettingError(key, `must be true or false, got ${JSON.stringify(value)}`);
};

const list = (key: SettingKey, value: unknown): string[] | undefined => {
  if (Array.isArray(value)) return value.map((v) => text(key, v) ?? '').filter(Boolean);
  return text(key, value)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
};

/**
 * Refuses a context key that looks like a setting (a plain camelCase word, as every setting is) but is none: a typo
 * such as `-c forwarderImag=true` would otherwise be ignored and the install would fail later. Keys of CDK itself and
 * of its feature flags hold `:`, `/`, `@` or `-` and are left alone.
 *
 * @example
 * checkUnknownSettings(Object.keys(app.node.getAllContext())); // throws for 'eksClustrName'
 */
export function checkUnknownSettings(keys: Iterable<string>): void {
  const known = new Set<string>(settingKeys);
  for (const key of keys) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(key) || known.has(key)) continue;
    const near = [...known].filter((k) => computeEditDistance(k.toLowerCase(), key.toLowerCase()) <= 2);
    throw new StackSettingError(
      key,
      `is not a setting${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}; the settings are ` +
        `listed in docs/configuration.md`,
    );
  }
}

/** Levenshtein distance, for suggesting the setting a typo meant. */
function computeEditDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The stack's name and props from CDK context; throws a {@link StackSettingError} naming the first bad setting.
 *
 * @example
 * const { stackName, props } = computeStackSettings((key) => app.node.tryGetContext(key));
 * new CapiServerlessStack(app, stackName, props);
 */
export function computeStackSettings(get: (key: SettingKey) => unknown): {
  stackName: string;
  props: CapiServerlessStackProps;
} {
  const stackName = text('stackName', get('stackName')) ?? defaultStackName;
  const days = get('logRetentionDays');
  let logRetention: logs.RetentionDays | undefined;
  if (days !== undefined && days !== '') {
    const n = Number(days);
    if (!Object.values(logs.RetentionDays).includes(n))
      throw new StackSettingError(
        'logRetentionDays',
        `must be one of CloudWatch Logs' retention periods (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...), got ${JSON.stringify(days)}`,
      );
    logRetention = n as logs.RetentionDays;
  }
  const eks = {
    eksClusterName: text('eksClusterName', get('eksClusterName')),
    eksClusterEndpoint: text('eksClusterEndpoint', get('eksClusterEndpoint')),
    eksClusterCaData: text('eksClusterCaData', get('eksClusterCaData')),
  };
  const givenEks = Object.entries(eks).filter(([, v]) => v !== undefined);
  if (givenEks.length > 0 && givenEks.length < 3) {
    const missing = Object.keys(eks).filter((k) => eks[k as keyof typeof eks] === undefined);
    throw new StackSettingError(
      givenEks[0]?.[0] ?? 'eksClusterName',
      `an EKS cluster needs eksClusterName, eksClusterEndpoint and eksClusterCaData together; missing ${missing.join(
        ' and ',
      )} (aws eks describe-cluster --name <name> --query 'cluster.[endpoint,certificateAuthority.data]')`,
    );
  }
  const vpcId = text('vpcId', get('vpcId'));
  for (const key of [
    'availabilityZones',
    'privateSubnetIds',
    'privateSubnetRouteTableIds',
    'securityGroupIds',
  ] as const)
    if (!vpcId && get(key) !== undefined && get(key) !== '')
      throw new StackSettingError(key, 'is only used with vpcId (the private-network variant); set vpcId or remove it');
  const securityGroupIds = list('securityGroupIds', get('securityGroupIds'));
  const secretStoreEndpoint = boolean('secretStoreEndpoint', get('secretStoreEndpoint'));
  if (!vpcId && secretStoreEndpoint !== undefined)
    throw new StackSettingError('secretStoreEndpoint', 'is only used with vpcId (the private-network variant)');
  if (get('tickMinutes') !== undefined && get('tickMinutes') !== '')
    throw new StackSettingError(
      'tickMinutes',
      'was replaced by sweepMinutes (default 60): the functions sweep on that schedule and requeued passes get ' +
        'one-time schedules at their due times',
    );
  const optional = <K extends keyof CapiServerlessStackProps>(
    key: K,
    value: CapiServerlessStackProps[K] | undefined,
  ) => (value === undefined ? {} : { [key]: value });
  const props: CapiServerlessStackProps = {
    stackName,
    ...(eks.eksClusterName && eks.eksClusterEndpoint && eks.eksClusterCaData
      ? { eksCluster: { name: eks.eksClusterName, endpoint: eks.eksClusterEndpoint, caData: eks.eksClusterCaData } }
      : {}),
    ...(vpcId
      ? {
          privateNetwork: {
            vpcId,
            availabilityZones: list('availabilityZones', get('availabilityZones')) ?? [],
            privateSubnetIds: list('privateSubnetIds', get('privateSubnetIds')) ?? [],
            privateSubnetRouteTableIds: list('privateSubnetRouteTableIds', get('privateSubnetRouteTableIds')) ?? [],
            ...(securityGroupIds ? { securityGroupIds } : {}),
            ...(secretStoreEndpoint === undefined ? {} : { secretStoreEndpoint }),
          },
        }
      : {}),
    ...optional('kubeconfigSecretName', text('kubeconfigSecretName', get('kubeconfigSecretName'))),
    ...optional('sweepMinutes', integer('sweepMinutes', get('sweepMinutes'))),
    ...optional('webhookTokenKubeSecret', text('webhookTokenKubeSecret', get('webhookTokenKubeSecret'))),
    ...optional('webhookTokenSecretName', text('webhookTokenSecretName', get('webhookTokenSecretName'))),
    ...optional('webhookTokenParameterName', text('webhookTokenParameterName', get('webhookTokenParameterName'))),
    ...optional('webhookReservedConcurrency', integer('webhookReservedConcurrency', get('webhookReservedConcurrency'))),
    ...optional(
      'webhookProvisionedConcurrency',
      integer('webhookProvisionedConcurrency', get('webhookProvisionedConcurrency')),
    ),
    ...optional('controllerConcurrency', integer('controllerConcurrency', get('controllerConcurrency'))),
    ...optional('alarmTopicArn', text('alarmTopicArn', get('alarmTopicArn'))),
    ...optional('healthAlarm', boolean('healthAlarm', get('healthAlarm'))),
    ...optional('tracing', boolean('tracing', get('tracing'))),
    ...optional('logRetention', logRetention),
    ...optional('providerFetchAllowedHosts', list('providerFetchAllowedHosts', get('providerFetchAllowedHosts'))),
    ...optional('providerGitlabHosts', list('providerGitlabHosts', get('providerGitlabHosts'))),
    ...optional('extensionConfigDiscovery', extensionConfigDiscovery(get('extensionConfigDiscovery'))),
    ...optional('tableDeletionProtection', boolean('tableDeletionProtection', get('tableDeletionProtection'))),
    ...optional('forwarderNamespace', text('forwarderNamespace', get('forwarderNamespace'))),
    ...optional('forwarderServiceAccount', text('forwarderServiceAccount', get('forwarderServiceAccount'))),
    ...optional('forwarderIdentity', forwarderIdentity(get('forwarderIdentity'))),
    ...optional('oidcIssuer', text('oidcIssuer', get('oidcIssuer'))),
    ...optional('podIdentityAgent', boolean('podIdentityAgent', get('podIdentityAgent'))),
    ...optional('forwarderImage', boolean('forwarderImage', get('forwarderImage'))),
    ...optional('forwarderImagePlatform', text('forwarderImagePlatform', get('forwarderImagePlatform'))),
  };
  validateStackProps(props);
  return { stackName, props };
}

/**
 * Lambda refuses reserved concurrency that leaves the account fewer than 100 unreserved executions; 1,000 is the
 * default account quota in established accounts (new accounts start lower and need a quota increase).
 */
export const accountConcurrencyQuota = 1000;
const unreservedMinimum = 100;

function checkConcurrency(props: CapiServerlessStackProps): void {
  if (props.webhookReservedConcurrency !== undefined)
    checkInteger('webhookReservedConcurrency', props.webhookReservedConcurrency);
  if (props.controllerConcurrency !== undefined) checkInteger('controllerConcurrency', props.controllerConcurrency);
  const webhookReserved = props.webhookReservedConcurrency ?? defaultWebhookReservedConcurrency;
  if (props.webhookProvisionedConcurrency !== undefined) {
    checkInteger('webhookProvisionedConcurrency', props.webhookProvisionedConcurrency);
    if (props.webhookProvisionedConcurrency > webhookReserved)
      throw new StackSettingError(
        'webhookProvisionedConcurrency',
        `must not exceed webhookReservedConcurrency (${webhookReserved}): Lambda cannot keep more warm containers ` +
          `than the function may run, got ${props.webhookProvisionedConcurrency}`,
      );
  }
  const controllerReserved = props.controllerConcurrency ?? defaultControllerConcurrency;
  const reserved = controllers.length * controllerReserved + webhookReserved;
  if (reserved > accountConcurrencyQuota - unreservedMinimum)
    throw new StackSettingError(
      props.controllerConcurrency === undefined ? 'webhookReservedConcurrency' : 'controllerConcurrency',
      `the stack would reserve ${reserved} concurrent executions (${controllers.length} controllers × ` +
        `${controllerReserved} + webhooks ${webhookReserved}); Lambda keeps 100 of the account's quota ` +
        `(${accountConcurrencyQuota} by default) unreserved, so at most ${accountConcurrencyQuota - unreservedMinimum}`,
    );
}

const hostPattern =
  /^(?=.{1,253}(:|$))[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Checks props given to the stack directly (the app's context goes through {@link computeStackSettings} first);
 * throws a {@link StackSettingError} naming the setting's context key.
 *
 * @example
 * validateStackProps({ kubeconfigSecretName: 'mgmt-kubeconfig', sweepMinutes: 60 });
 */
export function validateStackProps(props: CapiServerlessStackProps): void {
  if (props.stackName !== undefined && !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(props.stackName))
    throw new StackSettingError(
      'stackName',
      `must start with a letter and hold only letters, digits and hyphens (at most 128), got ${JSON.stringify(props.stackName)}`,
    );
  const network = props.privateNetwork;
  if (network) {
    if (props.kubeconfigSecretName)
      throw new StackSettingError(
        'kubeconfigSecretName',
        'with vpcId (private subnets) use eksClusterName (EKS access entries) instead: reading a kubeconfig secret ' +
          'from private subnets needs a Secrets Manager interface endpoint, which bills by the hour',
      );
    if (!props.eksCluster)
      throw new StackSettingError(
        'vpcId',
        'private subnets need eksClusterName, eksClusterEndpoint and eksClusterCaData: the functions sign EKS tokens with their own roles',
      );
    if (!/^vpc-[0-9a-f]{8,17}$/.test(network.vpcId))
      throw new StackSettingError('vpcId', `is not a VPC id: ${JSON.stringify(network.vpcId)}`);
    const zones = network.availabilityZones.length;
    if (zones === 0)
      throw new StackSettingError('availabilityZones', 'give the zones of the private subnets (comma-separated)');
    if (network.privateSubnetIds.length !== zones)
      throw new StackSettingError(
        'privateSubnetIds',
        `give one private subnet per availability zone (${zones} zones, ${network.privateSubnetIds.length} subnets)`,
      );
    if (network.privateSubnetRouteTableIds.length !== zones)
      throw new StackSettingError(
        'privateSubnetRouteTableIds',
        `give one route table per availability zone (${zones} zones, ${network.privateSubnetRouteTableIds.length} route tables)`,
      );
    for (const [key, ids, prefix] of [
      ['privateSubnetIds', network.privateSubnetIds, 'subnet'],
      ['privateSubnetRouteTableIds', network.privateSubnetRouteTableIds, 'rtb'],
      ['securityGroupIds', network.securityGroupIds ?? [], 'sg'],
    ] as const)
      for (const id of ids)
        if (!new RegExp(`^${prefix}-[0-9a-f]{8,17}$`).test(id))
          throw new StackSettingError(key, `is not a ${prefix}- id: ${JSON.stringify(id)}`);
  }
  if (!props.kubeconfigSecretName && !props.eksCluster)
    throw new StackSettingError(
      'kubeconfigSecretName',
      'no credential source for the management cluster: set kubeconfigSecretName (a Secrets Manager secret holding a ' +
        'kubeconfig) or eksClusterName with eksClusterEndpoint and eksClusterCaData (EKS access entries)',
    );
  if (props.eksCluster) {
    const { name, endpoint, caData } = props.eksCluster;
    if (!/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/.test(name))
      throw new StackSettingError('eksClusterName', `is not an EKS cluster name: ${JSON.stringify(name)}`);
    if (!/^https:\/\/[^/?#\s]+\/?$/.test(endpoint))
      throw new StackSettingError(
        'eksClusterEndpoint',
        `must be the cluster's https:// API endpoint, got ${JSON.stringify(endpoint)}`,
      );
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(caData))
      throw new StackSettingError('eksClusterCaData', "must be the cluster's base64 certificate authority data");
  }
  if (props.sweepMinutes !== undefined) checkInteger('sweepMinutes', props.sweepMinutes);
  checkConcurrency(props);
  if (props.webhookTokenSecretName && props.webhookTokenParameterName)
    throw new StackSettingError(
      'webhookTokenParameterName',
      'give either webhookTokenSecretName or webhookTokenParameterName, not both',
    );
  if (props.webhookTokenKubeSecret !== undefined) {
    if (props.webhookTokenSecretName || props.webhookTokenParameterName)
      throw new StackSettingError(
        'webhookTokenKubeSecret',
        `give one token store: webhookTokenKubeSecret, or webhookTokenSecretName or webhookTokenParameterName instead`,
      );
    const [ns = '', name = '', extra] = props.webhookTokenKubeSecret.split('/');
    if (
      extra !== undefined ||
      !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns) ||
      !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)
    )
      throw new StackSettingError(
        'webhookTokenKubeSecret',
        `must be <namespace>/<name> of a Kubernetes Secret, got ${JSON.stringify(props.webhookTokenKubeSecret)}`,
      );
  }
  if (props.tracing && props.privateNetwork)
    throw new StackSettingError(
      'tracing',
      'X-Ray tracing from private subnets needs an X-Ray interface endpoint (billed by the hour); the stack does not ' +
        'add one: leave tracing off with vpcId',
    );
  if (
    props.webhookTokenParameterName !== undefined &&
    !/^[A-Za-z0-9_.\-/]{1,1011}$/.test(props.webhookTokenParameterName)
  )
    throw new StackSettingError(
      'webhookTokenParameterName',
      `is not an SSM parameter name: ${JSON.stringify(props.webhookTokenParameterName)}`,
    );
  if (
    props.alarmTopicArn !== undefined &&
    !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(props.alarmTopicArn)
  )
    throw new StackSettingError('alarmTopicArn', `is not an SNS topic ARN: ${JSON.stringify(props.alarmTopicArn)}`);
  for (const host of props.providerFetchAllowedHosts ?? []) {
    const [name, port, extra] = host.split(':');
    const portNumber = Number(port);
    if (
      !hostPattern.test(name ?? '') ||
      extra !== undefined ||
      (port !== undefined && !(Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65535))
    )
      throw new StackSettingError(
        'providerFetchAllowedHosts',
        `each entry is host or host:port, got ${JSON.stringify(host)}`,
      );
  }
  if (props.forwarderNamespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(props.forwarderNamespace))
    throw new StackSettingError(
      'forwarderNamespace',
      `is not a Kubernetes namespace name: ${JSON.stringify(props.forwarderNamespace)}`,
    );
  if (
    props.forwarderServiceAccount !== undefined &&
    !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(props.forwarderServiceAccount)
  )
    throw new StackSettingError(
      'forwarderServiceAccount',
      `is not a Kubernetes ServiceAccount name: ${JSON.stringify(props.forwarderServiceAccount)}`,
    );
  checkForwarderIdentity(props);
  if (props.forwarderImagePlatform !== undefined) {
    if (!forwarderImagePlatforms.some((p) => p === props.forwarderImagePlatform))
      throw new StackSettingError(
        'forwarderImagePlatform',
        `must be one of ${forwarderImagePlatforms.join(', ')}, got ${JSON.stringify(props.forwarderImagePlatform)}`,
      );
    if (!props.forwarderImage)
      throw new StackSettingError('forwarderImagePlatform', 'needs forwarderImage=true (no image is built without it)');
  }
  for (const host of props.providerGitlabHosts ?? [])
    if (!hostPattern.test(host))
      throw new StackSettingError('providerGitlabHosts', `each entry is a host name, got ${JSON.stringify(host)}`);
}

function checkForwarderIdentity(props: CapiServerlessStackProps): void {
  const { forwarderIdentity, oidcIssuer } = props;
  if (forwarderIdentity !== undefined && forwarderIdentity !== 'podIdentity' && forwarderIdentity !== 'irsa')
    throw new StackSettingError(
      'forwarderIdentity',
      `must be podIdentity or irsa, got ${JSON.stringify(forwarderIdentity)}`,
    );
  if (forwarderIdentity === 'podIdentity' && !props.eksCluster)
    throw new StackSettingError(
      'forwarderIdentity',
      'podIdentity needs an EKS cluster (eksClusterName, eksClusterEndpoint, eksClusterCaData); for another cluster ' +
        'use irsa with oidcIssuer, or leave it unset and give the forwarder credentials yourself',
    );
  if (forwarderIdentity === 'irsa' && oidcIssuer === undefined)
    throw new StackSettingError(
      'oidcIssuer',
      "forwarderIdentity=irsa needs the cluster's OIDC issuer URL (EKS: aws eks describe-cluster --name <name> " +
        '--query cluster.identity.oidc.issuer --output text)',
    );
  if (props.podIdentityAgent && (!props.eksCluster || forwarderIdentity === 'irsa'))
    throw new StackSettingError(
      'podIdentityAgent',
      'is only used with EKS Pod Identity (an EKS cluster, forwarderIdentity unset or podIdentity)',
    );
  if (oidcIssuer !== undefined && forwarderIdentity !== 'irsa')
    throw new StackSettingError('oidcIssuer', 'is only used with forwarderIdentity=irsa');
  if (oidcIssuer !== undefined && !/^https:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._~%-]+)*$/.test(oidcIssuer))
    throw new StackSettingError(
      'oidcIssuer',
      `must be the issuer's https:// URL without a trailing slash, got ${JSON.stringify(oidcIssuer)}`,
    );
}
