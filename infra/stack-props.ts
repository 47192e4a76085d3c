// The stack's properties: every setting `cdk deploy -c` takes (read and checked in settings.ts), in its own module so
// the settings and the stack both import it and neither imports the other.
import type { StackProps } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { PrivateNetworkProps } from './private-network.ts';

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
  /**
   * Reserved (and maximum) concurrency of the webhooks function (default 100); it also caps the Function URL at 10
   * requests per second per unit.
   */
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
   * The health alarm (default true): one CloudWatch alarm over two metrics, $0.20 a month at list price. false: no
   * alarm (for a team that alerts on the functions' logs or metrics elsewhere); failed events still reach the topic.
   */
  readonly healthAlarm?: boolean;
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
   * Who discovers ExtensionConfigs and writes their status (`EXTENSION_CONFIG_DISCOVERY` of the topology and
   * providers functions; default `capi-serverless`). `upstream` when upstream's core manager runs with the RuntimeSDK
   * gate on (in-place updates, docs/beside-upstream.md): its ExtensionConfig controller is then the one writer.
   */
  readonly extensionConfigDiscovery?: 'capi-serverless' | 'upstream';
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
   * How the forwarder's role is assumed: `podIdentity` (default with an EKS cluster: a role trusted by EKS Pod
   * Identity and an association for its ServiceAccount) or `irsa` (a role trusted by the cluster's IAM OIDC provider
   * for that ServiceAccount only, `oidcIssuer`; any cluster whose issuer IAM trusts). Without either, the policy
   * alone.
   */
  readonly forwarderIdentity?: 'podIdentity' | 'irsa';
  /**
   * The cluster's OIDC issuer URL for `forwarderIdentity: irsa` (EKS: `aws eks describe-cluster --name <name> --query
   * cluster.identity.oidc.issuer`); its IAM OIDC provider must exist in the account.
   */
  readonly oidcIssuer?: string;
  /**
   * Install the EKS Pod Identity Agent add-on (`eks-pod-identity-agent`) that Pod Identity needs (default false: the
   * cluster already has it, as EKS Auto Mode clusters do). Kept when the stack is deleted, since other workloads may
   * use it.
   */
  readonly podIdentityAgent?: boolean;
  /**
   * Build functions/forwarder/Dockerfile at `cdk deploy` (local Docker) and push it to the CDK assets repository in
   * ECR; ChartValues then names the image (default false: no Docker needed, bring your own image).
   */
  readonly forwarderImage?: boolean;
  /** The image's platform, `linux/amd64` (default) or `linux/arm64`: the management cluster's nodes. */
  readonly forwarderImagePlatform?: string;
};
