import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeLiveness,
  computeMetricsText,
  computeReadiness,
  type ForwarderSnapshot,
} from '#functions/forwarder/compute-forwarder-status.ts';
import type { KindWatcherHealth } from '#functions/forwarder/watch-kind.ts';

const stats = {
  lists: 1,
  pages: 2,
  listRestarts: 0,
  watches: 3,
  gone: 0,
  events: 5,
  synced: 7,
  filtered: 1,
  settled: 0,
};
const kind = (target: string, health: KindWatcherHealth) =>
  Object.freeze({ target, kind: target.slice(target.lastIndexOf('/') + 1), health, stats, knownObjects: 4 });
const snapshot = (kinds: ForwarderSnapshot['kinds'], nowMs = 1_000_000): ForwarderSnapshot =>
  Object.freeze({
    nowMs,
    kinds,
    outbox: {
      byKind: new Map([['ConfigMap', { added: 12, coalesced: 3, sent: 9, failed: 2, dropped: 0 }]]),
      pending: 1,
      lastSentAtMs: 1_700_000_000_000,
    },
    memory: { rss: 40 * 2 ** 20, heapUsed: 5e6, heapTotal: 8e6, external: 1e6 },
  });
const watching = { state: 'watching', failingSinceMs: undefined } as const;

describe('computeReadiness', () => {
  test('is ready when every served kind listed once (an unserved kind is skipped)', () => {
    const v = computeReadiness(
      snapshot([kind('v1/ConfigMap', watching), kind('x/v1/Gone', { state: 'unserved', failingSinceMs: undefined })]),
    );
    assert.deepEqual(v, { ok: true, reasons: [] });
  });
  test('is not ready while a kind is still on its first list', () => {
    const v = computeReadiness(snapshot([kind('v1/Secret', { state: 'listing', failingSinceMs: undefined })]));
    assert.deepEqual(v, { ok: false, reasons: ['v1/Secret: initial list not done'] });
  });
});

describe('computeLiveness', () => {
  test('a quiet watch is alive', () => {
    assert.equal(computeLiveness(snapshot([kind('v1/ConfigMap', watching)]), 300_000).ok, true);
  });
  test('failing for less than the limit is still alive', () => {
    const v = computeLiveness(
      snapshot([kind('v1/ConfigMap', { state: 'watching', failingSinceMs: 800_000 })]),
      300_000,
    );
    assert.equal(v.ok, true);
  });
  test('failing for longer than the limit is wedged, and says which kind and for how long', () => {
    const v = computeLiveness(snapshot([kind('v1/ConfigMap', { state: 'listing', failingSinceMs: 600_000 })]), 300_000);
    assert.deepEqual(v, { ok: false, reasons: ['v1/ConfigMap: every LIST and watch failed for 400 s'] });
  });
  test('a loop that ended is not alive', () => {
    const v = computeLiveness(snapshot([kind('v1/Secret', { state: 'stopped', failingSinceMs: undefined })]), 300_000);
    assert.deepEqual(v.reasons, ['v1/Secret: watch loop ended']);
  });
});

describe('computeMetricsText', () => {
  const text = computeMetricsText(snapshot([kind('v1/Secret', watching), kind('v1/ConfigMap', watching)]));
  const cases: [string, string][] = [
    [
      'counts what the watches and relists saw per kind',
      'capi_serverless_forwarder_events_seen_total{kind="ConfigMap",target="v1/ConfigMap"} 12',
    ],
    ['counts forwarded entries per kind', 'capi_serverless_forwarder_events_forwarded_total{kind="ConfigMap"} 9'],
    ['counts coalesced changes per kind', 'capi_serverless_forwarder_events_coalesced_total{kind="ConfigMap"} 3'],
    ['counts failed sends per kind', 'capi_serverless_forwarder_events_failed_total{kind="ConfigMap"} 2'],
    [
      'counts watch restarts after the first watch',
      'capi_serverless_forwarder_watch_restarts_total{kind="Secret",target="v1/Secret"} 2',
    ],
    [
      'gives the last successful PutEvents in seconds',
      'capi_serverless_forwarder_last_put_events_success_timestamp_seconds 1700000000',
    ],
    ['gives the resident memory', 'capi_serverless_forwarder_memory_bytes{area="rss"} 41943040'],
    [
      'gives the watched objects per kind',
      'capi_serverless_forwarder_watched_objects{kind="Secret",target="v1/Secret"} 4',
    ],
  ];
  for (const [name, line] of cases) test(name, () => assert.ok(text.split('\n').includes(line), `${line} in\n${text}`));

  test('declares each family once with HELP and TYPE, kinds sorted', () => {
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    assert.equal(new Set(types).size, types.length);
    const seen = text.split('\n').filter((l) => l.startsWith('capi_serverless_forwarder_events_seen_total{'));
    assert.deepEqual(
      seen.map((l) => /kind="(\w+)"/.exec(l)?.[1]),
      ['ConfigMap', 'Secret'],
    );
    assert.ok(text.endsWith('\n'));
  });
});

describe('computeMetricsText: the webhook probe', () => {
  const probed = computeMetricsText(
    Object.freeze({
      ...snapshot([kind('v1/Secret', watching)]),
      webhookProbe: {
        checkedAt: '2026-11-28T05:00:00.000Z',
        targets: [{ url: 'https://a/…/healthz' }, { url: 'https://b/…/healthz', error: 'connect ECONNREFUSED' }],
      },
    }),
  ).split('\n');
  const cases: [string, string][] = [
    ['gives 1 for a URL that answered', 'capi_serverless_forwarder_webhook_probe_success{url="https://a/…/healthz"} 1'],
    ['gives 0 for a URL that failed', 'capi_serverless_forwarder_webhook_probe_success{url="https://b/…/healthz"} 0'],
    ['gives when it probed', 'capi_serverless_forwarder_webhook_probe_timestamp_seconds 1795842000'],
  ];
  for (const [name, line] of cases) test(name, () => assert.ok(probed.includes(line), line));

  test('gives no probe family before the first probe', () =>
    assert.doesNotMatch(computeMetricsText(snapshot([kind('v1/Secret', watching)])), /webhook_probe/));
});
