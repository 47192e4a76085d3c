// The Validating/MutatingWebhookConfiguration manifests (the chart's files/webhooks/, infra/chart/capi-serverless),
// rendered for one webhook URL as the chart's templates/webhooks.yaml renders them: what the integration tests
// register with a real API server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '#shared/kube/index.ts';
import { chartFile } from '../chart/chart-files.ts';

const manifestsDir = chartFile('webhooks');

export const webhookManifestFiles = [
  'validating-webhook-configuration.yaml',
  'mutating-webhook-configuration.yaml',
] as const;

export type WebhookManifestOptions = {
  /** The Function URL without a trailing slash, with the path token when one is configured. */
  readonly baseUrl: string;
  /** Base64 PEM of the CA that signed the server (only for servers without a public certificate). */
  readonly caBundle?: string;
};

/**
 * Both configurations with `${WEBHOOK_BASE_URL}` replaced (and `caBundle` set when given).
 *
 * @example
 * const objects = loadWebhookConfigurations({ baseUrl: 'https://abc.lambda-url.eu-west-1.on.aws/s3cr3t-t0ken-1234' });
 */
export function loadWebhookConfigurations(options: WebhookManifestOptions): KubeObject[] {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  if (!/^https:\/\/[^?#@]+$/.test(baseUrl))
    throw new Error(`webhook base URL must be https without query, fragment or credentials: ${baseUrl}`);
  return webhookManifestFiles.map((file) => {
    const text = readFileSync(join(manifestsDir, file), 'utf8').replaceAll('${WEBHOOK_BASE_URL}', baseUrl);
    const object = parse(text) as KubeObject & { webhooks: { clientConfig: Record<string, unknown> }[] };
    if (options.caBundle) for (const webhook of object.webhooks) webhook.clientConfig['caBundle'] = options.caBundle;
    return object;
  });
}
