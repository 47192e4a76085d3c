// Whether the API server can reach the webhooks: with failurePolicy Fail an unreachable Function URL refuses every
// Cluster and ClusterClass write, and no invocation sees it. The forwarder (which runs where the API server's egress
// is) probes the URLs the webhook configurations name and writes the result on its heartbeat Lease; the topology
// tick reads it there. These are the facts both sides share, and the pure parts of each.

/** The webhook configurations the probe reads its URLs (and CA bundles) from, as the chart and the stack name them. */
export const webhookConfigurationNames = {
  validating: 'capi-serverless-validating-webhook-configuration',
  mutating: 'capi-serverless-mutating-webhook-configuration',
} as const;

/** The last path segment the webhooks function answers a probe on (`<base>/<token>/healthz`, GET, no reads). */
export const webhookHealthPath = 'healthz';

/** The heartbeat Lease annotation that holds the last probe's result (JSON, {@link WebhookProbeResult}). */
export const webhookProbeAnnotation = 'capi-serverless.io/webhook-probe';

/** How long a probe waits for an answer: the webhooks' `timeoutSeconds`, so a probe fails when a write would. */
export const webhookProbeTimeoutMs = 10_000;

/** One probed URL (its token hidden) and what happened; `error` is set when the probe failed. */
export type WebhookProbeTarget = { readonly url: string; readonly error?: string };

/** The result the forwarder writes on its Lease; `targets` is empty when no webhook configuration names a URL. */
export type WebhookProbeResult = { readonly checkedAt: string; readonly targets: readonly WebhookProbeTarget[] };

/** The fields of a webhook configuration the probe reads. */
export type WebhookConfigurationLike = {
  readonly webhooks?: readonly { readonly clientConfig?: { readonly url?: string; readonly caBundle?: string } }[];
};

/** A URL to probe and the CA bundle (base64 PEM) its configuration carries, if any. */
export type WebhookProbeRequest = { readonly url: string; readonly caBundle?: string };

/**
 * The health URLs to probe: each webhook's `clientConfig.url` with its last segment (`mutate`, `validate`) replaced by
 * `healthz`, one per distinct URL, in a stable order. Webhooks that call a Service (no `url`) are skipped.
 *
 * @example
 * computeWebhookProbeRequests([{ webhooks: [{ clientConfig: { url: 'https://x.on.aws/tok/validate' } }] }]);
 * // [{ url: 'https://x.on.aws/tok/healthz' }]
 */
export function computeWebhookProbeRequests(
  configurations: readonly (WebhookConfigurationLike | undefined)[],
): WebhookProbeRequest[] {
  const byUrl = new Map<string, WebhookProbeRequest>();
  for (const configuration of configurations)
    for (const webhook of configuration?.webhooks ?? []) {
      const url = webhook.clientConfig?.url;
      if (!url) continue;
      const health = url.replace(/\/*$/, '').replace(/\/[^/]*$/, `/${webhookHealthPath}`);
      if (!byUrl.has(health))
        byUrl.set(health, {
          url: health,
          ...(webhook.clientConfig?.caBundle ? { caBundle: webhook.clientConfig.caBundle } : {}),
        });
    }
  return [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
}

/**
 * The URL as logs and the Lease show it: every path segment but the last replaced by `…`, so the secret path token
 * never leaves the webhook configuration.
 *
 * @example
 * redactWebhookUrl('https://x.on.aws/secret-token-0123456789/healthz'); // 'https://x.on.aws/…/healthz'
 */
export function redactWebhookUrl(url: string): string {
  const match = /^([a-z]+:\/\/[^/]+)(\/.*)?$/i.exec(url);
  if (!match) return '…';
  const segments = (match[2] ?? '').split('/').filter(Boolean);
  if (segments.length <= 1) return url;
  return `${match[1]}/…/${segments[segments.length - 1]}`;
}

/**
 * Reads the probe result from the Lease annotation; `undefined` when there is none (a forwarder from before the
 * probe) or it does not parse.
 *
 * @example
 * parseWebhookProbeResult('{"checkedAt":"2026-11-28T05:00:00.000Z","targets":[]}')?.targets; // []
 */
export function parseWebhookProbeResult(text: string | undefined): WebhookProbeResult | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<WebhookProbeResult>;
    if (typeof value.checkedAt !== 'string' || !Array.isArray(value.targets)) return undefined;
    const targets = value.targets.filter(
      (t): t is WebhookProbeTarget =>
        typeof t === 'object' && t !== null && typeof (t as WebhookProbeTarget).url === 'string',
    );
    return { checkedAt: value.checkedAt, targets };
  } catch {
    return undefined;
  }
}
