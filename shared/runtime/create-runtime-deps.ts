// Dependencies of the Lambda functions: a Powertools logger, the checkpoint store (module singletons) and a
// management-cluster client rebuilt before short-lived credentials (EKS tokens) expire.
import { Logger } from '@aws-lambda-powertools/logger';
import { createCheckpointStore, createDynamoDBClient, type Controller } from '#shared/checkpoint/index.ts';
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { createKubeClient, type KubeClient, type KubeconfigSource } from '#shared/kube/index.ts';
import type { RuntimeConfig } from '#shared/runtime/config.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';

/** The structured JSON logger of a controller's function (`service` = `capi-serverless-<controller>`). */
export function createLogger(controller: Controller, config: Pick<RuntimeConfig, 'logLevel'>): Logger {
  return new Logger({ serviceName: `capi-serverless-${controller}`, logLevel: config.logLevel });
}

export class KubeconfigSecretError extends CapiError {}

/**
 * Reads a kubeconfig from Secrets Manager through the AWS Parameters and Secrets Lambda Extension (a layer; no SDK
 * in the bundle). The secret's string is the kubeconfig YAML.
 */
export async function getKubeconfigSecret(secretId: string, env = process.env): Promise<string> {
  const port = env['PARAMETERS_SECRETS_EXTENSION_HTTP_PORT'] ?? '2773';
  const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
  try {
    const res = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': env['AWS_SESSION_TOKEN'] ?? '' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { SecretString?: string };
    if (!body.SecretString) throw new Error('the secret has no SecretString');
    return body.SecretString;
  } catch (err) {
    throw new KubeconfigSecretError(
      `failed to read kubeconfig secret ${secretId}: ${errorMessage(err)}`,
      { name: secretId, reason: 'KubeconfigSecretUnavailable' },
      { cause: err },
    );
  }
}

/** Where the management cluster's credentials come from: KUBECONFIG, the secret, or in-cluster/default rules. */
export async function resolveKubeconfigSource(config: RuntimeConfig): Promise<KubeconfigSource> {
  if (config.kubeconfigPath) return { kubeconfigPath: config.kubeconfigPath };
  if (config.kubeconfigSecretArn) return { kubeconfig: await getKubeconfigSecret(config.kubeconfigSecretArn) };
  return { fromDefault: true };
}

/** Rebuild the client this often: EKS tokens from an exec plugin live 15 minutes. */
const kubeClientMaxAgeMs = 10 * 60_000;

/**
 * A `getDeps` for {@link createControllerHandler}: one store per cold start, one kube client per 10 minutes.
 *
 * @example
 * const config = computeRuntimeConfig(process.env);
 * const logger = createLogger('topology', config);
 * export const handler = createControllerHandler({ reconciler, logger, getDeps: createRuntimeDepsFactory('topology', config, logger) });
 */
export function createRuntimeDepsFactory(
  controller: Controller,
  config: RuntimeConfig,
  logger: Logger,
): (context: LambdaContextLike) => Promise<RuntimeDeps> {
  const store = createCheckpointStore({
    client: createDynamoDBClient({
      region: config.region,
      ...(config.dynamoDBEndpoint === undefined ? {} : { endpoint: config.dynamoDBEndpoint }),
    }),
    tableName: config.tableName,
  });
  let kube: { client: KubeClient; createdAt: number } | undefined;
  return async () => {
    if (!kube || Date.now() - kube.createdAt > kubeClientMaxAgeMs) {
      kube?.client.close();
      const client = await createKubeClient(await resolveKubeconfigSource(config), {
        userAgent: `capi-serverless/${controller}`,
      });
      kube = { client, createdAt: Date.now() };
    }
    return { kube: kube.client, store, logger, config, now: Date.now, jitter: Math.random };
  };
}
