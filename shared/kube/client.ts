// The one HTTP client to a Kubernetes API server: credentials from a kubeconfig (client certs, tokens, a computed
// EKS token; exec plugins through @kubernetes/client-node, loaded on demand), keep-alive connections, every request
// reported to an observer so tests and benchmarks can count them. Two failures are retried here, inside the pass
// deadline: a request that meets a kept-alive socket the server (or a load balancer) had closed is sent once more on
// a fresh connection when a replay is harmless (see replay-safe.ts), and a 429 is retried after its Retry-After.
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  callWithDeadline,
  dependencies,
  DependencyTimeoutError,
  remainingBeforeDeadlineMs,
} from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { computeThrottleRetry } from '#shared/kube/compute-throttle-retry.ts';
import { mapKubeError, mapThrottledError } from '#shared/kube/errors.ts';
import type { KubeRequest } from '#shared/kube/request.ts';
import { loadKubeConnection, type KubeconfigSource, type TokenProvider } from '#shared/kube/kubeconfig.ts';
import { isReplaySafe } from '#shared/kube/replay-safe.ts';

export { KubeconfigError, loadKubeConnection } from '#shared/kube/kubeconfig.ts';
export type { KubeConnection, KubeconfigSource, KubeTls, TokenProvider } from '#shared/kube/kubeconfig.ts';

export type RequestRecord = {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly statusCode: number;
  readonly dryRun: boolean;
  readonly durationMs: number;
  /** The response's Retry-After header, when it had one (a 429 from API priority and fairness does). */
  readonly retryAfter?: string;
};

export type { KubeRequest } from '#shared/kube/request.ts';

export type KubeClientOptions = {
  readonly userAgent?: string;
  /** Called after every request, e.g. to count mutating requests in a test. */
  readonly onRequest?: (record: RequestRecord) => void;
  /** The longest one request may take (default 30 s); a pass's deadline shortens it (see shared/deadline). */
  readonly timeoutMs?: number;
  /** Replaces the kubeconfig user's credentials, e.g. {@link createEksTokenProvider}. */
  readonly tokenProvider?: TokenProvider;
};

export type KubeClient = {
  readonly server: string;
  /** Sends one request; resolves with the parsed JSON body, rejects with a typed KubeError. */
  request<T = unknown>(req: KubeRequest): Promise<T>;
  /** Discovery cache shared by every call through this client. */
  readonly discovery: Map<string, Promise<unknown>>;
  close(): void;
};

