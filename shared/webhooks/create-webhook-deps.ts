// Dependencies of the webhooks Lambda: settings from the environment (once per cold start) and a management-cluster
// reader whose client is rebuilt before short-lived credentials (EKS tokens) expire and whose ClusterClass reads are
// kept for a few seconds per warm container, and the accepted path tokens, read at run time (cached per warm container
// for a minute, so a rotation needs no redeploy and no token is in the environment) from a Kubernetes Secret through
// the same API server (the stack's default), or from a Secrets Manager secret or SSM SecureString parameter through
// the Parameters and Secrets extension.
import * as z from 'zod';
import { errorMessage, ValidationError } from '#shared/errors/index.ts';
import { createKubeClient, type KubeClient } from '#shared/kube/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { createMetrics } from '#shared/runtime/middlewares/record-metrics.ts';
import {
  createManagementTokenProvider,
  getParameterString,
  getSecretString,
  resolveKubeconfigSource,
} from '#shared/runtime/create-runtime-deps.ts';
import { createClusterClassCache, withClusterClassCache } from '#shared/webhooks/current/cluster-class-cache.ts';
import { getPathTokenSecret, parsePathTokenSecretRef } from '#shared/webhooks/current/get-path-token-secret.ts';
import { createWebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parsePathTokens, type WebhooksHandlerOptions } from '#shared/webhooks/create-webhooks-handler.ts';

/** Environment of the webhooks function besides the shared runtime settings. */
export const WebhooksEnv = z.object({
  /**
   * `<namespace>/<name>` of a Kubernetes Secret whose `token` key holds the accepted path token(s) (the stack's
   * default): read through the API server the function already reaches, with the function's own identity.
   */
  WEBHOOK_TOKEN_KUBE_SECRET: z.string().min(1).optional(),
  /**
   * ARN of the Secrets Manager secret whose string is the accepted path token(s), whitespace-separated (deployed;
   * the stack creates it). Read through the extension on every request, so a rotation needs no redeploy.
   */
  WEBHOOK_TOKEN_SECRET_ARN: z.string().min(1).optional(),
  /** Or the name of an SSM SecureString parameter holding them (no Secrets Manager secret to pay for). */
  WEBHOOK_TOKEN_PARAMETER_NAME: z.string().min(1).optional(),
  /** How long a warm container keeps the tokens it read before asking the extension again. */
  WEBHOOK_TOKEN_CACHE_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** A fixed path token (local mode and tests only: the stack never puts a token in the environment). */
  WEBHOOK_PATH_TOKEN: z.string().min(16).optional(),
  /**
   * How long (ms) a warm container reuses a ClusterClass it read, as upstream's webhooks read classes from an informer
   * cache; 0 reads the class on every admission. A Cluster write within this time of a class change may be checked
   * against the class before the change (the topology pass checks it again against the current class).
   */
  WEBHOOK_CLUSTERCLASS_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
});

/**
 * The function's own IAM credentials, which Lambda puts in the environment (the webhooks bundle carries no AWS SDK
 * client to resolve them otherwise); used to sign EKS tokens.
 */
