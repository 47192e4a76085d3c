// The ClusterClasses the admission webhooks read, kept per warm container for a few seconds, as upstream's webhooks
// read them from their manager's informer cache: a burst of Cluster writes against one class reads it once, not twice
// per write (the defaulting and the validating webhook each read it).
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';

export type ClusterClassCacheOptions = {
  /** How long a class read is reused; 0 reads it on every admission. */
  readonly ttlMs: number;
  /** At most this many classes are kept (the oldest read goes first). */
  readonly maxEntries?: number;
  readonly now?: () => number;
};

/** Classes read recently, shared by every reader of one warm container. */
export type ClusterClassCache = {
  /** The class under `key`, read with `load` unless a read younger than the TTL is kept (or in flight). */
  get(key: ObjectKey, load: () => Promise<ClusterClass | undefined>): Promise<ClusterClass | undefined>;
  /**
   * A write of the class is being admitted: drop it, and read it afresh for one TTL (the write lands after its
   * admission, so a read now could still find the class before it).
   */
  forget(key: ObjectKey): void;
};

type Entry = { readonly readAt: number; readonly value: Promise<ClusterClass | undefined> };

/** NOTE: each caller gets its own copy, so no admission can change what the next one reads. */
const copy = (cc: ClusterClass | undefined) => (cc === undefined ? undefined : structuredClone(cc));

/**
 * A ClusterClass cache with a time to live. Only classes that exist are kept: a Cluster created right after its class
 * must not be refused because an earlier read found no class. A failed read is not kept either.
 *
 * @example
 * const cache = createClusterClassCache({ ttlMs: 5_000 });
 * const reader = withClusterClassCache(createWebhookReader(kube), cache);
 */
export function createClusterClassCache(options: ClusterClassCacheOptions): ClusterClassCache {
  const { ttlMs, maxEntries = 1000, now = Date.now } = options;
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`ttlMs must be 0 or more, got ${ttlMs}`);
  const entries = new Map<string, Entry>();
  const freshUntil = new Map<string, number>();
  const idOf = (key: ObjectKey) => `${key.namespace}/${key.name}`;
  return {
    get(key, load) {
      const id = idOf(key);
      const at = now();
      if (ttlMs === 0 || (freshUntil.get(id) ?? 0) > at) return load();
      freshUntil.delete(id);
      const kept = entries.get(id);
      if (kept && at - kept.readAt < ttlMs) return kept.value.then(copy);
      const value = load();
      entries.delete(id);
      entries.set(id, { readAt: at, value });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value ?? id);
      const forget = () => {
        if (entries.get(id)?.value === value) entries.delete(id);
      };
      void value.then((cc) => (cc === undefined ? forget() : undefined), forget);
      return value.then(copy);
    },
    forget(key) {
      if (ttlMs === 0) return;
      const id = idOf(key);
      entries.delete(id);
      freshUntil.set(id, now() + ttlMs);
      if (freshUntil.size > maxEntries) freshUntil.delete(freshUntil.keys().next().value ?? id);
    },
  };
}

/**
 * The reader with its ClusterClass reads going through `cache`; every other read is the reader's own.
 *
 * @example
 * const reader = withClusterClassCache(createWebhookReader(kube), createClusterClassCache({ ttlMs: 5_000 }));
 */
export function withClusterClassCache(reader: WebhookReader, cache: ClusterClassCache): WebhookReader {
  return {
    ...reader,
    getClusterClass: (key) => cache.get(key, () => reader.getClusterClass(key)),
    forgetClusterClass: (key) => cache.forget(key),
  };
}
