// What the forwarder's HTTP endpoint answers, computed from a snapshot of its watchers and outbox: liveness
// (`/healthz`), readiness (`/readyz`) and the Prometheus text of `/metrics`. Pure: the clock comes in the snapshot.
import type { WebhookProbeResult } from '#shared/health/webhook-probe.ts';
import type { KindOutboxStats } from '#functions/forwarder/event-batcher.ts';
import type { KindWatcherHealth, KindWatcherStats } from '#functions/forwarder/watch-kind.ts';

export type ForwarderSnapshot = {
  readonly nowMs: number;
  readonly kinds: readonly {
    /** `apiVersion/kind`. */
    readonly target: string;
    readonly kind: string;
    readonly health: KindWatcherHealth;
    readonly stats: KindWatcherStats;
    readonly knownObjects: number;
  }[];
  readonly outbox: {
    readonly byKind: ReadonlyMap<string, KindOutboxStats>;
    readonly pending: number;
    readonly lastSentAtMs: number | undefined;
  };
  /** `process.memoryUsage()`: resident set, V8 heap used and reserved, buffers outside the heap. */
  readonly memory: {
    readonly rss: number;
    readonly heapUsed: number;
    readonly heapTotal: number;
    readonly external: number;
  };
  /** The last probe of the webhooks (probe-webhooks.ts); absent before the first. */
  readonly webhookProbe?: WebhookProbeResult | undefined;
};

export type ForwarderVerdict = { readonly ok: boolean; readonly reasons: readonly string[] };

/**
 * Ready once every served kind finished its first list (kinds the cluster does not serve are skipped).
 *
 * @example
 * computeReadiness(snapshot); // { ok: false, reasons: ['v1/Secret: initial list not done'] }
 */
export function computeReadiness(snapshot: ForwarderSnapshot): ForwarderVerdict {
  const reasons = snapshot.kinds
    .filter((k) => k.health.state === 'listing' || k.health.state === 'stopped')
    .map((k) => `${k.target}: ${k.health.state === 'listing' ? 'initial list not done' : 'stopped'}`);
  return { ok: reasons.length === 0, reasons };
}

/**
 * Alive unless a kind's LISTs and watches have all failed for longer than `wedgedAfterMs`, or its loop ended: a
 * restart (new connections, new credentials) is then the likeliest fix. A quiet watch is not wedged.
 *
 * @example
 * computeLiveness(snapshot, 300_000); // { ok: true, reasons: [] }
 */
export function computeLiveness(snapshot: ForwarderSnapshot, wedgedAfterMs: number): ForwarderVerdict {
  const reasons = snapshot.kinds.flatMap((k) => {
    if (k.health.state === 'stopped') return [`${k.target}: watch loop ended`];
    const since = k.health.failingSinceMs;
    if (since === undefined || snapshot.nowMs - since <= wedgedAfterMs) return [];
    return [`${k.target}: every LIST and watch failed for ${Math.round((snapshot.nowMs - since) / 1000)} s`];
  });
  return { ok: reasons.length === 0, reasons };
}

const metricPrefix = 'capi_serverless_forwarder_';

type Family = { name: string; help: string; type: 'counter' | 'gauge'; samples: [labels: string, value: number][] };

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/**
 * The Prometheus text exposition (format 0.0.4) of the snapshot, families and samples in a stable order.
 *
 * @example
 * computeMetricsText(snapshot);
 * // '# HELP capi_serverless_forwarder_events_seen_total ...\ncapi_serverless_forwarder_events_seen_total{kind="Cluster"} 3\n...'
 */
