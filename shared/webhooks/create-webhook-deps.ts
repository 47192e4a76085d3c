// Dependencies of the webhooks Lambda: settings from the environment (once per cold start) and a management-cluster
// reader whose client is rebuilt before short-lived credentials (EKS tokens) expire and whose ClusterClass reads are
// kept for a few seconds per warm container, and the accepted path tokens
// (read from the token secret through the Parameters and Secrets extension, so a rotation needs no redeploy).
import * as z from 'zod';
import { errorMessage, ValidationError } from '#shared/errors/index.ts';
import { createKubeClient, type KubeClient } from '#shared/kube/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import {
  createManagementTokenProvider,
  getSecretString,
  resolveKubeconfigSource,
} from '#shared/runtime/create-runtime-deps.ts';
import { createClusterClassCache, withClusterClassCache } from '#shared/webhooks/current/cluster-class-cache.ts';
import { createWebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parsePathTokens, type WebhooksHandlerOptions } from '#shared/webhooks/create-webhooks-handler.ts';

/** Environment of the webhooks function besides the shared runtime settings. */
export const WebhooksEnv = z.object({
  /**
   * ARN of the Secrets Manager secret whose string is the accepted path token(s), whitespace-separated (deployed;
   * the stack creates it). Read through the extension on every request, so a rotation needs no redeploy.
   */
  WEBHOOK_TOKEN_SECRET_ARN: z.string().min(1).optional(),
  /** A fixed path token (local mode and tests; see WebhooksHandlerOptions.pathToken). */
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
  const tokenSecret = parsed.data.WEBHOOK_TOKEN_SECRET_ARN;
  const tokenProvider = createManagementTokenProvider(config, async () => credentialsFromEnv(env));
  const classCache = createClusterClassCache({ ttlMs: parsed.data.WEBHOOK_CLUSTERCLASS_CACHE_TTL_MS, now });
  let kube: { client: KubeClient; createdAt: number } | undefined;
  return {
    pathToken: parsed.data.WEBHOOK_PATH_TOKEN,
    ...(tokenSecret === undefined
      ? {}
      : {
          getPathTokens: async () =>
            parsePathTokens(
              await getSecretString(tokenSecret, {
                port: config.secretsExtensionPort,
                sessionToken: env['AWS_SESSION_TOKEN'],
              }).catch((err: unknown) => {
                throw new Error(`failed to read the webhook token secret: ${errorMessage(err)}`, { cause: err });
              }),
            ),
        }),
    async getDeps() {
      if (!kube || now() - kube.createdAt > kubeClientMaxAgeMs) {
        kube?.client.close();
        const client = await createKubeClient(await resolveKubeconfigSource(config, env), {
          userAgent: 'capi-serverless/webhooks',
          // NOTE: the API server waits at most the webhook's timeoutSeconds; a lookup must answer well before.
          timeoutMs: 5_000,
          ...(tokenProvider ? { tokenProvider } : {}),
        });
        kube = { client, createdAt: now() };
      }
      return { reader: withClusterClassCache(createWebhookReader(kube.client), classCache) };
    },
  };
}
