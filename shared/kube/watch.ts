// Kubernetes watches through @kubernetes/client-node's Watch, typed: one call opens a watch stream from a
// resourceVersion and reports each event, and the end of the stream with the reason it ended.
import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { KubeconfigSource } from '#shared/kube/client.ts';
import type { KubeObject } from '#shared/kube/objects.ts';

/** What the API server sends on a watch stream. `ERROR` carries a `metav1.Status` (e.g. 410 Gone). */
export const watchEventTypes = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof watchEventTypes)[number];

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly status: { readonly code?: number; readonly message?: string } };

export type WatchRequest = {
  /** Collection path, e.g. `/api/v1/configmaps` (see `resourcePath`). */
  readonly path: string;
  /** Start after this version; omit to get the current state as ADDED events first. */
  readonly resourceVersion?: string;
  readonly labelSelector?: string;
  /** Ask the server to close the stream after this many seconds (it picks 30-60 min otherwise). */
  readonly timeoutSeconds?: number;
};

export type WatchHandle = {
  /** Closes the stream; `onEnd` is then called with no error. */
  stop(): void;
  /** Resolves when the stream ended, with the error that ended it (undefined for a clean close). */
  readonly ended: Promise<WatchEndReason>;
};

export type WatchEndReason = { readonly error?: Error & { statusCode?: number } };

const watchers = new WeakMap<object, Watch>();

function watcherFor(source: KubeconfigSource): Watch {
  const cached = watchers.get(source);
  if (cached) return cached;
  let kc: KubeConfig;
  if ('kubeConfig' in source) kc = source.kubeConfig;
  else {
    kc = new KubeConfig();
    if ('kubeconfig' in source) kc.loadFromString(source.kubeconfig);
    else if ('kubeconfigPath' in source) kc.loadFromFile(source.kubeconfigPath);
    else kc.loadFromDefault();
  }
  const watch = new Watch(kc);
  watchers.set(source, watch);
  return watch;
}

/**
 * Opens one watch stream. Events arrive in order through `onEvent`; the returned handle's `ended` resolves when
 * the connection closes for any reason (server timeout, network cut, `stop()`), so the caller can resume from the
 * last resourceVersion it saw, or relist after an `ERROR` event with code 410.
 *
 * @example
 * const w = await startWatch({ kubeconfigPath }, { path: '/api/v1/configmaps', resourceVersion: rv }, (e) => log(e));
 * const { error } = await w.ended;
 */
export async function startWatch(
  source: KubeconfigSource,
  req: WatchRequest,
  onEvent: (event: WatchEvent) => void,
): Promise<WatchHandle> {
  let resolveEnded: (reason: WatchEndReason) => void = () => undefined;
  const ended = new Promise<WatchEndReason>((resolve) => (resolveEnded = resolve));
  const query: Record<string, string | boolean | number | undefined> = {
    allowWatchBookmarks: true,
    resourceVersion: req.resourceVersion,
    labelSelector: req.labelSelector,
    timeoutSeconds: req.timeoutSeconds,
  };
  const controller = await watcherFor(source).watch(
    req.path,
    query,
    (phase, apiObj: unknown) => {
      if (phase === 'ERROR') {
        const status = (apiObj ?? {}) as { code?: number; message?: string };
        onEvent({
          type: 'ERROR',
          status: {
            ...(status.code === undefined ? {} : { code: status.code }),
            ...(status.message === undefined ? {} : { message: status.message }),
          },
        });
      } else if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED' || phase === 'BOOKMARK') {
        onEvent({ type: phase, object: apiObj as KubeObject });
      }
    },
    (err: unknown) => resolveEnded(err ? { error: err as Error & { statusCode?: number } } : {}),
  );
  return { stop: () => controller.abort(), ended };
}
