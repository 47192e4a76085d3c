// The forwarder's outbox: an object's change is sent at once when nothing of that object was sent in the last window
// (the leading edge: a new Cluster's pass must not wait for a window that has nothing to coalesce); changes that
// follow within the window are coalesced (the latest wins) and sent when it ends. Batches hold at most 10 entries
// (the PutEvents limit); failed entries are retried with capped exponential backoff.
import type { ObjectChange } from '#shared/runtime/events.ts';

/** Sends one batch; resolves with the entries that failed (throwing fails them all). */
export type EventSink = (batch: readonly ObjectChange[]) => Promise<readonly ObjectChange[]>;

export type EventBatcherOptions = {
  readonly sink: EventSink;
  /**
   * The coalescing window (default 500 ms): a change of an object that was sent less than this long ago, a status
   * change of a topology-owned object and a relist's SYNC wait this long for later changes of the same object before
   * they are sent; any other change is sent at once.
   */
  readonly coalesceMs?: number;
  /** Entries per request, at most 10 (default 10). */
  readonly maxBatch?: number;
  /** Attempts per entry before it is dropped and logged; the next tick reconciles the object anyway (default 8). */
  readonly maxAttempts?: number;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly onDrop?: (change: ObjectChange, error: string) => void;
  /** Clock for `lastSentAtMs` (default `Date.now`). */
  readonly now?: () => number;
};

/** Counts of one kind's changes through the outbox (a coalesced change is counted once in `added`). */
export type KindOutboxStats = { added: number; coalesced: number; sent: number; failed: number; dropped: number };

export type EventBatcherStats = {
  sent: number;
  coalesced: number;
  failed: number;
  dropped: number;
  requests: number;
  /** Per changed object's kind. */
  readonly byKind: Map<string, KindOutboxStats>;
  /** When a PutEvents last accepted at least one entry (epoch ms). */
  lastSentAtMs: number | undefined;
};

export type EventBatcher = {
  add(change: ObjectChange): void;
  /** Sends everything pending now (waiting for sends in progress). */
  flush(): Promise<void>;
  /** Flushes and stops the timers. */
  stop(): Promise<void>;
  readonly stats: EventBatcherStats;
  /** Changes waiting for their window or a retry. */
  pending(): number;
};

/**
 * The identity of an object across changes. Changes of the objects one topology owns (they name their `cluster`)
 * share one identity, that of their Cluster: they all wake the same pass, so a burst (the control plane and every
 * MachineDeployment moving at once) is one entry. A spec or metadata change of one (`generationChanged`,
 * `metadataChanged`) keeps its own identity under its Cluster's: its generation and metadata hash tell the pass whether
 * someone else wrote it, which a sibling's later status change must not hide. So does every change of a template a
 * topology owns: no pass waits on one, so its change wakes nothing and is judged by its generation and metadata hash.
 */
export function changeKey(
  change: Pick<ObjectChange, 'apiVersion' | 'kind' | 'namespace' | 'name'> & {
    readonly cluster?: string | undefined;
    readonly generationChanged?: true | undefined;
    readonly metadataChanged?: true | undefined;
  },
): string {
  if (
    change.cluster !== undefined &&
    (change.generationChanged === true || change.metadataChanged === true || change.kind.endsWith('Template'))
  )
    return `topology-owned/${change.namespace}/${change.cluster}/${change.apiVersion}/${change.kind}/${change.name}`;
  if (change.cluster !== undefined) return `topology-owned/${change.namespace}/${change.cluster}`;
  return `${change.apiVersion}/${change.kind}/${change.namespace}/${change.name}`;
}

/** A change waiting to be sent, and how many times sending it failed. */
type PendingEntry = { change: ObjectChange; attempts: number };

/** A deletion of an owned object forces its Cluster's pass; a later status change of a sibling must not hide it. */
const supersedes = (next: ObjectChange, pending: ObjectChange): boolean =>
  next.cluster === undefined || pending.type !== 'DELETED' || next.type === 'DELETED';

/**
 * The change kept for an identity: `kept`, naming the controllers either change concerns (none named: every one),
 * so coalescing a health-gate change into a spec change still reaches the topology.
 */
function mergeConcerned(kept: ObjectChange, a: ObjectChange, b: ObjectChange): ObjectChange {
  const { controllers: _dropped, ...rest } = kept;
  if (a.controllers === undefined || b.controllers === undefined) return rest;
  return { ...rest, controllers: [...new Set([...a.controllers, ...b.controllers])].sort() };
}

/**
 * Creates the outbox.
 *
 * @example
 * const outbox = createEventBatcher({ sink: createPutEventsSink({ eventBusName, region, getCredentials }) });
 * outbox.add(change);
 */
