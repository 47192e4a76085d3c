// One kind's list-then-watch loop: resumes from the last resourceVersion after a disconnect, relists (page by page)
// after 410 Gone and emits what changed meanwhile (SYNC for new or changed objects, DELETED for vanished ones).
// Lists and watches ask for metadata only (PartialObjectMetadata): a change event carries nothing else, so the
// forwarder never receives a Secret's data or a ConfigMap's contents.
import { createHash } from 'node:crypto';
import type { Controller } from '#shared/checkpoint/table.ts';
import type { KubeClient, KubeconfigSource } from '#shared/kube/client.ts';
import type { KubeObject } from '#shared/kube/objects.ts';
import { partialObjectMetadataAccept, partialObjectMetadataListAccept } from '#shared/kube/partial-object-metadata.ts';
import { startWatch, type WatchHandle } from '#shared/kube/watch.ts';
import { computeClusterMetadataHash, computeMetadataHash } from '#shared/hash/compute-metadata-hash.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import type { KindRef } from '#shared/runtime/types.ts';
import { getCollectionPath, UnservedKindError } from '#functions/forwarder/get-collection-path.ts';
import { listPages } from '#shared/kube/list-pages.ts';
import { isOwnedChangeNeeded } from '#functions/forwarder/compute-settled-topology.ts';
import {
  computeClusterFingerprints,
  computeStatusFingerprint,
  type ClusterFingerprints,
} from '#functions/forwarder/compute-status-fingerprint.ts';