export function computeMetricsText(snapshot: ForwarderSnapshot): string {
  const kinds = [...snapshot.kinds].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  const outboxKinds = [...snapshot.outbox.byKind.keys()].sort();
  const perKind = (f: (k: (typeof kinds)[number]) => number) =>
    kinds.map((k): [string, number] => [`kind="${escapeLabel(k.kind)}",target="${escapeLabel(k.target)}"`, f(k)]);
  const perOutboxKind = (f: (s: KindOutboxStats) => number) =>
    outboxKinds.map((kind): [string, number] => [`kind="${escapeLabel(kind)}"`, f(snapshot.outbox.byKind.get(kind)!)]);
  const families: Family[] = [
    {
      name: 'events_seen_total',
      help: 'Changes the watches and relists found (watch events and relist differences), before filtering and coalescing.',
      type: 'counter',
      samples: perKind((k) => k.stats.events + k.stats.synced),
    },
    {
      name: 'events_filtered_total',
      help: 'Watch events of kinds watched in full that changed nothing the passes read (not sent).',
      type: 'counter',
      samples: perKind((k) => k.stats.filtered),
    },
    {
      name: 'events_coalesced_total',
      help: 'Changes merged into a pending entry for the same object (or the same Cluster) within the window.',
      type: 'counter',
      samples: perOutboxKind((s) => s.coalesced),
    },
    {
      name: 'events_forwarded_total',
      help: 'Entries PutEvents accepted.',
      type: 'counter',
      samples: perOutboxKind((s) => s.sent),
    },
    {
      name: 'events_failed_total',
      help: 'Entry sends that failed (retried until the attempts run out).',
      type: 'counter',
      samples: perOutboxKind((s) => s.failed),
    },
    {
      name: 'events_dropped_total',
      help: 'Entries given up after every attempt failed (the next sweep reconciles their objects).',
      type: 'counter',
      samples: perOutboxKind((s) => s.dropped),
    },
    {
      name: 'watch_restarts_total',
      help: 'Watches opened again after the first (server timeouts, disconnects, 410 Gone).',
      type: 'counter',
      samples: perKind((k) => Math.max(0, k.stats.watches - 1)),
    },
    {
      name: 'relists_total',
      help: 'Complete LISTs (the first one and every relist after 410 Gone).',
      type: 'counter',
      samples: perKind((k) => k.stats.lists),
    },
    {
      name: 'watched_objects',
      help: 'Objects the forwarder remembers per kind.',
      type: 'gauge',
      samples: perKind((k) => k.knownObjects),
    },
    {
      name: 'pending_entries',
      help: 'Entries waiting for their coalescing window or a retry.',
      type: 'gauge',
      samples: [['', snapshot.outbox.pending]],
    },
    {
      name: 'last_put_events_success_timestamp_seconds',
      help: 'When PutEvents last accepted an entry (Unix time; 0: not yet).',
      type: 'gauge',
      samples: [['', (snapshot.outbox.lastSentAtMs ?? 0) / 1000]],
    },
    {
      name: 'memory_bytes',
      help: 'Process memory: rss (resident set), heap_used and heap_total (V8), external (buffers outside the heap).',
      type: 'gauge',
      samples: [
        ['area="rss"', snapshot.memory.rss],
        ['area="heap_used"', snapshot.memory.heapUsed],
        ['area="heap_total"', snapshot.memory.heapTotal],
        ['area="external"', snapshot.memory.external],
      ],
    },
  ];
  const probe = snapshot.webhookProbe;
  if (probe !== undefined)
    families.push(
      {
        name: 'webhook_probe_success',
        help: 'Whether the last GET <webhook URL>/healthz from the cluster got 200 (1) or failed (0); the token is hidden.',
        type: 'gauge',
        samples: probe.targets.map((t): [string, number] => [
          `url="${escapeLabel(t.url)}"`,
          t.error === undefined ? 1 : 0,
        ]),
      },
      {
        name: 'webhook_probe_timestamp_seconds',
        help: 'When the webhooks were last probed (Unix time).',
        type: 'gauge',
        samples: [['', Date.parse(probe.checkedAt) / 1000]],
      },
    );
  const lines: string[] = [];
  for (const f of families) {
    const name = metricPrefix + f.name;
    lines.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
    for (const [labels, value] of f.samples) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
  }
  return `${lines.join('\n')}\n`;
}
