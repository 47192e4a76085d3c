// The admission webhooks as a Lambda with a Function URL, for the stack to add: bundled as every function is
// (function-bundling.ts), a 9s timeout (under the webhooks' 10s timeoutSeconds) and the URL as an output to render the
// Validating/MutatingWebhookConfiguration manifests with (see webhook-manifests.ts). The URL is public (the API
// server cannot sign requests), so a secret path token is mandatory, read at run time (never in the environment, where
// lambda:GetFunctionConfiguration shows it): by default from a Kubernetes Secret through the API server the function
// already reaches (nothing to pay for, no endpoint in private subnets), or from a given Secrets Manager secret or SSM
// SecureString parameter through the Parameters and Secrets extension; reserved concurrency caps what strangers can
// cost. Its failures reach the stack's one alarm through the `Unhealthy` metric the handler publishes.
import { CfnOutput, Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { computeBundledFunctionProps, functionRuntimeEnvironment } from '../function-bundling.ts';
import type { FunctionNetworkProps } from '../private-network.ts';
import { createSecretsExtension } from '../secrets-extension.ts';

/** The Kubernetes Secret (namespace/name, key `token`) the token is read from unless a store is given. */
export const defaultWebhookTokenKubeSecret = 'capi-serverless-system/capi-serverless-webhook-token';

export type WebhooksFunctionProps = {
  /** Secret holding the management cluster's kubeconfig (read through the Parameters and Secrets extension). */
  readonly kubeconfigSecret?: secretsmanager.ISecret;
  /** Layers added to the function. */
  readonly layers?: lambda.ILayerVersion[];
  /** The AWS Parameters and Secrets Lambda Extension the kubeconfig secret is read through. */
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
  /**
   * `<namespace>/<name>` of the Kubernetes Secret whose `token` key holds the accepted path token(s), whitespace-
   * separated, each at least 16 characters of [A-Za-z0-9_-] (default {@link defaultWebhookTokenKubeSecret}); used
   * unless `tokenSecret` or `tokenParameterName` is given.
   */
  readonly tokenKubeSecret?: string;
  /** A Secrets Manager secret holding the token(s) instead (billed per secret-month and per call). */
  readonly tokenSecret?: secretsmanager.ISecret;
  /**
   * Name of an SSM SecureString parameter holding the token(s) instead (CloudFormation cannot create SecureString
   * parameters: create it with `aws ssm put-parameter --type SecureString`); no Secrets Manager secret then.
   */
  readonly tokenParameterName?: string;
  /** Reserved (and so maximum) concurrent executions (default {@link defaultWebhookReservedConcurrency}, 100). */
  readonly reservedConcurrency?: number;
  /**
   * Warm containers kept ready (provisioned concurrency, at most `reservedConcurrency`): set, the function gets a
   * version and the alias `live` carrying it, and the Function URL targets the alias (a new URL: render the webhook
   * manifests again). Unset: no version or alias, the URL targets the function.
   */
  readonly provisionedConcurrency?: number;
  /** Retention of the function's log group (default one month). */
  readonly logRetention?: logs.RetentionDays;
  /** X-Ray active tracing (default off; never in private subnets). */
  readonly tracing?: boolean;
  /** Extra environment (e.g. the EKS cluster settings). */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Private subnets to attach to. The token is read at run time there too, through an interface endpoint of its
   * store (PrivateNetwork.addSecretStoreEndpoint, or one the VPC has).
   */
  readonly network?: FunctionNetworkProps;
};

/**
 * Reserved concurrency when none is given. Every Cluster and ClusterClass write waits on these webhooks with
 * `failurePolicy: Fail`, and a throttled call is a refused write: a Function URL answers 429 at once (Lambda queues no
 * synchronous invocation) and the API server's webhook client retries a 429 only when it carries `Retry-After`. Reserved
 * concurrency also caps the URL's request rate at 10 per second per unit. 100 leaves room above the measured asks
 * (12 containers at once for a 500-Cluster burst with 10 warm, 31–44 with cold starts; docs/faults.md) and 1,000
 * requests per second; it still caps what a stranger flooding the public URL can cost (every call without the path
 * token is refused before any read). Unused reservation costs nothing; it only sets aside account quota.
 */
export const defaultWebhookReservedConcurrency = 100;

export class WebhooksFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  /** The alias `live` with the provisioned concurrency (unset without `provisionedConcurrency`). */
  readonly alias: lambda.Alias | undefined;
  readonly functionUrl: lambda.FunctionUrl;
  /** The token's Kubernetes Secret, `<namespace>/<name>` (unset when a secret or parameter is given). */
  readonly tokenKubeSecret: string | undefined;
  /** The token's Secrets Manager secret, when given. */
  readonly tokenSecret: secretsmanager.ISecret | undefined;
  /** The token's SSM parameter, when given. */
  readonly tokenParameter: ssm.IStringParameter | undefined;

  constructor(scope: Construct, id: string, props: WebhooksFunctionProps = {}) {
    super(scope, id);
    this.tokenParameter = props.tokenParameterName
      ? ssm.StringParameter.fromSecureStringParameterAttributes(this, 'PathTokenParameter', {
          parameterName: props.tokenParameterName,
        })
      : undefined;
    this.tokenSecret = this.tokenParameter ? undefined : props.tokenSecret;
    this.tokenKubeSecret =
      this.tokenParameter || this.tokenSecret ? undefined : (props.tokenKubeSecret ?? defaultWebhookTokenKubeSecret);
    const tracing = props.tracing === true && !props.network;
    // NOTE: the extension only where a Secrets Manager secret or SSM parameter is read.
    const paramsAndSecrets =
      props.paramsAndSecrets ?? (this.tokenSecret || this.tokenParameter ? createSecretsExtension() : undefined);
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      logGroup: new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH }),
      reservedConcurrentExecutions: props.reservedConcurrency ?? defaultWebhookReservedConcurrency,
      ...computeBundledFunctionProps('webhooks'),
      // NOTE: more memory is more CPU: cold starts shrink, and admission latency is what users feel on kubectl apply.
      memorySize: 1024,
      timeout: Duration.seconds(9),
      // NOTE: the API server calls synchronously; a failure is answered by the webhook's failurePolicy, never retried.
      retryAttempts: 0,
      tracing: tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      ...(props.network ?? {}),
      environment: {
        ...functionRuntimeEnvironment,
        POWERTOOLS_SERVICE_NAME: 'capi-serverless-webhooks',
        ...props.environment,
        ...(props.kubeconfigSecret ? { KUBECONFIG_SECRET_ARN: props.kubeconfigSecret.secretArn } : {}),
        // NOTE: where the token is, never the token: the function reads it at run time.
        ...(this.tokenKubeSecret ? { WEBHOOK_TOKEN_KUBE_SECRET: this.tokenKubeSecret } : {}),
        ...(this.tokenSecret ? { WEBHOOK_TOKEN_SECRET_ARN: this.tokenSecret.secretArn } : {}),
        ...(this.tokenParameter ? { WEBHOOK_TOKEN_PARAMETER_NAME: this.tokenParameter.parameterName } : {}),
        ...(tracing ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
      },
      ...(props.layers ? { layers: props.layers } : {}),
      ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
    });
    props.kubeconfigSecret?.grantRead(this.function);
    this.tokenSecret?.grantRead(this.function);
    this.tokenParameter?.grantRead(this.function);
    // NOTE: the API server cannot sign requests with SigV4, so the URL is public; the path token keeps strangers out
    // (the handler refuses every request, before any read, without an accepted token).
    // NOTE: provisioned concurrency serves only a version or an alias; invocations of $LATEST would get cold
    // containers, so the URL moves to the alias when it is set.
    this.alias =
      props.provisionedConcurrency === undefined
        ? undefined
        : new lambda.Alias(this, 'Live', {
            aliasName: 'live',
            // NOTE: Version.role is optional where IVersion.role is not, under exactOptionalPropertyTypes.
            version: this.function.currentVersion as lambda.IVersion,
            provisionedConcurrentExecutions: props.provisionedConcurrency,
          });
    this.functionUrl = (this.alias ?? this.function).addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    new CfnOutput(this, 'WebhookBaseUrl', {
      description: 'Base URL for the webhook manifests: append /<token>, the path token the function reads',
      value: this.functionUrl.url,
    });
    if (this.tokenKubeSecret)
      new CfnOutput(this, 'WebhookTokenKubeSecret', {
        description:
          'Kubernetes Secret (namespace/name, key token) holding the webhook path token; the chart creates it',
        value: this.tokenKubeSecret,
      });
    if (this.tokenSecret)
      new CfnOutput(this, 'WebhookTokenSecretArn', {
        description: 'Secret holding the webhook path token (aws secretsmanager get-secret-value --secret-id <arn>)',
        value: this.tokenSecret.secretArn,
      });
    if (this.tokenParameter)
      new CfnOutput(this, 'WebhookTokenParameterName', {
        description:
          'SSM SecureString parameter holding the webhook path token (aws ssm get-parameter --with-decryption)',
        value: this.tokenParameter.parameterName,
      });
  }
}
