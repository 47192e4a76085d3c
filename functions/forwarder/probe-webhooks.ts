// The forwarder's probe of the webhooks: it reads the URLs (and CA bundles) the API server calls from capi-serverless's
// webhook configurations and sends each one `GET <base>/<token>/healthz` from inside the cluster, where the API
// server's egress is. The result goes on the heartbeat Lease (renew-heartbeat.ts), where the topology tick turns a
// failure into `Unhealthy` (shared/health/).
import { request } from 'node:https';
import { errorMessage } from '#shared/errors/index.ts';
import {
  computeWebhookProbeRequests,
  redactWebhookUrl,
  webhookConfigurationNames,
  webhookProbeTimeoutMs,
  type WebhookConfigurationLike,
  type WebhookProbeRequest,
  type WebhookProbeResult,
  type WebhookProbeTarget,
} from '#shared/health/webhook-probe.ts';
import type { KubeClient } from '#shared/kube/client.ts';
import { findObject } from '#shared/kube/objects.ts';

export type WebhookProbeOptions = {
  readonly kube: KubeClient;
  readonly now?: () => Date;
  readonly timeoutMs?: number;
};

/**
 * Sends one GET and resolves with the error (undefined when the webhooks function answered 200); never rejects.
 *
 * @example
 * await probeWebhookUrl({ url: 'https://x.lambda-url.eu-west-1.on.aws/<token>/healthz' }, 10_000); // undefined
 */
export function probeWebhookUrl(target: WebhookProbeRequest, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      target.url,
      {
        method: 'GET',
        timeout: timeoutMs,
        // NOTE: the configuration's CA bundle when it has one (as the API server verifies), the system roots otherwise.
        ...(target.caBundle ? { ca: Buffer.from(target.caBundle, 'base64').toString('utf8') } : {}),
        headers: { 'user-agent': 'capi-serverless/forwarder webhook-probe' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode === 200) return resolve(undefined);
          const body = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
          resolve(`HTTP ${res.statusCode}${body ? `: ${body}` : ''}`);
        });
        res.on('error', (err) => resolve(errorMessage(err)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', (err) => resolve(errorMessage(err)));
    req.end();
  });
}

/**
 * Reads the webhook configurations and probes every URL they name (none when webhooks are not installed). A
 * configuration that cannot be read is a failed target too: the probe cannot tell whether the webhooks answer.
 *
 * @example
 * const result = await probeWebhooks({ kube }); // { checkedAt: '2026-11-28T05:00:00.000Z', targets: [{ url: 'https://x.on.aws/…/healthz' }] }
 */
export async function probeWebhooks(options: WebhookProbeOptions): Promise<WebhookProbeResult> {
  const now = options.now ?? (() => new Date());
  const checkedAt = now().toISOString();
  let requests: WebhookProbeRequest[];
  try {
    const configurations = await Promise.all(
      [
        ['ValidatingWebhookConfiguration', webhookConfigurationNames.validating],
        ['MutatingWebhookConfiguration', webhookConfigurationNames.mutating],
      ].map(
        async ([kind, name]) =>
          (await findObject(options.kube, {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: kind!,
            name: name!,
          })) as WebhookConfigurationLike | undefined,
      ),
    );
    requests = computeWebhookProbeRequests(configurations);
  } catch (err) {
    return {
      checkedAt,
      targets: [{ url: 'webhook configurations', error: `cannot read them: ${errorMessage(err)}` }],
    };
  }
  const targets = await Promise.all(
    requests.map(async (r): Promise<WebhookProbeTarget> => {
      const error = await probeWebhookUrl(r, options.timeoutMs ?? webhookProbeTimeoutMs);
      return { url: redactWebhookUrl(r.url), ...(error === undefined ? {} : { error }) };
    }),
  );
  return { checkedAt, targets };
}