export type WatchTarget = KindRef & {
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Server-side field selector on the LIST and the watch (e.g. a Secret's `type`). */
  readonly fieldSelector?: string;
  /**
   * Versions to watch in when the server does not serve `apiVersion` (e.g. v1beta1 up to upstream v1.10); changes
   * still name `apiVersion`, the version the controllers read in (they convert at the edge).
   */
  readonly fallbackApiVersions?: readonly string[];
  /**
   * Watch in full (not as metadata) and send a change only when what the passes read changed:
   * `topologyOwned` — control planes and worker sets a topology owns (select them with the
   * `topology.cluster.x-k8s.io/owned` label), {@link computeStatusFingerprint}, the change naming the owning Cluster;
   * `cluster` — Clusters, {@link computeClusterFingerprints}, the change naming the controllers whose fingerprint
   * changed. Default: metadata only, every new resourceVersion; a template a topology owns (a `*Template` with the
   * `topology.cluster.x-k8s.io/owned` label: the clone a MachineDeployment, MachinePool or control plane references)
   * only when its generation, labels or annotations changed, the change naming the owning Cluster (see
   * {@link computeOwnedTemplateFact}).
   */
  readonly changesOf?: 'topologyOwned' | 'cluster';
};

export type KindWatcherOptions = {
  readonly kube: KubeClient;
  readonly source: KubeconfigSource;
  readonly target: WatchTarget;
  readonly emit: (change: ObjectChange) => void;
  /** Start watching from here instead of listing (e.g. a version saved before a restart). */
  readonly resumeFrom?: string;
  /** Objects per LIST page (default 100). */
  readonly pageSize?: number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Clock for `health()` (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Every object, as seen (`undefined`: it is gone), before any filtering: the Cluster watcher tells the forwarder
   * which Clusters are settled (see `isClusterSettled`), the ClusterRollout watcher in which namespaces rollouts
   * exist (see `isControllerInterested`).
   */
  readonly onObject?: (key: { readonly namespace: string; readonly name: string }, obj: KubeObject | undefined) => void;
  /**
   * For `topologyOwned` targets: whether the owning Cluster's pass is settled (compute-settled-topology.ts,
   * isTopologySettled); a status-only change of an object it owns is then not sent. Default: never settled.
   */
  readonly isClusterSettled?: (namespace: string, cluster: string) => boolean;
  /**
   * For `cluster` targets: whether a controller can act on a change of a Cluster in `namespace` (the rollout
   * controller only where a ClusterRollout exists); a change is not sent to the others, and not at all when it
   * concerns none. Default: every controller.
   */
  readonly isControllerInterested?: (controller: Controller, namespace: string) => boolean;
};

/**
 * Where the loop is: `listing` its first list, `watching` (listed once at least; relists and reconnects included),
 * `unserved` (the cluster does not serve the kind: skipped), `stopped`.
 */
export type KindWatcherState = 'listing' | 'watching' | 'unserved' | 'stopped';

export type KindWatcherHealth = {
  readonly state: KindWatcherState;
  /** Since when every LIST or watch has failed (epoch ms); undefined while they succeed. */
  readonly failingSinceMs: number | undefined;
};

export type KindWatcherStats = {
  /** Complete relists. */
  lists: number;
  /** LIST requests (pages) over all relists. */
  pages: number;
  /** Relists that started again because their continue token expired (410 Gone mid-list). */
  listRestarts: number;
  watches: number;
  /** Watches that ended with 410 Gone (their resourceVersion was compacted). */
  gone: number;
  events: number;
  /** Changes a relist found (SYNC for new or changed objects, DELETED for vanished ones). */
  synced: number;
  /**
   * Watch events of a kind watched in full (`changesOf`), or of a template a topology owns, not sent: nothing the
   * passes read changed.
   */
  filtered: number;
  /**
   * Changes of topology-owned objects not sent because only their status changed and their Cluster is settled (its
   * pass waits for none; included in `filtered` for watch events).
   */
  settled: number;
};

export type KindWatcher = {
  /** Resolves when the loop ended after `stop()`. */
  readonly done: Promise<void>;
  stop(): void;
  readonly stats: KindWatcherStats;
  /** The version the next watch resumes from (undefined: the next round relists). */
  resourceVersion(): string | undefined;
  /** How many objects the watcher remembers for its next relist diff. */
  knownObjects(): number;
  health(): KindWatcherHealth;
};

const clusterNameLabel = 'cluster.x-k8s.io/cluster-name';
/** Objects a topology owns carry this label (upstream's `ClusterTopologyOwnedLabel`). */
export const topologyOwnedLabel = 'topology.cluster.x-k8s.io/owned';

/**
 * Whether `obj`, watched as metadata, is a template a topology owns: a `*Template` kind with the owned label and its
 * Cluster's name (the class's own templates carry neither).
 */
const isOwnedTemplate = (target: WatchTarget, obj: KubeObject): boolean =>
  target.changesOf === undefined &&
  target.kind.endsWith('Template') &&
  obj.metadata.labels?.[topologyOwnedLabel] !== undefined &&
  obj.metadata.labels[clusterNameLabel] !== undefined;

function changeOf(
  target: WatchTarget,
  obj: KubeObject,
  type: ObjectChange['type'],
  concerned?: readonly Controller[],
  before?: string,
): ObjectChange {
  const m = obj.metadata;
  const cluster =
    target.changesOf === 'topologyOwned' || isOwnedTemplate(target, obj) ? m.labels?.[clusterNameLabel] : undefined;
  const generationChanged =
    cluster !== undefined && before !== undefined && generationOfFact(before) !== String(m.generation ?? '-');
  // NOTE: a Cluster's change carries its managed-fields mark (computeClusterMetadataHash): its pass judges it against
  // what it recorded of the Cluster, as it judges the objects it owns.
  const metadataHash =
    cluster !== undefined
      ? computeMetadataHash(m)
      : target.changesOf === 'cluster'
        ? computeClusterMetadataHash(m)
        : undefined;
  const metadataChanged = cluster !== undefined && before !== undefined && metadataHashOfFact(before) !== metadataHash;
  return {
    apiVersion: target.apiVersion,
    kind: target.kind,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    ...(m.uid === undefined ? {} : { uid: m.uid }),
    ...(m.generation === undefined ? {} : { generation: m.generation }),
    ...(m.resourceVersion === undefined ? {} : { resourceVersion: m.resourceVersion }),
    type,
    ...(cluster ? { cluster } : {}),
    ...(generationChanged ? { generationChanged: true as const } : {}),
    ...(metadataHash === undefined ? {} : { metadataHash }),
    ...(metadataChanged ? { metadataChanged: true as const } : {}),
    ...(concerned === undefined ? {} : { controllers: [...concerned] }),
  };
}

const nameOf = (obj: KubeObject) => ({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

// NOTE: what a relist diff needs of an object is its uid (for DELETED) and whether it changed; one "<uid> <rv>"
// string per object is about a third of a { uid, resourceVersion, generation } record at 10,000 objects, and holds
// no reference into the parsed LIST page (V8 copies JSON string values), so pages are freed as soon as read.
const metadataFactOf = (obj: KubeObject): string => `${obj.metadata.uid ?? ''} ${obj.metadata.resourceVersion ?? ''}`;
/**
 * What the forwarder remembers of a template a topology owns, watched as metadata: `<uid> <generation>|<metadata
 * hash>`, the shape of a topology-owned fact without the status fields. A write that moves neither (an owner
 * reference, managed fields) is then no change; a spec edit (the generation) or a label or annotation edit is.
 *
 * @example
 * computeOwnedTemplateFact(template); // '5d0c… 2|Yk3…'
 */
export function computeOwnedTemplateFact(obj: KubeObject): string {
  return `${obj.metadata.uid ?? ''} ${obj.metadata.generation ?? '-'}|${computeMetadataHash(obj.metadata)}`;
}
// NOTE: an object watched in full is remembered by what the passes read of it, so neither a watch event nor a relist
// sends a change that leaves that the same.
// NOTE: a Cluster's fact is its uid and a short hash of each controller's fingerprint, in `clusterControllers` order.
const clusterControllers = ['topology', 'addons', 'rollout'] as const satisfies readonly (keyof ClusterFingerprints &
  Controller)[];
const shortHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);
/**
 * What the forwarder remembers of a topology-owned object: `<uid> <status fingerprint>|<metadata hash>`.
 *
 * @example
 * isStatusOnlyChange(computeTopologyOwnedFact(md), computeTopologyOwnedFact(mdWithOneMoreReadyReplica)); // true
 */
export function computeTopologyOwnedFact(obj: KubeObject): string {
  return `${obj.metadata.uid ?? ''} ${computeStatusFingerprint(obj)}|${computeMetadataHash(obj.metadata)}`;
}
const fullFactOf: Record<NonNullable<WatchTarget['changesOf']>, (obj: KubeObject) => string> = {
  // NOTE: the metadata hash last (after the status fingerprint's `|` fields): a label or annotation edit is a change,
  // and so is a write that dropped the topology's apply entry from the managed fields (computeMetadataHash).
  topologyOwned: (obj) => computeTopologyOwnedFact(obj),
  cluster: (obj) => {
    const prints = computeClusterFingerprints(obj);
    return [obj.metadata.uid ?? '', ...clusterControllers.map((c) => shortHash(prints[c]))].join(' ');
  },
};
const uidOfFact = (fact: string): string => fact.slice(0, fact.indexOf(' '));
/**
 * The generation in a topology-owned object's fact (`<uid> <fingerprint>`, whose first field is the generation; see
 * computeStatusFingerprint), as the object's `String(generation)`.
 */
const generationOfFact = (fact: string): string => {
  const field = fact.slice(fact.indexOf(' ') + 1).split('|')[0] ?? '-';
  return field === '-' ? '-' : field;
};

/** The metadata hash in a topology-owned object's fact: its last `|` field (see `fullFactOf.topologyOwned`). */
const metadataHashOfFact = (fact: string): string => fact.slice(fact.lastIndexOf('|') + 1);

/**
 * Whether two facts of one topology-owned object differ only in status (see `fullFactOf.topologyOwned`: the same uid,
 * generation, deletion, adoption and metadata hash): a change the Cluster's pass acts on only while it waits.
 *
 * @example
 * isStatusOnlyChange('u 2|-|1|-|cluster-owned|h', 'u 2|-|2|-|cluster-owned|h'); // true
 */
export function isStatusOnlyChange(before: string | undefined, after: string): boolean {
  if (before === undefined || uidOfFact(before) !== uidOfFact(after)) return false;
  const fields = (fact: string) => fact.slice(fact.indexOf(' ') + 1).split('|');
  const [b, a] = [fields(before), fields(after)];
  if (b.length !== a.length) return false;
  const last = a.length - 1;
  // NOTE: generation, deletion (the first two), adoption and metadata hash (the last two).
  return [0, 1, last - 1, last].every((i) => a[i] === b[i]);
}

/**
 * The controllers a Cluster's change concerns: those whose fingerprint differs between the two facts; undefined
 * (every controller) when there is no earlier fact of the same object.
 */
export function computeConcernedControllers(before: string | undefined, after: string): Controller[] | undefined {
  const [uidBefore, ...printsBefore] = before?.split(' ') ?? [];
  const [uidAfter, ...printsAfter] = after.split(' ');
  if (before === undefined || uidBefore !== uidAfter) return undefined;
  return clusterControllers.filter((_, i) => printsBefore[i] !== printsAfter[i]);
}

/**
 * Starts the loop for one kind.
 *
 * @example
 * const w = startKindWatcher({ kube, source, target: { apiVersion: 'v1', kind: 'ConfigMap' }, emit: outbox.add });
 */
export function startKindWatcher(options: KindWatcherOptions): KindWatcher {
  const { kube, source, target, emit } = options;
  const log = options.log ?? (() => undefined);
  const known = new Map<string, string>();
  const stats: KindWatcherStats = {
    lists: 0,
    pages: 0,
    listRestarts: 0,
    watches: 0,
    gone: 0,
    events: 0,
    synced: 0,
    filtered: 0,
    settled: 0,
  };
  const owned = target.changesOf !== undefined;
  const onObject = options.onObject;
  const isClusterSettled = target.changesOf === 'topologyOwned' ? options.isClusterSettled : undefined;
  /** A topology-owned object's status-only change while its Cluster is settled: not sent. */
  const isUnneeded = (obj: KubeObject, before: string | undefined, fact: string): boolean => {
    const cluster = obj.metadata.labels?.[clusterNameLabel];
    if (isClusterSettled === undefined || cluster === undefined) return false;
    const statusOnly = isStatusOnlyChange(before, fact);
    if (
      isOwnedChangeNeeded({
        statusOnly,
        clusterSettled: statusOnly && isClusterSettled(obj.metadata.namespace ?? '', cluster),
      })
    )
      return false;
    stats.settled++;
    return true;
  };
  /** Changes name the controllers they concern (Clusters). */
  const byController = target.changesOf === 'cluster';
  const isInterested = byController ? options.isControllerInterested : undefined;
  /** The controllers a Cluster's change concerns, without those that cannot act on it in its namespace. */
  const narrowConcerned = (namespace: string, concerned: Controller[] | undefined): Controller[] | undefined => {
    if (isInterested === undefined) return concerned;
    const all = concerned ?? [...clusterControllers];
    const kept = all.filter((c) => isInterested(c, namespace));
    return kept.length === all.length ? concerned : kept;
  };
  const factOf =
    target.changesOf !== undefined
      ? fullFactOf[target.changesOf]
      : (obj: KubeObject) => (isOwnedTemplate(target, obj) ? computeOwnedTemplateFact(obj) : metadataFactOf(obj));
  const listAccept = owned ? {} : { accept: partialObjectMetadataListAccept };
  const watchAccept = owned ? {} : { accept: partialObjectMetadataAccept };
  const now = options.now ?? Date.now;
  let rv = options.resumeFrom;
  let state: KindWatcherState = rv === undefined ? 'listing' : 'watching';
  let failingSinceMs: number | undefined;
  const succeeded = () => (failingSinceMs = undefined);
  let stopped = false;
  let current: WatchHandle | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });

  async function relist(path: string): Promise<void> {
    let seen = new Set<string>();
    const listed = await listPages(
      kube,
      {
        path,
        kind: target.kind,
        ...listAccept,
        ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
        ...(target.labelSelector === undefined ? {} : { labelSelector: target.labelSelector }),
        ...(target.fieldSelector === undefined ? {} : { fieldSelector: target.fieldSelector }),
        ...(options.pageSize === undefined ? {} : { limit: options.pageSize }),
      },
      {
        onPage(items) {
          stats.pages++;
          for (const item of items) {
            const key = keyOf(item);
            const fact = factOf(item);
            seen.add(key);
            onObject?.(nameOf(item), item);
            const before = known.get(key);
            if (before === fact) continue;
            known.set(key, fact);
            if (isUnneeded(item, before, fact)) continue;
            const concerned = byController
              ? narrowConcerned(item.metadata.namespace ?? '', computeConcernedControllers(before, fact))
              : undefined;
            if (concerned?.length === 0) continue;
            stats.synced++;
            emit(changeOf(target, item, 'SYNC', concerned, before));
          }
        },
        onRestart(reason) {
          // NOTE: objects of the expired pages stay known (their versions were real); only deletions wait for a
          // complete list, so the new snapshot decides what vanished.
          stats.listRestarts++;
          seen = new Set();
          log('list continue token expired (410 Gone); listing again', { kind: target.kind, reason });
        },
      },
    );
    stats.lists++;
    for (const [key, fact] of known) {
      if (seen.has(key)) continue;
      known.delete(key);
      stats.synced++;
      const slash = key.indexOf('/');
      onObject?.({ namespace: key.slice(0, slash), name: key.slice(slash + 1) }, undefined);
      emit({
        apiVersion: target.apiVersion,
        kind: target.kind,
        namespace: key.slice(0, slash),
        name: key.slice(slash + 1),
        uid: uidOfFact(fact),
        type: 'DELETED',
      });
    }
    rv = listed.resourceVersion;
    state = 'watching';
    succeeded();
  }

  async function loop(): Promise<void> {
    let path: string | undefined;
    let failures = 0;
    while (!stopped) {
      try {
        // NOTE: inside the retry loop: an API server that cannot be reached at start-up is retried, not mistaken for
        // one that does not serve the kind.
        path ??= await getCollectionPath(kube, target, target.namespace);
        if (rv === undefined) await relist(path);
        if (stopped) break;
        let gone = false;
        stats.watches++;
        current = await startWatch(
          source,
          {
            path,
            ...watchAccept,
            ...(rv === undefined ? {} : { resourceVersion: rv }),
            ...(target.labelSelector ? { labelSelector: target.labelSelector } : {}),
            ...(target.fieldSelector ? { fieldSelector: target.fieldSelector } : {}),
          },
          (event) => {
            if (event.type === 'ERROR') {
              if (event.status.code === 410) gone = true;
              log('watch error event', { kind: target.kind, code: event.status.code, message: event.status.message });
              current?.stop();
              return;
            }
            rv = event.object.metadata.resourceVersion ?? rv;
            succeeded();
            if (event.type === 'BOOKMARK') return;
            stats.events++;
            const key = keyOf(event.object);
            onObject?.(nameOf(event.object), event.type === 'DELETED' ? undefined : event.object);
            if (event.type === 'DELETED') known.delete(key);
            let concerned: Controller[] | undefined;
            let before: string | undefined;
            if (event.type !== 'DELETED') {
              const fact = factOf(event.object);
              before = known.get(key);
              known.set(key, fact);
              if (byController)
                concerned = narrowConcerned(
                  event.object.metadata.namespace ?? '',
                  event.type === 'MODIFIED' ? computeConcernedControllers(before, fact) : undefined,
                );
              // NOTE: an owned template's fact moves only with its generation, labels or annotations.
              const remembered = owned || isOwnedTemplate(target, event.object);
              if (
                remembered &&
                event.type === 'MODIFIED' &&
                (before === fact || concerned?.length === 0 || isUnneeded(event.object, before, fact))
              ) {
                stats.filtered++;
                return;
              }
            }
            emit(changeOf(target, event.object, event.type, concerned, before));
          },
        );
        const { error } = await current.ended;
        current = undefined;
        if (stopped) break;
        if (gone || error?.statusCode === 410) {
          stats.gone++;
          log('watch expired (410 Gone); relisting', { kind: target.kind, resourceVersion: rv });
          rv = undefined;
          failures = 0;
          continue;
        }
        if (error) throw error;
        // NOTE: a watch the server closed at its timeout is a success (the stream was open until then).
        succeeded();
        failures = 0;
      } catch (err) {
        if (stopped) break;
        if (err instanceof UnservedKindError) {
          state = 'unserved';
          throw err;
        }
        failures++;
        failingSinceMs ??= now();
        const delay = Math.min(options.retryMaxMs ?? 30_000, (options.retryBaseMs ?? 250) * 2 ** (failures - 1));
        log('watch failed; retrying', { kind: target.kind, error: (err as Error).message, delayMs: delay });
        await sleep(delay);
      }
    }
  }

  const done = loop()
    .catch((err: unknown) => log('watch loop ended', { kind: target.kind, error: String(err) }))
    .finally(() => {
      if (state !== 'unserved') state = 'stopped';
    });
  return {
    done,
    stop() {
      stopped = true;
      current?.stop();
      wake?.();
    },
    stats,
    resourceVersion: () => rv,
    knownObjects: () => known.size,
    health: () => ({ state, failingSinceMs }),
  };
}