function credentialsFromEnv(env: Readonly<Record<string, string | undefined>>) {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  if (!accessKeyId || !secretAccessKey)
    throw new ValidationError('EKS_CLUSTER_NAME is set but AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not', {
      fieldPath: 'AWS_ACCESS_KEY_ID',
      reason: 'InvalidEnvironment',
    });
  const sessionToken = env['AWS_SESSION_TOKEN'];
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Rebuild the client this often: EKS tokens from an exec plugin live 15 minutes. */
const kubeClientMaxAgeMs = 10 * 60_000;

/**
 * Handler options for the deployed function, read from the environment; throws at cold start naming a bad variable.
 *
 * @example
 * export const handler = createWebhooksHandler(computeWebhooksHandlerOptions(process.env));
 */
export function computeWebhooksHandlerOptions(
  env: Readonly<Record<string, string | undefined>>,
  now: () => number = Date.now,
): WebhooksHandlerOptions {
  const config = computeRuntimeConfig(env);
  const parsed = WebhooksEnv.safeParse(env);
  if (!parsed.success)
    throw new ValidationError(
      `invalid environment: ${String(parsed.error.issues[0]?.path[0] ?? '')}: ${parsed.error.issues[0]?.message ?? ''}`,
      { fieldPath: String(parsed.error.issues[0]?.path[0] ?? ''), reason: 'InvalidEnvironment' },
    );
  const {
    WEBHOOK_TOKEN_KUBE_SECRET: tokenKubeSecret,
    WEBHOOK_TOKEN_SECRET_ARN: tokenSecret,
    WEBHOOK_TOKEN_PARAMETER_NAME: tokenParameter,
  } = parsed.data;
  const stores = [
    ['WEBHOOK_TOKEN_KUBE_SECRET', tokenKubeSecret],
    ['WEBHOOK_TOKEN_SECRET_ARN', tokenSecret],
    ['WEBHOOK_TOKEN_PARAMETER_NAME', tokenParameter],
  ].filter(([, v]) => v !== undefined);
  if (stores.length > 1)
    throw new ValidationError(
      `invalid environment: set only one of WEBHOOK_TOKEN_KUBE_SECRET, WEBHOOK_TOKEN_SECRET_ARN, WEBHOOK_TOKEN_PARAMETER_NAME (got ${stores.map(([k]) => k).join(' and ')})`,
      { fieldPath: String(stores[1]?.[0]), reason: 'InvalidEnvironment' },
    );
  const kubeSecretRef =
    tokenKubeSecret === undefined ? undefined : parsePathTokenSecretRef(tokenKubeSecret, 'WEBHOOK_TOKEN_KUBE_SECRET');
  const tokenProvider = createManagementTokenProvider(config, async () => credentialsFromEnv(env));
  let kube: { client: Promise<KubeClient>; createdAt: number } | undefined;
  const getKube = async (): Promise<KubeClient> => {
    if (!kube || now() - kube.createdAt > kubeClientMaxAgeMs) {
      const previous = kube;
      const client = (async () =>
        createKubeClient(await resolveKubeconfigSource(config, env), {
          userAgent: 'capi-serverless/webhooks',
          // NOTE: the API server waits at most the webhook's timeoutSeconds; a lookup must answer well before.
          timeoutMs: 5_000,
          ...(tokenProvider ? { tokenProvider } : {}),
        }))();
      kube = { client, createdAt: now() };
      client.catch(() => {
        if (kube?.client === client) kube = undefined;
      });
      if (previous)
        void previous.client.then(
          (c) => c.close(),
          () => undefined,
        );
    }
    return kube.client;
  };
  const extension = { port: config.secretsExtensionPort, sessionToken: env['AWS_SESSION_TOKEN'] };
  const readTokens =
    kubeSecretRef !== undefined
      ? async () => getPathTokenSecret(await getKube(), kubeSecretRef)
      : tokenSecret !== undefined
        ? () => getSecretString(tokenSecret, extension)
        : tokenParameter !== undefined
          ? () => getParameterString(tokenParameter, extension)
          : undefined;
  const classCache = createClusterClassCache({ ttlMs: parsed.data.WEBHOOK_CLUSTERCLASS_CACHE_TTL_MS, now });
  return {
    pathToken: parsed.data.WEBHOOK_PATH_TOKEN,
    metrics: createMetrics(),
    ...(readTokens === undefined
      ? {}
      : { getPathTokens: createCachedPathTokens(readTokens, parsed.data.WEBHOOK_TOKEN_CACHE_MS, now) }),
    async getDeps() {
      return { reader: withClusterClassCache(createWebhookReader(await getKube()), classCache) };
    },
  };
}

/**
 * The accepted tokens, read through `read` at most once per `maxAgeMs` per warm container (concurrent callers share
 * one read; a failed read is not cached).
 *
 * @example
 * const getPathTokens = createCachedPathTokens(() => getSecretString(arn, extension), 60_000, Date.now);
 */
export function createCachedPathTokens(
  read: () => Promise<string>,
  maxAgeMs: number,
  now: () => number,
): () => Promise<string[]> {
  let cached: { tokens: Promise<string[]>; readAt: number } | undefined;
  return async () => {
    if (!cached || now() - cached.readAt >= maxAgeMs) {
      const tokens = read().then(parsePathTokens, (err: unknown) => {
        throw new Error(`failed to read the webhook token: ${errorMessage(err)}`, { cause: err });
      });
      const entry = { tokens, readAt: now() };
      cached = entry;
      tokens.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.tokens;
  };
}
