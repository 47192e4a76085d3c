// Kubernetes watches, typed: one call opens a watch stream from a resourceVersion and reports each event, and the
// end of the stream with the reason it ended (newline-delimited JSON over one long GET, as kubectl does).
import { Agent as HttpAgent, request as httpRequest, STATUS_CODES, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loadKubeConnection, type KubeConnection, type KubeconfigSource } from '#shared/kube/kubeconfig.ts';
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
  /** e.g. `type=addons.cluster.x-k8s.io/resource-set` (only the fields the kind's API supports). */
  readonly fieldSelector?: string;
  /** Ask the server to close the stream after this many seconds (it picks 30-60 min otherwise). */
  readonly timeoutSeconds?: number;
  /** Accept header; default `application/json` (see `partialObjectMetadataListAccept` for metadata only). */
  readonly accept?: string;
};

export type WatchHandle = {
  /** Closes the stream; `ended` then resolves with an `AbortError` (no status code). */
  stop(): void;
  /** Resolves when the stream ended, with the error that ended it (undefined for a clean close). */
  readonly ended: Promise<WatchEndReason>;
};

export type WatchEndReason = { readonly error?: Error & { statusCode?: number } };

type Watcher = { readonly conn: KubeConnection; readonly agent: HttpAgent | HttpsAgent };
const watchers = new WeakMap<object, Promise<Watcher>>();

function watcherFor(source: KubeconfigSource): Promise<Watcher> {
  let cached = watchers.get(source);
  if (!cached) {
    cached = loadKubeConnection(source).then((conn) => ({
      conn,
      agent: conn.server.startsWith('https:') ? new HttpsAgent({ keepAlive: true, ...conn.tls }) : new HttpAgent(),
    }));
    // NOTE: a failed load is not cached, so the caller's retry reads the kubeconfig again.
    cached.catch(() => watchers.delete(source));
    watchers.set(source, cached);
  }
  return cached;
}

function toWatchEvent(line: string): WatchEvent | undefined {
  let data: { type?: unknown; object?: unknown };
  try {
    data = JSON.parse(line) as { type?: unknown; object?: unknown };
  } catch {
    return undefined;
  }
  if (data.type === 'ERROR') {
    const status = (data.object ?? {}) as { code?: number; message?: string };
    return {
      type: 'ERROR',
      status: {
        ...(status.code === undefined ? {} : { code: status.code }),
        ...(status.message === undefined ? {} : { message: status.message }),
      },
    };
  }
  if (data.type === 'ADDED' || data.type === 'MODIFIED' || data.type === 'DELETED' || data.type === 'BOOKMARK') {
    return { type: data.type, object: data.object as KubeObject };
  }
  return undefined;
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
  const { conn, agent } = await watcherFor(source);
  const url = new URL(conn.server + req.path);
  url.searchParams.set('watch', 'true');
  url.searchParams.set('allowWatchBookmarks', 'true');
  if (req.resourceVersion !== undefined) url.searchParams.set('resourceVersion', req.resourceVersion);
  if (req.labelSelector !== undefined) url.searchParams.set('labelSelector', req.labelSelector);
  if (req.fieldSelector !== undefined) url.searchParams.set('fieldSelector', req.fieldSelector);
  if (req.timeoutSeconds !== undefined) url.searchParams.set('timeoutSeconds', String(req.timeoutSeconds));
  const headers = { Accept: req.accept ?? 'application/json', ...(await conn.getAuthHeaders()) };

  let resolveEnded: (reason: WatchEndReason) => void = () => undefined;
  const ended = new Promise<WatchEndReason>((resolve) => (resolveEnded = resolve));
  let done = false;
  const finish = (error?: Error & { statusCode?: number }) => {
    if (done) return;
    done = true;
    request.destroy();
    resolveEnded(error ? { error } : {});
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const request: ClientRequest = send(url, { method: 'GET', headers, agent }, (res) => {
    if (res.statusCode !== 200) {
      const statusCode = res.statusCode ?? 0;
      res.resume();
      finish(Object.assign(new Error(STATUS_CODES[statusCode] ?? `HTTP ${statusCode}`), { statusCode }));
      return;
    }
    res.setEncoding('utf8');
    let pending = '';
    const emit = (line: string) => {
      const event = done || line.trim() === '' ? undefined : toWatchEvent(line);
      if (event) onEvent(event);
    };
    res.on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        emit(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    res.on('end', () => {
      emit(pending);
      finish();
    });
    res.on('error', (err) => finish(err));
    res.on('close', () => finish());
  });
  request.on('socket', (socket) => socket.setKeepAlive(true, 30_000));
  request.on('error', (err) => finish(err));
  request.end();
  return {
    stop: () => finish(Object.assign(new Error('watch stopped'), { name: 'AbortError' })),
    ended,
  };
}
