// Child process of the benchmark: the event forwarder on its own (so its RSS is its own), watching the management
// cluster named by KUBECONFIG with the default targets plus every template kind, feeding a counting sink.
// Talks to the parent over IPC: reports `ready` (objects synced, RSS), answers `count` for one object, then exits.
import { createKubeClient } from '#shared/kube/client.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';

type Request =
  | { readonly type: 'count'; readonly kind: string; readonly namespace: string; readonly name: string }
  | { readonly type: 'stop' };

const baselineRssBytes = process.memoryUsage().rss;
const send = (message: unknown) => process.send?.(message);
const kubeconfigPath = process.env['KUBECONFIG'] ?? '';
const source = { kubeconfigPath } as const;
const kube = await createKubeClient(source, { userAgent: 'capi-serverless/forwarder-bench' });
const targets = [...defaultTargets(), ...(await discoverProviderTargets(kube))];
const perObject = new Map<string, number>();
let events = 0;
let lastEventAt = Date.now();
let peakRss = 0;
const keyOf = (c: { kind: string; namespace: string; name: string }) => `${c.kind} ${c.namespace}/${c.name}`;
const forwarder = startForwarder({
  kube,
  source,
  targets,
  coalesceMs: 500,
  sink: (changes: readonly ObjectChange[]) => {
    for (const c of changes) perObject.set(keyOf(c), (perObject.get(keyOf(c)) ?? 0) + 1);
    events += changes.length;
    lastEventAt = Date.now();
    return Promise.resolve([]);
  },
});
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

// Settled: every kind listed and watching, and no event for 3 s.
for (;;) {
  await new Promise((r) => setTimeout(r, 500));
  const watching = [...forwarder.watchers.values()].every((w) => w.stats.watches > 0);
  if (watching && Date.now() - lastEventAt > 3_000) break;
}
const stats = [...forwarder.watchers.values()].map((w) => w.stats);
send({
  type: 'ready',
  kinds: targets.length,
  objects: perObject.size,
  events,
  lists: stats.reduce((a, s) => a + s.lists, 0),
  watches: stats.reduce((a, s) => a + s.watches, 0),
  baselineRssBytes,
  rssBytes: process.memoryUsage().rss,
  peakRssBytes: peakRss,
  heapUsedBytes: process.memoryUsage().heapUsed,
});

process.on('message', (raw) => {
  const request = raw as Request;
  if (request.type === 'count') {
    const key = keyOf(request);
    const before = perObject.get(key) ?? 0;
    send({ type: 'marked' });
    setTimeout(
      () => send({ type: 'counted', events: (perObject.get(key) ?? 0) - before, peakRssBytes: peakRss }),
      3_000,
    );
    return;
  }
  clearInterval(sampler);
  void forwarder.stop().then(() => {
    kube.close();
    process.exit(0);
  });
});
