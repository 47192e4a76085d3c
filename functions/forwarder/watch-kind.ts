// One kind's list-then-watch loop: resumes from the last resourceVersion after a disconnect, relists after 410
// Gone and emits what changed meanwhile (SYNC for new or changed objects, DELETED for vanished ones).
import { listObjects, resolveResource, resourcePath } from '#shared/kube/index.ts';
import type { KubeClient, KubeconfigSource, KubeObject } from '#shared/kube/index.ts';
import { startWatch, type WatchHandle } from '#shared/kube/watch.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import type { KindRef } from '#shared/runtime/types.ts';

export type WatchTarget = KindRef & { readonly namespace?: string; readonly labelSelector?: string };

export type KindWatcherOptions = {
  readonly kube: KubeClient;
  readonly source: KubeconfigSource;
  readonly target: WatchTarget;
  readonly emit: (change: ObjectChange) => void;
  /** Start watching from here instead of listing (e.g. a version saved before a restart). */
  readonly resumeFrom?: string;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
};

export type KindWatcher = {
  /** Resolves when the loop ended after `stop()`. */
  readonly done: Promise<void>;
  stop(): void;
  readonly stats: { lists: number; watches: number; gone: number; events: number };
  /** The version the next watch resumes from (undefined: the next round relists). */
  resourceVersion(): string | undefined;
};

type Known = { uid: string; resourceVersion: string; generation: number | undefined };

function changeOf(target: KindRef, obj: KubeObject, type: ObjectChange['type']): ObjectChange {
  const m = obj.metadata;
  return {
    apiVersion: target.apiVersion,
    kind: target.kind,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    ...(m.uid === undefined ? {} : { uid: m.uid }),
    ...(m.generation === undefined ? {} : { generation: m.generation }),
    ...(m.resourceVersion === undefined ? {} : { resourceVersion: m.resourceVersion }),
    type,
  };
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/**
 * Starts the loop for one kind.
 *
 * @example
 * const w = startKindWatcher({ kube, source, target: { apiVersion: 'v1', kind: 'ConfigMap' }, emit: outbox.add });
 */
export function startKindWatcher(options: KindWatcherOptions): KindWatcher {
  const { kube, source, target, emit } = options;
  const log = options.log ?? (() => undefined);
  const known = new Map<string, Known>();
  const stats = { lists: 0, watches: 0, gone: 0, events: 0 };
  let rv = options.resumeFrom;
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

  async function relist(): Promise<void> {
    stats.lists++;
    const list = await listObjects(kube, { ...target });
    const seen = new Set<string>();
    for (const item of list.items) {
      const key = keyOf(item);
      seen.add(key);
      const before = known.get(key);
      const m = item.metadata;
      if (before?.resourceVersion !== m.resourceVersion) emit(changeOf(target, item, 'SYNC'));
      known.set(key, { uid: m.uid ?? '', resourceVersion: m.resourceVersion ?? '', generation: m.generation });
    }
    for (const [key, k] of known) {
      if (seen.has(key)) continue;
      known.delete(key);
      const [namespace = '', name = ''] = key.split('/');
      emit({ apiVersion: target.apiVersion, kind: target.kind, namespace, name, uid: k.uid, type: 'DELETED' });
    }
    rv = list.resourceVersion;
  }

  async function loop(): Promise<void> {
    const info = await resolveResource(kube, target.apiVersion, target.kind);
    const path = resourcePath(info, target.namespace);
    let failures = 0;
    while (!stopped) {
      try {
        if (rv === undefined) await relist();
        let gone = false;
        stats.watches++;
        current = await startWatch(
          source,
          {
            path,
            ...(rv === undefined ? {} : { resourceVersion: rv }),
            ...(target.labelSelector ? { labelSelector: target.labelSelector } : {}),
          },
          (event) => {
            if (event.type === 'ERROR') {
              if (event.status.code === 410) gone = true;
              log('watch error event', { kind: target.kind, code: event.status.code, message: event.status.message });
              current?.stop();
              return;
            }
            rv = event.object.metadata.resourceVersion ?? rv;
            if (event.type === 'BOOKMARK') return;
            stats.events++;
            const key = keyOf(event.object);
            const m = event.object.metadata;
            if (event.type === 'DELETED') known.delete(key);
            else
              known.set(key, { uid: m.uid ?? '', resourceVersion: m.resourceVersion ?? '', generation: m.generation });
            emit(changeOf(target, event.object, event.type));
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
        failures = 0;
      } catch (err) {
        if (stopped) break;
        failures++;
        const delay = Math.min(options.retryMaxMs ?? 30_000, (options.retryBaseMs ?? 250) * 2 ** (failures - 1));
        log('watch failed; retrying', { kind: target.kind, error: (err as Error).message, delayMs: delay });
        await sleep(delay);
      }
    }
  }

  const done = loop().catch((err: unknown) => log('watch loop ended', { kind: target.kind, error: String(err) }));
  return {
    done,
    stop() {
      stopped = true;
      current?.stop();
      wake?.();
    },
    stats,
    resourceVersion: () => rv,
  };
}