export function createEventBatcher(options: EventBatcherOptions): EventBatcher {
  const coalesceMs = options.coalesceMs ?? 500;
  const maxBatch = options.maxBatch ?? 10;
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > 10) {
    throw new RangeError(`maxBatch must be 1..10 (the PutEvents limit), got ${maxBatch}`);
  }
  const maxAttempts = options.maxAttempts ?? 8;
  const retryBaseMs = options.retryBaseMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  /** Changes waiting for the window (or a retry). */
  const pending = new Map<string, PendingEntry>();
  /** Changes sent at once, on the next turn of the event loop (so one watch chunk still makes one request). */
  const leading = new Map<string, PendingEntry>();
  /** When each object's change was last taken for sending, for the objects sent within the last window. */
  const lastSentAtMs = new Map<string, number>();
  let prunedAtMs = Number.NEGATIVE_INFINITY;
  const now = options.now ?? Date.now;
  const stats: EventBatcherStats = {
    sent: 0,
    coalesced: 0,
    failed: 0,
    dropped: 0,
    requests: 0,
    byKind: new Map(),
    lastSentAtMs: undefined,
  };
  const kindStats = (kind: string): KindOutboxStats => {
    let k = stats.byKind.get(kind);
    if (!k) stats.byKind.set(kind, (k = { added: 0, coalesced: 0, sent: 0, failed: 0, dropped: 0 }));
    return k;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let leadingTimer: ReturnType<typeof setTimeout> | undefined;
  let sending: Promise<void> = Promise.resolve();
  let stopped = false;

  function schedule(delayMs: number): void {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      sending = sending.then(() => sendEntries(takeAll(pending)));
    }, delayMs);
  }

  function scheduleLeading(): void {
    if (leadingTimer || stopped) return;
    leadingTimer = setTimeout(() => {
      leadingTimer = undefined;
      sending = sending.then(() => sendEntries(takeAll(leading)));
    }, 0);
  }

  /** Whether a change is sent at once: nothing of its object is waiting or was sent within the window. */
  function isLeading(key: string, change: ObjectChange): boolean {
    // NOTE: owned objects' status changes come in bursts a waiting pass reads at once; a relist's SYNCs wake no one.
    if (change.cluster !== undefined || change.type === 'SYNC' || pending.has(key)) return false;
    const last = lastSentAtMs.get(key);
    return last === undefined || now() - last >= coalesceMs;
  }

  function takeAll(from: Map<string, PendingEntry>): [string, PendingEntry][] {
    const entries = [...from.entries()];
    from.clear();
    const at = now();
    // NOTE: pruned at most once a window, so a relist of thousands of objects does not scan the map per batch.
    if (at - prunedAtMs >= coalesceMs) {
      for (const [key, sentAt] of lastSentAtMs) if (at - sentAt >= coalesceMs) lastSentAtMs.delete(key);
      prunedAtMs = at;
    }
    for (const [key] of entries) lastSentAtMs.set(key, at);
    return entries;
  }

  async function sendEntries(entries: readonly [string, PendingEntry][]): Promise<void> {
    let retryAttempts = 0;
    for (let i = 0; i < entries.length; i += maxBatch) {
      const chunk = entries.slice(i, i + maxBatch);
      const batch = chunk.map(([, e]) => e.change);
      stats.requests++;
      let failed: readonly ObjectChange[];
      let reason = 'PutEvents failed';
      try {
        failed = await options.sink(batch);
      } catch (err) {
        failed = batch;
        reason = err instanceof Error ? err.message : String(err);
      }
      stats.sent += batch.length - failed.length;
      if (failed.length < batch.length) stats.lastSentAtMs = now();
      for (const [key, entry] of chunk) {
        const perKind = kindStats(entry.change.kind);
        if (!failed.includes(entry.change)) {
          perKind.sent++;
          continue;
        }
        stats.failed++;
        perKind.failed++;
        // NOTE: a newer change of the same object arrived meanwhile; it supersedes the failed one.
        if (pending.has(key) || leading.has(key)) continue;
        const attempts = entry.attempts + 1;
        if (attempts >= maxAttempts) {
          stats.dropped++;
          perKind.dropped++;
          options.onDrop?.(entry.change, reason);
          continue;
        }
        pending.set(key, { change: entry.change, attempts });
        retryAttempts = Math.max(retryAttempts, attempts);
      }
    }
    if (retryAttempts > 0) schedule(Math.min(retryMaxMs, retryBaseMs * 2 ** (retryAttempts - 1)));
    else if (pending.size > 0) schedule(coalesceMs);
  }

  async function sendEverything(): Promise<void> {
    if (timer) clearTimeout(timer);
    if (leadingTimer) clearTimeout(leadingTimer);
    timer = undefined;
    leadingTimer = undefined;
    sending = sending.then(() => sendEntries([...takeAll(leading), ...takeAll(pending)]));
    await sending;
  }

  return {
    add(change) {
      const key = changeKey(change);
      const waiting = leading.has(key) ? leading : pending.has(key) ? pending : undefined;
      const existing = waiting?.get(key);
      const perKind = kindStats(change.kind);
      perKind.added++;
      if (existing) {
        stats.coalesced++;
        perKind.coalesced++;
      }
      const kept = existing === undefined || supersedes(change, existing.change) ? change : existing.change;
      const merged = existing === undefined ? kept : mergeConcerned(kept, existing.change, change);
      const entry = { change: merged, attempts: existing?.attempts ?? 0 };
      if (waiting !== undefined) {
        waiting.set(key, entry);
        if (waiting === pending) schedule(coalesceMs);
        return;
      }
      if (isLeading(key, change)) {
        leading.set(key, entry);
        scheduleLeading();
        return;
      }
      pending.set(key, entry);
      schedule(coalesceMs);
    },
    flush: sendEverything,
    async stop() {
      await sendEverything();
      stopped = true;
      if (timer) clearTimeout(timer);
      if (leadingTimer) clearTimeout(leadingTimer);
    },
    stats,
    pending: () => pending.size + leading.size,
  };
}
