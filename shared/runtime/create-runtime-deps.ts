// Dependencies of the Lambda functions: a Powertools logger, the checkpoint store (module singletons) and a
// management-cluster client (kubeconfig from a file, from Secrets Manager through the Parameters and Secrets
// extension, or an EKS endpoint with a token computed from the function's role), rebuilt every 10 minutes.
import { Logger } from '@aws-lambda-powertools/logger';
import { createCheckpointStore, createDynamoDBClient, type Controller } from '#shared/checkpoint/index.ts';
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { createEksTokenProvider } from '#shared/kube/eks-token.ts';
import { createKubeClient, type KubeClient, type KubeconfigSource, type TokenProvider } from '#shared/kube/index.ts';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { RuntimeConfig } from '#shared/runtime/config.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';

/** The structured JSON logger of a controller's function (`service` = `capi-serverless-<controller>`). */
export function createLogger(controller: Controller, config: Pick<RuntimeConfig, 'logLevel'>): Logger {
  return new Logger({ serviceName: `capi-serverless-${controller}`, logLevel: config.logLevel });
}

export class KubeconfigSecretError extends CapiError {}

/** Give up on the extension after this long (it answers from its cache, or asks Secrets Manager once). */
const secretTimeoutMs = 10_000;

/**
 * Reads a secret's string from Secrets Manager through the AWS Parameters and Secrets Lambda Extension (a layer; no
 * SDK in the bundle): `GET localhost:<port>/secretsmanager/get?secretId=…` authenticated with the function's session
 * token. Throws a plain Error saying what failed (callers wrap it in their own error).
 *
 * @example
 * const text = await getSecretString('mgmt-kubeconfig', { port: 2773, sessionToken: process.env['AWS_SESSION_TOKEN'] });
 */
export async function getSecretString(
  secretId: string,
  options: { readonly port: number; readonly sessionToken: string | undefined },
): Promise<string> {
  const url = `http://localhost:${options.port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
  const res = await fetch(url, {
    headers: { 'X-Aws-Parameters-Secrets-Token': options.sessionToken ?? '' },
    signal: AbortSignal.timeout(secretTimeoutMs),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { SecretString?: string };
  if (!body.SecretString) throw new Error('the secret has no SecretString');
  return body.SecretString;
}

/**
 * Reads an SSM parameter's value (decrypted, for a SecureString) through the AWS Parameters and Secrets Lambda
 * Extension: `GET localhost:<port>/systemsmanager/parameters/get?name=…&withDecryption=true`. Throws a plain Error
 * saying what failed.
 *
 * @example
 * const text = await getParameterString('/capi/webhook-token', { port: 2773, sessionToken: process.env['AWS_SESSION_TOKEN'] });
 */
export async function getParameterString(
  name: string,
  options: { readonly port: number; readonly sessionToken: string | undefined },
): Promise<string> {
  const url = `http://localhost:${options.port}/systemsmanager/parameters/get?name=${encodeURIComponent(name)}&withDecryption=true`;
  const res = await fetch(url, {
    headers: { 'X-Aws-Parameters-Secrets-Token': options.sessionToken ?? '' },
    signal: AbortSignal.timeout(secretTimeoutMs),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { Parameter?: { Value?: string } };
  if (!body.Parameter?.Value) throw new Error('the parameter has no value');
  return body.Parameter.Value;
}

/**
 * Reads a kubeconfig from Secrets Manager through the extension (see {@link getSecretString}); the secret's string
 * is the kubeconfig YAML.
 *
 * @example
 * const kubeconfig = await getKubeconfigSecret('mgmt-kubeconfig', { port: 2773, sessionToken: process.env['AWS_SESSION_TOKEN'] });
 */
export async function getKubeconfigSecret(
  secretId: string,
  options: { readonly port: number; readonly sessionToken: string | undefined },
): Promise<string> {
  try {
    return await getSecretString(secretId, options);
  } catch (err) {
    throw new KubeconfigSecretError(
      `failed to read kubeconfig secret ${secretId}: ${errorMessage(err)}`,
      { name: secretId, reason: 'KubeconfigSecretUnavailable' },
      { cause: err },
    );
  }
}

/**
 * Where the management cluster's server and credentials come from: KUBECONFIG, the secret, the EKS endpoint, or
 * the default rules.
 */
export async function resolveKubeconfigSource(
  config: RuntimeConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<KubeconfigSource> {
  if (config.kubeconfigPath) return { kubeconfigPath: config.kubeconfigPath };
  if (config.kubeconfigSecretArn) {
    const kubeconfig = await getKubeconfigSecret(config.kubeconfigSecretArn, {
      port: config.secretsExtensionPort,
      sessionToken: env['AWS_SESSION_TOKEN'],
    });
    return { kubeconfig };
  }
  if (config.eks?.endpoint) {
    return {
      server: config.eks.endpoint,
      ...(config.eks.caData === undefined ? {} : { certificateAuthorityData: config.eks.caData }),
    };
  }
  return { fromDefault: true };
}

/**
 * With EKS_CLUSTER_NAME set, a token computed from the function's IAM credentials replaces the kubeconfig user's
 * (the function's role must be mapped to a Kubernetes identity, e.g. with an EKS access entry).
 */
export function createManagementTokenProvider(
  config: RuntimeConfig,
  getCredentials: () => Promise<AwsCredentialIdentity>,
): TokenProvider | undefined {
  if (!config.eks) return undefined;
  return createEksTokenProvider({ clusterName: config.eks.clusterName, region: config.region, getCredentials });
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
  // NOTE: the DynamoDB client's credential chain (the function's role on Lambda) signs the EKS token too.
  const tokenProvider = createManagementTokenProvider(config, () => store.client.config.credentials());
  let kube: { client: KubeClient; createdAt: number } | undefined;
  return async () => {
    if (!kube || Date.now() - kube.createdAt > kubeClientMaxAgeMs) {
      kube?.client.close();
      const client = await createKubeClient(await resolveKubeconfigSource(config), {
        userAgent: `capi-serverless/${controller}`,
        ...(tokenProvider ? { tokenProvider } : {}),
      });
      kube = { client, createdAt: Date.now() };
    }
    return { kube: kube.client, store, logger, config, now: Date.now, jitter: Math.random };
  };
}
