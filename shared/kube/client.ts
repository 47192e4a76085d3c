// The one HTTP client to a Kubernetes API server: credentials from a kubeconfig (client certs, tokens, exec/EKS
// plugins through @kubernetes/client-node), keep-alive connections, every request reported to an observer so
// tests and benchmarks can count them.
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { mapKubeError, type RequestTarget } from '#shared/kube/errors.ts';

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
  readonly timeoutMs?: number;
};

export type KubeRequest = {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
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

export type KubeconfigSource =
  | { readonly kubeconfig: string }
  | { readonly kubeconfigPath: string }
  | { readonly kubeConfig: KubeConfig }
  | { readonly fromDefault: true };

function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  if ('kubeConfig' in source) return source.kubeConfig;
  const kc = new KubeConfig();
  if ('kubeconfig' in source) kc.loadFromString(source.kubeconfig);
  else if ('kubeconfigPath' in source) kc.loadFromFile(source.kubeconfigPath);
  else kc.loadFromDefault();
  return kc;
}

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
  const kc = loadKubeConfig(source);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  const base: RequestOptions = {};
  // NOTE: applyToHTTPSOptions resolves credentials (including exec plugins and EKS tokens) once per client;
  // Lambda creates a client per invocation, so short-lived tokens stay fresh.
  await kc.applyToHTTPSOptions(base);
  const isHttps = server.startsWith('https:');
  const agent = isHttps
    ? new Agent({
        keepAlive: true,
        maxSockets: 16,
        ...(base.ca === undefined ? {} : { ca: base.ca }),
        ...(base.cert === undefined ? {} : { cert: base.cert }),
        ...(base.key === undefined ? {} : { key: base.key }),
        ...(base.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: base.rejectUnauthorized }),
      })
    : undefined;
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': options.userAgent ?? 'capi-serverless',
  };
  for (const [k, v] of Object.entries(base.headers ?? {})) if (typeof v === 'string') headers[k] = v;
  const timeoutMs = options.timeoutMs ?? 30_000;

  function request<T>(req: KubeRequest): Promise<T> {
    const query = encodeQuery(req.query);
    const url = new URL(server + req.path + query);
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const reqHeaders: Record<string, string> = { ...headers };
    if (payload) {
      reqHeaders['Content-Type'] = req.contentType ?? 'application/json';
      reqHeaders['Content-Length'] = String(payload.length);
    }
    const started = performance.now();
    const send = isHttps ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const r = send(
        url,
        { method: req.method, headers: reqHeaders, ...(agent ? { agent } : {}), timeout: timeoutMs },
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
