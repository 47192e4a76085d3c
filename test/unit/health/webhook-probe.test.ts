// The pure parts of the webhook probe: which URLs are probed, how they are shown, and which probe results the tick's
// health check counts toward `Unhealthy`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeWebhookProbeRequests,
  computeWebhookReachability,
  parseWebhookProbeResult,
  redactWebhookUrl,
  webhookProbeAnnotation,
  type HeartbeatLease,
  type WebhookProbeResult,
} from '#shared/health/index.ts';

const renewed = Date.parse('2026-11-28T05:00:00Z');

describe('computeWebhookProbeRequests', () => {
  const cases: [
    string,
    Parameters<typeof computeWebhookProbeRequests>[0],
    ReturnType<typeof computeWebhookProbeRequests>,
  ][] = [
    ['probes nothing when no configuration is installed', [undefined, undefined], []],
    [
      'probes one health URL for the mutate and validate paths of one base, with its CA bundle',
      [
        { webhooks: [{ clientConfig: { url: 'https://x.on.aws/tok/validate', caBundle: 'Q0E=' } }] },
        { webhooks: [{ clientConfig: { url: 'https://x.on.aws/tok/mutate', caBundle: 'Q0E=' } }] },
      ],
      [{ url: 'https://x.on.aws/tok/healthz', caBundle: 'Q0E=' }],
    ],
    [
      'probes each base once, in order, and skips webhooks that call a Service',
      [
        {
          webhooks: [
            { clientConfig: { url: 'https://b.on.aws/t2/validate/' } },
            { clientConfig: {} },
            { clientConfig: { url: 'https://a.on.aws/t1/validate' } },
          ],
        },
      ],
      [{ url: 'https://a.on.aws/t1/healthz' }, { url: 'https://b.on.aws/t2/healthz' }],
    ],
  ];
  for (const [name, input, expected] of cases)
    test(name, () => assert.deepEqual(computeWebhookProbeRequests(Object.freeze(input)), expected));
});

describe('redactWebhookUrl', () => {
  const cases: [string, string, string][] = [
    ['hides the path token', 'https://x.on.aws/secret-token-0123456789/healthz', 'https://x.on.aws/…/healthz'],
    ['keeps a URL with one segment', 'https://x.on.aws/healthz', 'https://x.on.aws/healthz'],
    ['shows nothing of a string that is not a URL', 'secret-token/healthz', '…'],
  ];
  for (const [name, input, expected] of cases) test(name, () => assert.equal(redactWebhookUrl(input), expected));
});

describe('parseWebhookProbeResult', () => {
  const cases: [string, string | undefined, WebhookProbeResult | undefined][] = [
    ['reads nothing from a missing annotation', undefined, undefined],
    ['reads nothing from text that is not JSON', '{', undefined],
    ['reads nothing from JSON of another shape', '{"targets":"x"}', undefined],
    [
      'reads the targets, dropping malformed ones',
      '{"checkedAt":"2026-11-28T05:00:00.000Z","targets":[{"url":"u","error":"e"},7]}',
      { checkedAt: '2026-11-28T05:00:00.000Z', targets: [{ url: 'u', error: 'e' }] },
    ],
  ];
  for (const [name, input, expected] of cases)
    test(name, () => assert.deepEqual(parseWebhookProbeResult(input), expected));
});

describe('computeWebhookReachability', () => {
  const lease = (probe: string | undefined, renewTime = '2026-11-28T05:00:00.000000Z'): HeartbeatLease =>
    Object.freeze({
      metadata: Object.freeze(probe === undefined ? {} : { annotations: { [webhookProbeAnnotation]: probe } }),
      spec: Object.freeze({ holderIdentity: 'fw-0', renewTime, leaseDurationSeconds: 180 }),
    });
  const probe = (targets: WebhookProbeResult['targets']) =>
    JSON.stringify({ checkedAt: '2026-11-28T05:00:00.000Z', targets });
  const cases: [string, HeartbeatLease | undefined, RegExp[]][] = [
    ['finds nothing without a Lease (the heartbeat check reports it)', undefined, []],
    ['finds nothing on a Lease from a forwarder without the probe', lease(undefined), []],
    ['finds nothing when every URL answered', lease(probe([{ url: 'https://x/…/healthz' }])), []],
    [
      'reports each URL that failed, with its error and who probed it',
      lease(
        probe([
          { url: 'https://a/…/healthz', error: 'getaddrinfo ENOTFOUND a' },
          { url: 'https://b/…/healthz' },
          { url: 'https://c/…/healthz', error: 'HTTP 403: {"message":"forbidden"}' },
        ]),
      ),
      [
        /^webhooks unreachable from the cluster: https:\/\/a\/…\/healthz: getaddrinfo ENOTFOUND a \(probed at .* by fw-0;/,
        /https:\/\/c\/…\/healthz: HTTP 403/,
      ],
    ],
    [
      'ignores the probe on a stale heartbeat (that is already a finding)',
      lease(probe([{ url: 'https://a/…/healthz', error: 'x' }]), '2026-11-28T04:00:00.000000Z'),
      [],
    ],
  ];
  for (const [name, input, expected] of cases)
    test(name, () => {
      const findings = computeWebhookReachability(input, renewed + 60_000);
      assert.equal(findings.length, expected.length);
      expected.forEach((re, i) => {
        assert.equal(findings[i]?.check, 'webhookReachability');
        assert.match(findings[i]?.message ?? '', re);
      });
    });
});
