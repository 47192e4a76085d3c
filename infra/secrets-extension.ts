// The AWS Parameters and Secrets Lambda Extension, shared by the functions that read secrets (the kubeconfig, the
// webhooks' path token) through `GET localhost:2773/secretsmanager/get`, cached in the execution environment.
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { kubeconfigSecretExtensionPort } from '#shared/runtime/config.ts';

/**
 * The extension layer (no Secrets Manager SDK in the bundles).
 *
 * @example
 * new nodejs.NodejsFunction(this, 'Fn', { paramsAndSecrets: createSecretsExtension(), ... });
 */
export function createSecretsExtension(): lambda.ParamsAndSecretsLayerVersion {
  return lambda.ParamsAndSecretsLayerVersion.fromVersion(lambda.ParamsAndSecretsVersions.V1_0_103, {
    cacheEnabled: true,
    httpPort: kubeconfigSecretExtensionPort,
    // NOTE: the runtime reads the kubeconfig when it builds a kube client (every 10 minutes) and the webhook token
    // on every request; a rotated secret is picked up within this TTL.
    secretsManagerTtl: Duration.minutes(5),
    logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
  });
}
