// The deployed product: four controller functions (esbuild-bundled, arm64), the bus and its routing rules, sweep
// schedules and the group of requeued passes' one-time schedules, the state table, dead-letter queues, one health alarm and the failed events notifying an SNS topic, log
// groups with retention and least-privilege IAM; cdk-nag's findings that remain are suppressed with their reasons in
// nag-suppressions.ts. The constructor reads as the parts it adds: table, bus, alarm topic, functions with their
// routing, webhooks, the alarm, outputs (each in its own file, adding to this stack's scope so no construct path and
// logical id changes).
import { CfnOutput, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { controllers, type Controller } from '#shared/checkpoint/table.ts';
import { defaultControllerConcurrency } from '#shared/runtime/config.ts';
import { eventSources } from '#shared/runtime/events.ts';
import { createAlarmTopic, createHealthAlarm } from './alarms.ts';
import {
  addForwarderPodIdentity,
  addFunctionAccessEntries,
  defaultForwarderServiceAccount,
  functionGroups,
  type FunctionName,
} from './cluster-access.ts';
import { createControllerFunction } from './controller-function.ts';
import { createForwarderImage, type ForwarderImagePlatform } from './forwarder-image.ts';
import { addEventRouting, createWakeUpSchedules } from './event-routing.ts';
import { acknowledgeAcceptedFindings } from './nag-suppressions.ts';
import { PrivateNetwork, type PrivateNetworkProps } from './private-network.ts';
import { createSecretsExtension } from './secrets-extension.ts';
import { validateStackProps } from './settings.ts';
import { createStateTable } from './state-table.ts';
import { defaultWebhookTokenKubeSecret, WebhooksFunction } from './webhooks/webhooks-function.ts';

export { tableActions } from './state-table.ts';

export type CapiServerlessStackProps = StackProps & {
  /** Secrets Manager secret (name) holding the management cluster's kubeconfig; unset: in-cluster/default rules. */
  readonly kubeconfigSecretName?: string;
  /**
   * Minutes between sweeps of each controller (default 60; 5 with `privateNetwork`, where there are no one-time
   * schedules): list every kind and pass over what no event reached. A pass that asks to run again at a time gets a
   * one-time schedule then, so no periodic tick waits for it.
   */
  readonly sweepMinutes?: number;
  /**
   * `<namespace>/<name>` of the Kubernetes Secret (key `token`) holding the webhooks' path token(s), read through the
   * API server (default `capi-serverless-system/capi-serverless-webhook-token`, which the chart creates). The webhooks
   * function refuses every request without a token (see docs/deploy.md, "Registering the webhooks").
   */
  readonly webhookTokenKubeSecret?: string;
  /**
   * Secrets Manager secret (name) holding the webhooks' path token(s) instead ($0.40 a secret-month and its calls; in
   * private subnets an interface endpoint too).
   */
  readonly webhookTokenSecretName?: string;
  /**
   * SSM SecureString parameter (name) holding the webhooks' path token(s) instead of a Secrets Manager secret (no
   * secret to pay for; create it first with `aws ssm put-parameter --type SecureString`).
   */
  readonly webhookTokenParameterName?: string;
  /** Reserved (and maximum) concurrency of the webhooks function (default 10). */
  readonly webhookReservedConcurrency?: number;
  /**
   * Warm containers Lambda keeps for the webhooks (provisioned concurrency on the alias `live`, which the Function URL
   * then targets; at most `webhookReservedConcurrency`). Unset: none, the URL targets the function.
   */
  readonly webhookProvisionedConcurrency?: number;
  /**
   * Reserved (and maximum) concurrency of each controller function, passed to it as CONTROLLER_CONCURRENCY (default
   * 50: what one flow of the shipped priority level queues, divided by the passes an invocation runs at once).
   */
  readonly controllerConcurrency?: number;
  /**
   * SNS topic (ARN) the health alarm and the failed events notify; unset: the stack creates one (output
   * `AlarmTopicArn`).
   */
  readonly alarmTopicArn?: string;
  /**
   * X-Ray active tracing on every function (default false: X-Ray bills per trace recorded, and nothing in the stack
   * reads traces). Not with `privateNetwork` (X-Ray would need an interface endpoint).
   */
  readonly tracing?: boolean;
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
  /** Namespace of the forwarder's ServiceAccount (EKS Pod Identity association; default capi-serverless-system). */
  readonly forwarderNamespace?: string;
  /** Name of the forwarder's ServiceAccount (default capi-serverless-forwarder). */
  readonly forwarderServiceAccount?: string;
  /**
   * Build functions/forwarder/Dockerfile at `cdk deploy` (local Docker) and push it to the CDK assets repository in
   * ECR; ChartValues then names the image (default false: no Docker needed, bring your own image).
   */
  readonly forwarderImage?: boolean;
  /** The image's platform, `linux/amd64` (default) or `linux/arm64`: the management cluster's nodes. */
  readonly forwarderImagePlatform?: string;
};

/** Tags on the stack and every resource that takes tags (cost allocation, finding an install's resources). */
export const appTag = { key: 'app', value: 'capi-serverless' } as const;
/** The tag key whose value is the stack's name (which install a resource belongs to). */
export const stackTagKey = 'capi-serverless:stack';

/** Log retention when none is given: long enough to investigate last month's incident, not forever. */
export const defaultLogRetention = logs.RetentionDays.ONE_MONTH;

/** Minutes between sweeps when none is given. */
export const defaultSweepMinutes = 60;
/** Minutes between ticks in private subnets (no one-time schedules there) when none is given. */
export const defaultPrivateTickMinutes = 5;

export class CapiServerlessStack extends Stack {
  readonly table: dynamodb.Table;
  readonly bus: events.EventBus;
  readonly functions: Readonly<Record<Controller, nodejs.NodejsFunction>>;
  readonly webhooks: WebhooksFunction;
  readonly alarmTopic: sns.ITopic;
  /** The one alarm: the `Unhealthy` metric (infra/alarms.ts). */
  readonly healthAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: CapiServerlessStackProps = {}) {
    validateStackProps(props);
    // NOTE: stack tags (CloudFormation tags what it creates with them) and the same tags on every resource in the
    // template; with @aws-cdk/core:explicitStackTags only props.tags reach the stack itself.
    const tags = { [appTag.key]: appTag.value, [stackTagKey]: props.stackName ?? id };
    super(scope, id, { ...props, tags: { ...tags, ...props.tags } });
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value);

    this.table = createStateTable(this, { deletionProtection: props.tableDeletionProtection ?? true });
    // NOTE: the one physical name the stack sets; every other name is generated by CloudFormation from the stack's.
    // Derived from the stack name so a second install (staging beside production) in the account and region coexists.
    this.bus = new events.EventBus(this, 'Bus', { eventBusName: this.stackName });
    const privateNetwork = props.privateNetwork
      ? new PrivateNetwork(this, 'PrivateNetwork', props.privateNetwork)
      : undefined;
    // NOTE: the default token (a Kubernetes Secret) is read through the API server: an endpoint only for a store.
    if (props.webhookTokenParameterName) privateNetwork?.addSecretStoreEndpoint('ssm');
    else if (props.webhookTokenSecretName) privateNetwork?.addSecretStoreEndpoint('secretsmanager');
    const network = privateNetwork?.functionProps;
    const eksEnvironment = props.eksCluster
      ? {
          EKS_CLUSTER_NAME: props.eksCluster.name,
          EKS_CLUSTER_ENDPOINT: props.eksCluster.endpoint,
          EKS_CLUSTER_CA_DATA: props.eksCluster.caData,
        }
      : {};
    const kubeconfigSecret = props.kubeconfigSecretName
      ? secretsmanager.Secret.fromSecretNameV2(this, 'Kubeconfig', props.kubeconfigSecretName)
      : undefined;
    const paramsAndSecrets = kubeconfigSecret ? createSecretsExtension() : undefined;
    const logRetention = props.logRetention ?? defaultLogRetention;
    const tracing = props.tracing ?? false;
    this.alarmTopic = createAlarmTopic(this, props.alarmTopicArn);

    // NOTE: from private subnets the Scheduler API would need an interface endpoint, which bills by the hour: there
    // no one-time schedules, and the tick keeps its 5 minutes so a requeued pass waits at most that long.
    const sweepMinutes = props.sweepMinutes ?? (network ? defaultPrivateTickMinutes : defaultSweepMinutes);
    const wakeUps = network ? undefined : createWakeUpSchedules(this);
    const functions = {} as Record<Controller, nodejs.NodejsFunction>;
    const deadLetterQueues: sqs.Queue[] = [];
    for (const controller of controllers) {
      const { fn, dlq } = createControllerFunction(this, controller, {
        table: this.table,
        bus: this.bus,
        logRetention,
        eksEnvironment,
        ...(kubeconfigSecret ? { kubeconfigSecret } : {}),
        ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
        ...(network ? { network } : {}),
        tracing,
        onFailureTopic: this.alarmTopic,
        extraEnvironment:
          controller === 'providers'
            ? computeProvidersEnvironment(props)
            : // NOTE: the topology function's ticks check the forwarder's heartbeat Lease in its namespace.
              controller === 'topology'
              ? { FORWARDER_NAMESPACE: props.forwarderNamespace ?? defaultForwarderServiceAccount.namespace }
              : {},
        sweepMinutes,
        ...(wakeUps ? { wakeUps } : {}),
        concurrency: props.controllerConcurrency ?? defaultControllerConcurrency,
      });
      addEventRouting(this, controller, {
        bus: this.bus,
        fn,
        dlq,
        sweepMinutes,
        fanOut: !network,
      });
      functions[controller] = fn;
      deadLetterQueues.push(dlq);
      wakeUps?.allowInvoking(fn);
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
    // Admission webhooks behind a Function URL; the chart (infra/chart) registers them with its URL (see docs/deploy.md).
    this.webhooks = new WebhooksFunction(this, 'Webhooks', {
      ...(kubeconfigSecret ? { kubeconfigSecret } : {}),
      ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
      ...(props.webhookTokenSecretName
        ? { tokenSecret: secretsmanager.Secret.fromSecretNameV2(this, 'WebhookToken', props.webhookTokenSecretName) }
        : {}),
      ...(props.webhookTokenParameterName ? { tokenParameterName: props.webhookTokenParameterName } : {}),
      tokenKubeSecret:
        props.webhookTokenKubeSecret ??
        (props.forwarderNamespace
          ? `${props.forwarderNamespace}/${defaultWebhookTokenKubeSecret.split('/')[1]}`
          : defaultWebhookTokenKubeSecret),
      tracing,
      ...(props.webhookReservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: props.webhookReservedConcurrency }),
      ...(props.webhookProvisionedConcurrency === undefined
        ? {}
        : { provisionedConcurrency: props.webhookProvisionedConcurrency }),
      logRetention,
      environment: eksEnvironment,
      ...(network ? { network } : {}),
    });
    new CfnOutput(this, 'webhooksRoleArn', {
      description: 'the webhooks function signs EKS tokens with this role (Kubernetes group capi-serverless:webhooks)',
      value: this.webhooks.function.role?.roleArn ?? '',
    });

    // NOTE: on EKS the stack creates the cluster access AWS owns; the RBAC binding the groups is in the chart.
    const forwarderServiceAccount = {
      namespace: props.forwarderNamespace ?? defaultForwarderServiceAccount.namespace,
      name: props.forwarderServiceAccount ?? defaultForwarderServiceAccount.name,
    };
    let forwarderRole: iam.Role | undefined;
    if (props.eksCluster) {
      const roles: Partial<Record<FunctionName, iam.IRole>> = {};
      for (const controller of controllers)
        if (functions[controller].role) roles[controller] = functions[controller].role;
      if (this.webhooks.function.role) roles.webhooks = this.webhooks.function.role;
      addFunctionAccessEntries(this, props.eksCluster.name, roles);
      forwarderRole = addForwarderPodIdentity(this, props.eksCluster.name, forwarderPolicy, forwarderServiceAccount);
      new CfnOutput(this, 'ForwarderRoleArn', {
        description: `the forwarder's role, associated with ServiceAccount ${forwarderServiceAccount.namespace}/${forwarderServiceAccount.name} (EKS Pod Identity)`,
        value: forwarderRole.roleArn,
      });
    }
    const forwarderImage = props.forwarderImage
      ? createForwarderImage(this, props.forwarderImagePlatform as ForwarderImagePlatform | undefined)
      : undefined;
    if (forwarderImage)
      new CfnOutput(this, 'ForwarderImageUri', {
        description: 'the forwarder image built from functions/forwarder/Dockerfile at cdk deploy',
        value: forwarderImage.imageUri,
      });
    new CfnOutput(this, 'ChartValues', {
      description: 'values for the cluster side (forwarder, webhook configurations, RBAC), as JSON (YAML reads JSON)',
      value: this.toJsonString({
        region: this.region,
        eventBusName: this.bus.eventBusName,
        tableName: this.table.tableName,
        webhooks: {
          baseUrl: this.webhooks.functionUrl.url,
          ...(this.webhooks.tokenKubeSecret ? { tokenKubeSecret: this.webhooks.tokenKubeSecret } : {}),
          ...(this.webhooks.tokenSecret ? { tokenSecretArn: this.webhooks.tokenSecret.secretArn } : {}),
          ...(this.webhooks.tokenParameter ? { tokenParameterName: this.webhooks.tokenParameter.parameterName } : {}),
        },
        forwarder: {
          namespace: forwarderServiceAccount.namespace,
          serviceAccount: forwarderServiceAccount.name,
          ...(forwarderRole ? { roleArn: forwarderRole.roleArn } : { policyArn: forwarderPolicy.managedPolicyArn }),
          // NOTE: without an EKS cluster there is no Pod Identity association: credentials are the user's to give.
          ...(forwarderRole ? {} : { identity: 'none' }),
          ...(forwarderImage
            ? { image: { repository: forwarderImage.repository.repositoryUri, tag: forwarderImage.imageTag } }
            : {}),
        },
        functions: Object.fromEntries(
          [...controllers, 'webhooks' as const].map((fn) => [
            fn,
            {
              group: functionGroups[fn],
              roleArn: (fn === 'webhooks' ? this.webhooks.function : functions[fn]).role?.roleArn ?? '',
            },
          ]),
        ),
      }),
    });
    this.healthAlarm = createHealthAlarm(this, this.alarmTopic);

    acknowledgeAcceptedFindings({
      controllerFunctions: Object.values(functions),
      deadLetterQueues,
      webhooks: this.webhooks,
      schedulerRoles: [
        ...this.node.children.filter((c) => c.node.id.startsWith('SchedulerRoleForTarget')),
        ...(wakeUps ? [wakeUps.role] : []),
      ],
      privateNetwork: network !== undefined,
      tracing: tracing && network === undefined,
      ...(wakeUps ? { wakeUpScheduleGroupName: wakeUps.group.scheduleGroupName } : {}),
    });
  }
}

/** The providers function's download allow-list and GitLab hosts, when given. */
function computeProvidersEnvironment(props: CapiServerlessStackProps): Record<string, string> {
  return {
    ...(props.providerFetchAllowedHosts?.length
      ? { PROVIDER_FETCH_ALLOWED_HOSTS: props.providerFetchAllowedHosts.join(',') }
      : {}),
    ...(props.providerGitlabHosts?.length ? { PROVIDER_GITLAB_HOSTS: props.providerGitlabHosts.join(',') } : {}),
  };
}
