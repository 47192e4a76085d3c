// The admission webhooks as a Lambda with a Function URL, for the stack to add: esbuild-bundled like the controller
// functions, a 9s timeout (under the webhooks' 10s timeoutSeconds) and the URL as an output to render the
// Validating/MutatingWebhookConfiguration manifests with (see webhook-manifests.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export type WebhooksFunctionProps = {
  /** Secret holding the management cluster's kubeconfig (read through the Parameters and Secrets extension). */
  readonly kubeconfigSecret?: secretsmanager.ISecret;
  /** Layers added to the function. */
  readonly layers?: lambda.ILayerVersion[];
  /** The AWS Parameters and Secrets Lambda Extension the kubeconfig secret is read through. */
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
  /** Secret first path segment of the webhook URLs (at least 16 characters of [A-Za-z0-9_-]). */
  readonly pathToken?: string;
};

export class WebhooksFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly functionUrl: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: WebhooksFunctionProps = {}) {
    super(scope, id);
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: join(repoRoot, 'functions', 'webhooks.ts'),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: join(repoRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      // NOTE: more memory is more CPU: cold starts shrink, and admission latency is what users feel on kubectl apply.
      memorySize: 1024,
      timeout: Duration.seconds(9),
      // NOTE: the API server calls synchronously; a failure is answered by the webhook's failurePolicy, never retried.
      retryAttempts: 0,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'capi-serverless-webhooks',
        ...(props.kubeconfigSecret ? { KUBECONFIG_SECRET_ARN: props.kubeconfigSecret.secretArn } : {}),
        ...(props.pathToken ? { WEBHOOK_PATH_TOKEN: props.pathToken } : {}),
      },
      ...(props.layers ? { layers: props.layers } : {}),
      ...(props.paramsAndSecrets ? { paramsAndSecrets: props.paramsAndSecrets } : {}),
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
    props.kubeconfigSecret?.grantRead(this.function);
    // NOTE: the API server cannot sign requests with SigV4, so the URL is public; WEBHOOK_PATH_TOKEN keeps strangers out.
    this.functionUrl = this.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    new CfnOutput(this, 'WebhookBaseUrl', {
      description: 'Base URL for the webhook manifests (append the path token when one is set)',
      value: this.functionUrl.url,
    });
  }
}
