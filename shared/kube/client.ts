// The one HTTP client to a Kubernetes API server: credentials from a kubeconfig (client certs, tokens, a computed
// EKS token; exec plugins through @kubernetes/client-node, loaded on demand), keep-alive connections, every request
// reported to an observer so tests and benchmarks can count them.
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { callWithDeadline, dependencies, DependencyTimeoutError } from '#shared/deadline/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { mapKubeError, type RequestTarget } from '#shared/kube/errors.ts';
import { loadKubeConnection, type KubeconfigSource, type TokenProvider } from '#shared/kube/kubeconfig.ts';

export { KubeconfigError, loadKubeConnection } from '#shared/kube/kubeconfig.ts';
export type { KubeConnection, KubeconfigSource, KubeTls, TokenProvider } from '#shared/kube/kubeconfig.ts';

export type RequestRecord = {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly statusCode: number;
  readonly dryRun: boolean;
  readonly durationMs: number;
};

export type KubeClientOptions = {
  readonly userAgent?: string;
  /** Called after every request, e.g. to count mutating requests in a test. */
  readonly onRequest?: (record: RequestRecord) => void;
  /** The longest one request may take (default 30 s); a pass's deadline shortens it (see shared/deadline). */
  readonly timeoutMs?: number;
  /** Replaces the kubeconfig user's credentials, e.g. {@link createEksTokenProvider}. */
  readonly tokenProvider?: TokenProvider;
};

export type KubeRequest = {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Accept header; default `application/json` (see `partialObjectMetadataListAccept` for metadata only). */
  readonly accept?: string;
  readonly target: RequestTarget;
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
  const agent = isHttps ? new Agent({ keepAlive: true, maxSockets: 16, ...conn.tls }) : undefined;
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': options.userAgent ?? 'capi-serverless',
  };
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function request<T>(req: KubeRequest): Promise<T> {
    try {
      return await callWithDeadline(dependencies.kubernetes, `${req.method} ${req.path}`, timeoutMs, (signal) =>
        send<T>(req, signal),
      );
    } catch (err) {
      if (!(err instanceof DependencyTimeoutError)) throw err;
      throw mapKubeError(0, `${err.message} (${server})`, req.target, err);
    }
  }

  async function send<T>(req: KubeRequest, signal: AbortSignal): Promise<T> {
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
    return new Promise<T>((resolve, reject) => {
      const r = open(
        url,
        { method: req.method, headers: reqHeaders, ...(agent ? { agent } : {}), timeout: timeoutMs, signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => reject(mapKubeError(0, err.message, req.target)));
          res.on('end', () => {
            const statusCode = res.statusCode ?? 0;
            options.onRequest?.({
              method: req.method,
              path: req.path,
              query,
              statusCode,
              dryRun: req.query?.['dryRun'] !== undefined,
              durationMs: performance.now() - started,
            });
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // leave as text
            }
            if (statusCode >= 200 && statusCode < 300) resolve(body as T);
            else reject(mapKubeError(statusCode, body, req.target));
          });
        },
      );
      r.on('timeout', () => r.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
      r.on('error', (err) => {
        options.onRequest?.({
          method: req.method,
          path: req.path,
          query,
          statusCode: 0,
          dryRun: false,
          durationMs: performance.now() - started,
        });
        reject(mapKubeError(0, `${err.message} (${server})`, req.target));
      });
      if (payload) r.write(payload);
      r.end();
    });
  }

  return { server, request, discovery: new Map(), close: () => agent?.destroy() };
}