function encodeQuery(query: KubeRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The answer to one attempt, whatever its status. */
type Reply = { readonly statusCode: number; readonly body: unknown; readonly retryAfter: string | undefined };

/** An attempt that failed before any response on a reused keep-alive socket the other end had already closed. */
class StaleSocketError extends Error {}

/** Socket errors that, on a reused socket before any response, mean the other end closed or forgot the connection. */
const staleSocketCodes = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Idle keep-alive sockets are closed after this long. NOTE: below the API server's own idle timeout and far below
 * the EKS endpoint's load balancer (350 s), so a warm process rarely meets a closed socket; a frozen Lambda
 * container or a blocked event loop still can (its timers fire after the thaw), hence the replay below.
 */
const idleSocketTimeoutMs = 30_000;

/**
 * Creates a client from a kubeconfig (text, path, object or the default loading rules).
 *
 * @example
 * const kube = await createKubeClient({ kubeconfig: text }, { userAgent: 'capi-serverless/topology' });
 */
export async function createKubeClient(source: KubeconfigSource, options: KubeClientOptions = {}): Promise<KubeClient> {
  const conn = await loadKubeConnection(
    source,
    options.tokenProvider === undefined ? {} : { tokenProvider: options.tokenProvider },
  );
  const server = conn.server;
  const isHttps = server.startsWith('https:');
  const agentOptions = { keepAlive: true, maxSockets: 16, timeout: idleSocketTimeoutMs };
  const agent = isHttps ? new HttpsAgent({ ...agentOptions, ...conn.tls }) : new HttpAgent(agentOptions);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': options.userAgent ?? 'capi-serverless',
  };
  const timeoutMs = options.timeoutMs ?? 30_000;

  /**
   * Sends a request; a 429 is sent again after its Retry-After (jittered, growing) while the pass deadline, or
   * outside a pass `timeoutMs` from the first attempt, leaves time for it.
   */
  async function request<T>(req: KubeRequest): Promise<T> {
    const startedAt = Date.now();
    for (let throttles = 0; ;) {
      const reply = await exchange(req);
      if (reply.statusCode >= 200 && reply.statusCode < 300) return reply.body as T;
      const error = mapKubeError(reply.statusCode, reply.body, req.target);
      if (reply.statusCode !== 429) throw error;
      throttles++;
      const now = Date.now();
      const decision = computeThrottleRetry({
        throttles,
        retryAfter: reply.retryAfter,
        random: Math.random(),
        remainingMs: remainingBeforeDeadlineMs(now) ?? startedAt + timeoutMs - now,
        nowMs: now,
      });
      if (!decision.retry) {
        throw mapThrottledError(req.target, error, throttles, decision.retryAfterMs, decision.why);
      }
      await sleep(decision.delayMs);
    }
  }

  /** One exchange: an attempt on a pooled socket, and once more on a fresh one if that socket was stale. */
  async function exchange(req: KubeRequest): Promise<Reply> {
    try {
      return await attempt(req, false);
    } catch (err) {
      if (!(err instanceof StaleSocketError)) throw err;
      if (!isReplaySafe(req)) {
        throw mapKubeError(
          0,
          `${err.message} (${server}; the server closed the kept-alive connection, and a ${req.method} like ` +
            `this one is not sent twice: it may have been received)`,
          req.target,
        );
      }
      // NOTE: the pool hands out the most recently used socket first (LIFO): when it was stale, the ones that
      // have waited longer are too.
      dropIdleSockets();
      try {
        return await attempt(req, true);
      } catch (again) {
        if (again instanceof StaleSocketError) throw mapKubeError(0, `${again.message} (${server})`, req.target);
        throw again;
      }
    }
  }

  async function attempt(req: KubeRequest, fresh: boolean): Promise<Reply> {
    try {
      return await callWithDeadline(dependencies.kubernetes, `${req.method} ${req.path}`, timeoutMs, (signal) =>
        send(req, signal, fresh),
      );
    } catch (err) {
      if (!(err instanceof DependencyTimeoutError)) throw err;
      throw mapKubeError(0, `${err.message} (${server})`, req.target, err);
    }
  }

  function dropIdleSockets(): void {
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }

  async function send(req: KubeRequest, signal: AbortSignal, fresh: boolean): Promise<Reply> {
    const query = encodeQuery(req.query);
    const url = new URL(server + req.path + query);
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    // NOTE: asked per request so renewed tokens (EKS, projected service-account tokens) are picked up.
    let auth: Readonly<Record<string, string>>;
    try {
      auth = await conn.getAuthHeaders();
    } catch (err) {
      throw mapKubeError(0, `failed to get credentials for ${server}: ${errorMessage(err)}`, req.target);
    }
    const reqHeaders: Record<string, string> = { ...headers, ...(req.accept ? { Accept: req.accept } : {}), ...auth };
    if (payload) {
      reqHeaders['Content-Type'] = req.contentType ?? 'application/json';
      reqHeaders['Content-Length'] = String(payload.length);
    }
    const started = performance.now();
    const open = isHttps ? httpsRequest : httpRequest;
    // NOTE: `agent: false` is a connection of its own, opened for this attempt and closed after it.
    const connection = fresh ? { agent: false as const, ...(isHttps ? conn.tls : {}) } : { agent };
    const record = (statusCode: number, retryAfter?: string) =>
      options.onRequest?.({
        method: req.method,
        path: req.path,
        query,
        statusCode,
        dryRun: statusCode === 0 ? false : req.query?.['dryRun'] !== undefined,
        durationMs: performance.now() - started,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    return new Promise<Reply>((resolve, reject) => {
      let answered = false;
      const r: ClientRequest = open(
        url,
        { method: req.method, headers: reqHeaders, ...connection, timeout: timeoutMs, signal },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => reject(mapKubeError(0, err.message, req.target)));
          res.on('end', () => {
            const statusCode = res.statusCode ?? 0;
            const header = res.headers['retry-after'];
            const retryAfter = Array.isArray(header) ? header[0] : header;
            record(statusCode, retryAfter);
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // leave as text
            }
            resolve({ statusCode, body, retryAfter });
          });
        },
      );
      r.on('timeout', () => r.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
      r.on('error', (err: NodeJS.ErrnoException) => {
        record(0);
        if (!answered && r.reusedSocket && staleSocketCodes.has(err.code ?? '')) {
          reject(new StaleSocketError(err.message));
          return;
        }
        reject(mapKubeError(0, `${err.message} (${server})`, req.target));
      });
      if (payload) r.write(payload);
      r.end();
    });
  }

  return { server, request, discovery: new Map(), close: () => agent.destroy() };
}
