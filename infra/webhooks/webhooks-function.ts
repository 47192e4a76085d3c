// The admission webhooks as a Lambda with a Function URL, for the stack to add: bundled as every function is
// (function-bundling.ts), a 9s timeout (under the webhooks' 10s timeoutSeconds) and the URL as an output to render the
// Validating/MutatingWebhookConfiguration manifests with (see webhook-manifests.ts). The URL is public (the API
// server cannot sign requests), so a secret path token is mandatory: a Secrets Manager secret created here with a
// generated token (or a given one), read per request through the Parameters and Secrets extension; reserved
// concurrency caps what strangers can cost; alarms on errors, throttles and p99 latency (failures block users' writes).
import { CfnOutput, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { computeBundledFunctionProps, functionRuntimeEnvironment } from '../function-bundling.ts';
import type { FunctionNetworkProps } from '../private-network.ts';
import { createSecretsExtension } from '../secrets-extension.ts';

export type WebhooksFunctionProps = {
  /** Secret holding the management cluster's kubeconfig (read through the Parameters and Secrets extension). */
  readonly kubeconfigSecret?: secretsmanager.ISecret;
  /** Layers added to the function. */
  readonly layers?: lambda.ILayerVersion[];
  /** The AWS Parameters and Secrets Lambda Extension the kubeconfig secret is read through. */
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
  /**
   * Secret whose string is the accepted path token(s) (whitespace-separated, each at least 16 characters of
   * [A-Za-z0-9_-]); unset: one is created with a generated 48-character token.
   */
  readonly tokenSecret?: secretsmanager.ISecret;
  /** Reserved (and so maximum) concurrent executions (default 10). */
  readonly reservedConcurrency?: number;
  /** Retention of the function's log group (default one month). */
  readonly logRetention?: logs.RetentionDays;
  /** p99 duration above which the latency alarm fires (default 3 s; the webhooks time out after 10 s). */
  readonly latencyThreshold?: Duration;
  /** Extra environment (e.g. the EKS cluster settings). */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Private subnets to attach to. There the token secret is resolved into the environment at deploy time (no
   * Secrets Manager call, so no interface endpoint): rotating it means updating the secret and deploying again.
   */
  readonly network?: FunctionNetworkProps;
};

/** Reserved concurrency when none is given: a burst of kubectl applies fits, a flood of strangers is capped. */
export const defaultWebhookReservedConcurrency = 10;

export class WebhooksFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly functionUrl: lambda.FunctionUrl;
  readonly tokenSecret: secretsmanager.ISecret | secretsmanager.Secret;
  private readonly latencyThreshold: Duration;

  constructor(scope: Construct, id: string, props: WebhooksFunctionProps = {}) {
    super(scope, id);
    this.latencyThreshold = props.latencyThreshold ?? Duration.seconds(3);
    this.tokenSecret =
      props.tokenSecret ??
      new secretsmanager.Secret(this, 'PathToken', {
        description: 'capi-serverless webhooks: accepted Function URL path token(s), whitespace-separated',
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      });
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      logGroup: new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH }),
      reservedConcurrentExecutions: props.reservedConcurrency ?? defaultWebhookReservedConcurrency,
      ...computeBundledFunctionProps('webhooks'),
      // NOTE: more memory is more CPU: cold starts shrink, and admission latency is what users feel on kubectl apply.
      memorySize: 1024,
      timeout: Duration.seconds(9),
      // NOTE: the API server calls synchronously; a failure is answered by the webhook's failurePolicy, never retried.
      retryAttempts: 0,
      tracing: props.network ? lambda.Tracing.DISABLED : lambda.Tracing.ACTIVE,
      ...(props.network ?? {}),
      environment: {
        ...functionRuntimeEnvironment,
        POWERTOOLS_SERVICE_NAME: 'capi-serverless-webhooks',
        ...props.environment,
        ...(props.kubeconfigSecret ? { KUBECONFIG_SECRET_ARN: props.kubeconfigSecret.secretArn } : {}),
        ...(props.network
          ? {
              // NOTE: a CloudFormation dynamic reference, resolved at deploy time; the template holds no secret.
              WEBHOOK_PATH_TOKEN: this.tokenSecret.secretValue.unsafeUnwrap(),
              POWERTOOLS_TRACE_ENABLED: 'false',
            }
          : { WEBHOOK_TOKEN_SECRET_ARN: this.tokenSecret.secretArn }),
      },
      ...(props.layers ? { layers: props.layers } : {}),
      ...(props.network ? {} : { paramsAndSecrets: props.paramsAndSecrets ?? createSecretsExtension() }),
    });
    props.kubeconfigSecret?.grantRead(this.function);
    if (!props.network) this.tokenSecret.grantRead(this.function);
    // NOTE: the API server cannot sign requests with SigV4, so the URL is public; the path token keeps strangers out
    // (the handler refuses every request, before any read, without an accepted token).
    this.functionUrl = this.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    new CfnOutput(this, 'WebhookBaseUrl', {
      description: 'Base URL for the webhook manifests: append /<token>, the string of WebhookTokenSecretArn',
      value: this.functionUrl.url,
    });
    new CfnOutput(this, 'WebhookTokenSecretArn', {
      description: 'Secret holding the webhook path token (aws secretsmanager get-secret-value --secret-id <arn>)',
      value: this.tokenSecret.secretArn,
    });
  }

  /** Alarms on the function's errors, throttles (reserved concurrency reached) and p99 duration. */
  createAlarms(): cloudwatch.Alarm[] {
    const period = Duration.minutes(5);
    const fn = this.function;
    const common = { evaluationPeriods: 1, treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING } as const;
    return [
      fn.metricErrors({ period }).createAlarm(this, 'ErrorsAlarm', {
        ...common,
        alarmDescription: 'webhooks invocations that failed: the API server applies failurePolicy (writes refused)',
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      fn.metricThrottles({ period }).createAlarm(this, 'ThrottlesAlarm', {
        ...common,
        alarmDescription: 'webhooks invocations throttled at the reserved concurrency: writes refused or slowed',
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      fn.metricDuration({ period, statistic: 'p99' }).createAlarm(this, 'LatencyAlarm', {
        ...common,
        evaluationPeriods: 2,
        alarmDescription: `webhooks p99 duration above ${this.latencyThreshold.toSeconds()} s for 10 minutes: kubectl waits`,
        threshold: this.latencyThreshold.toMilliseconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
    ];
  }
}
