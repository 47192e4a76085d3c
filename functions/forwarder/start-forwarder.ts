// The event forwarder: watches the kinds the controllers care about in the management cluster and puts compact
// change events on the bus through a coalescing, batching, retrying outbox.
import type { KubeClient, KubeconfigSource } from '#shared/kube/client.ts';
import { createEventBatcher, type EventBatcher, type EventSink } from '#functions/forwarder/event-batcher.ts';
import { startKindWatcher, type KindWatcher, type WatchTarget } from '#functions/forwarder/watch-kind.ts';
import type { ForwarderSnapshot } from '#functions/forwarder/compute-forwarder-status.ts';
import { isTopologySettled } from '#functions/forwarder/compute-settled-topology.ts';

export type ForwarderOptions = {
  /** Client for LISTs and discovery. */
  readonly kube: KubeClient;
  /** Credentials for the watch streams (the same cluster as `kube`). */
  readonly source: KubeconfigSource;
  readonly targets: readonly WatchTarget[];
  readonly sink: EventSink;
  readonly coalesceMs?: number;
  readonly maxBatch?: number;
  readonly retryBaseMs?: number;
  /** Objects per LIST page when a kind is (re)listed (default 100). */
  readonly pageSize?: number;
  /** Per kind (`apiVersion/kind`): resume the watch from this version instead of listing first. */
  readonly resumeFrom?: Readonly<Record<string, string>>;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
};

export type Forwarder = {
  readonly outbox: EventBatcher;
  readonly watchers: ReadonlyMap<string, KindWatcher>;
  /** The watchers' and the outbox's state now, for the HTTP endpoint. */
  snapshot(): ForwarderSnapshot;
  /** Stops the watches, sends what is pending, and resolves when everything ended. */
  stop(): Promise<void>;
};

/** The ClusterRollouts (`management.cluster.x-k8s.io`), whose watcher says where rollouts exist. */
const isClusterRolloutTarget = (target: WatchTarget) =>
  target.kind === 'ClusterRollout' && target.apiVersion.startsWith('management.cluster.x-k8s.io/');

/** `apiVersion/kind`, the key of a target in `resumeFrom` and `watchers`. */
export function targetKey(target: WatchTarget): string {
  return `${target.apiVersion}/${target.kind}`;
}

/**
 * Starts one watcher per target feeding one outbox.
 *
 * @example
 * const forwarder = startForwarder({ kube, source: { fromDefault: true }, targets: defaultTargets, sink });
 * process.on('SIGTERM', () => void forwarder.stop());
 */
export function startForwarder(options: ForwarderOptions): Forwarder {
  const log = options.log ?? (() => undefined);
  const outbox = createEventBatcher({
    sink: options.sink,
    ...(options.coalesceMs === undefined ? {} : { coalesceMs: options.coalesceMs }),
    ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }),
    ...(options.retryBaseMs === undefined ? {} : { retryBaseMs: options.retryBaseMs }),
    onDrop: (change, error) => log('dropped event after retries', { change, error }),
  });
  const watchers = new Map<string, KindWatcher>();
  // NOTE: the Clusters whose topology pass waits for none of its owned objects, as the Cluster watcher last saw them;
  // the owned objects' watchers send no status-only change of theirs (a Cluster not seen yet is not settled).
  const settledClusters = new Set<string>();
  const settledKey = (namespace: string, name: string) => `${namespace}/${name}`;
  const watchesClusters = options.targets.some((t) => t.changesOf === 'cluster');
  // NOTE: the namespaces where a ClusterRollout exists, as its watcher last saw them: a Cluster's health (the
  // conditions only a rollout's gate reads, which move dozens of times while it upgrades) is sent to the rollout
  // controller only there. A rollout created later reads its Clusters in its own first pass, woken by its own event.
  const rolloutsByNamespace = new Map<string, Set<string>>();
  const rolloutTarget = options.targets.find(isClusterRolloutTarget);
  const onRollout = ({ namespace, name }: { namespace: string; name: string }, obj: unknown) => {
    const names = rolloutsByNamespace.get(namespace) ?? new Set<string>();
    if (obj === undefined) names.delete(name);
    else names.add(name);
    if (names.size > 0) rolloutsByNamespace.set(namespace, names);
    else rolloutsByNamespace.delete(namespace);
  };
  for (const target of options.targets) {
    const resumeFrom = options.resumeFrom?.[targetKey(target)];
    watchers.set(
      targetKey(target),
      startKindWatcher({
        kube: options.kube,
        source: options.source,
        target,
        emit: (change) => outbox.add(change),
        ...(resumeFrom === undefined ? {} : { resumeFrom }),
        ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
        log,
        ...(options.retryBaseMs === undefined ? {} : { retryBaseMs: options.retryBaseMs }),
        ...(target.changesOf === 'cluster'
          ? {
              onObject: ({ namespace, name }, obj) => {
                if (obj !== undefined && isTopologySettled(obj)) settledClusters.add(settledKey(namespace, name));
                else settledClusters.delete(settledKey(namespace, name));
              },
            }
          : {}),
        ...(target === rolloutTarget ? { onObject: onRollout } : {}),
        ...(target.changesOf === 'cluster' && rolloutTarget !== undefined
          ? {
              isControllerInterested: (controller, namespace) =>
                controller !== 'rollout' || rolloutsByNamespace.has(namespace),
            }
          : {}),
        ...(target.changesOf === 'topologyOwned' && watchesClusters
          ? { isClusterSettled: (namespace, cluster) => settledClusters.has(settledKey(namespace, cluster)) }
          : {}),
      }),
    );
  }
  return {
    outbox,
    watchers,
    snapshot: () => ({
      nowMs: Date.now(),
      kinds: [...watchers].map(([key, w]) => ({
        target: key,
        kind: key.slice(key.lastIndexOf('/') + 1),
        health: w.health(),
        stats: w.stats,
        knownObjects: w.knownObjects(),
      })),
      outbox: { byKind: outbox.stats.byKind, pending: outbox.pending(), lastSentAtMs: outbox.stats.lastSentAtMs },
      memory: (({ rss, heapUsed, heapTotal, external }) => ({ rss, heapUsed, heapTotal, external }))(
        process.memoryUsage(),
      ),
    }),
    async stop() {
      for (const w of watchers.values()) w.stop();
      await Promise.all([...watchers.values()].map((w) => w.done));
      await outbox.stop();
    },
  };
}
