// Where a client connects and with which credentials: a small kubeconfig reader for the credentials a Lambda function
// or a pod has (client certificates, tokens, token files, in-cluster service accounts, a computed EKS token), and
// @kubernetes/client-node, loaded only on demand, for everything else (exec plugins, auth providers).
import { existsSync, readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type * as ClientNode from '@kubernetes/client-node';
import { errorMessage } from '#shared/errors/index.ts';
import { KubeconfigError } from '#shared/kube/kubeconfig-error.ts';

/** Where the credentials come from: kubeconfig text, a kubeconfig file, or the default loading rules. */
export type KubeconfigSource =
  | { readonly kubeconfig: string }
  | { readonly kubeconfigPath: string }
  | { readonly fromDefault: true }
  /** Only a server (e.g. an EKS endpoint); pair it with a `tokenProvider`. */
  | { readonly server: string; readonly certificateAuthorityData?: string };

/** Returns a bearer token that is valid for at least the next request (e.g. {@link createEksTokenProvider}). */
export type TokenProvider = () => Promise<string>;

export type KubeTls = {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly rejectUnauthorized?: boolean;
  readonly servername?: string;
};

/** What a client needs to talk to one API server. */
export type KubeConnection = {
  /** Without a trailing slash. */
  readonly server: string;
  readonly tls: KubeTls;
  /** Authentication headers for the next request (tokens are re-read or renewed as they age). */
  getAuthHeaders(): Promise<Readonly<Record<string, string>>>;
};

export { KubeconfigError } from '#shared/kube/kubeconfig-error.ts';

const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Re-read token files this often: projected service-account tokens rotate while a pod runs. */
const tokenFileMaxAgeMs = 60_000;

const noAuth = () => Promise.resolve({});

function tokenFromFile(path: string): () => Promise<Record<string, string>> {
  let cached: { token: string; readAt: number } | undefined;
  return () => {
    if (!cached || Date.now() - cached.readAt > tokenFileMaxAgeMs) {
      cached = { token: readFileSync(path, 'utf8').trim(), readAt: Date.now() };
    }
    return Promise.resolve({ Authorization: `Bearer ${cached.token}` });
  };
}

function withTokenProvider(tokenProvider: TokenProvider): () => Promise<Record<string, string>> {
  return async () => ({ Authorization: `Bearer ${await tokenProvider()}` });
}

/**
 * The connection of a kubeconfig's current context. Returns undefined when the user authenticates in a way only
 * @kubernetes/client-node implements (exec plugin, auth provider) and no `tokenProvider` replaces it.
 */
async function connectionFromKubeconfig(
  text: string,
  baseDir: string | undefined,
  origin: string,
  tokenProvider: TokenProvider | undefined,
): Promise<KubeConnection | undefined> {
  // NOTE: loaded on demand: the YAML parser and the schema are about 3 MiB of a process's memory, which a pod reading
  // its service account (the forwarder) never needs.
  const { parseKubeconfig } = await import('#shared/kube/parse-kubeconfig.ts');
  const kc = parseKubeconfig(text, origin);
  const contextName = kc['current-context'];
  const context = kc.contexts?.find((c) => c.name === contextName)?.context;
  if (!context)
    throw new KubeconfigError(`kubeconfig ${origin} has no current context`, { reason: 'InvalidKubeconfig' });
  const cluster = kc.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster) {
    throw new KubeconfigError(`kubeconfig ${origin} has no cluster ${context.cluster}`, {
      reason: 'InvalidKubeconfig',
    });
  }
  const user = kc.users?.find((u) => u.name === context.user)?.user ?? {};
  if (!tokenProvider && (user.exec !== undefined || user['auth-provider'] !== undefined)) return undefined;
  // NOTE: relative paths are relative to the kubeconfig file, as kubectl resolves them.
  const resolve = (path: string) => (baseDir === undefined || isAbsolute(path) ? path : join(baseDir, path));
  const file = (path: string) => readFileSync(resolve(path));
  const data = (inline: string | undefined, path: string | undefined) =>
    inline !== undefined ? Buffer.from(inline, 'base64') : path !== undefined ? file(path) : undefined;
  const ca = data(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = tokenProvider ? undefined : data(user['client-certificate-data'], user['client-certificate']);
  const key = tokenProvider ? undefined : data(user['client-key-data'], user['client-key']);
  const tls: KubeTls = {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(cluster['insecure-skip-tls-verify'] ? { rejectUnauthorized: false } : {}),
    ...(cluster['tls-server-name'] === undefined ? {} : { servername: cluster['tls-server-name'] }),
  };
  let getAuthHeaders: KubeConnection['getAuthHeaders'] = noAuth;
  if (tokenProvider) getAuthHeaders = withTokenProvider(tokenProvider);
  else if (user.token !== undefined) {
    const headers = { Authorization: `Bearer ${user.token}` };
    getAuthHeaders = () => Promise.resolve(headers);
  } else if (user.tokenFile !== undefined) getAuthHeaders = tokenFromFile(resolve(user.tokenFile));
  else if (user.username !== undefined && user.password !== undefined) {
    const basic = Buffer.from(`${user.username}:${user.password}`).toString('base64');
    getAuthHeaders = () => Promise.resolve({ Authorization: `Basic ${basic}` });
  }
  return { server: cluster.server.replace(/\/+$/, ''), tls, getAuthHeaders };
}

// NOTE: a computed specifier keeps esbuild from bundling @kubernetes/client-node (with node-fetch, whatwg-url and
// tr46 about 1 MB) into the Lambda functions, where no kubeconfig needs it; on a laptop node_modules has it.
const clientNodeModule = '@kubernetes/client-node';

async function connectionFromClientNode(
  load: (kc: ClientNode.KubeConfig) => void,
  origin: string,
): Promise<KubeConnection> {
  let mod: typeof ClientNode;
  try {
    mod = (await import(clientNodeModule)) as typeof ClientNode;
  } catch (err) {
    throw new KubeconfigError(
      `failed to load kubeconfig ${origin}: its user authenticates with an exec plugin or auth provider, which needs ` +
        `@kubernetes/client-node (not bundled in the functions; use EKS_CLUSTER_NAME or a token or client ` +
        `certificate kubeconfig): ${errorMessage(err)}`,
      { reason: 'UnsupportedKubeconfig' },
      { cause: err },
    );
  }
  const kc = new mod.KubeConfig();
  load(kc);
  const server = kc.getCurrentCluster()?.server;
  if (!server)
    throw new KubeconfigError(`kubeconfig ${origin} has no current cluster`, { reason: 'InvalidKubeconfig' });
  // NOTE: client-node resolves exec/auth-provider credentials when asked; ask per request so they stay fresh
  // (it caches exec results until they expire).
  const first: RequestOptions = {};
  await kc.applyToHTTPSOptions(first);
  const tls: KubeTls = {
    ...(first.ca === undefined ? {} : { ca: first.ca as string | Buffer }),
    ...(first.cert === undefined ? {} : { cert: first.cert as string | Buffer }),
    ...(first.key === undefined ? {} : { key: first.key as string | Buffer }),
    ...(first.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: first.rejectUnauthorized }),
  };
  return {
    server: server.replace(/\/+$/, ''),
    tls,
    async getAuthHeaders() {
      const opts: RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
      return headers;
    },
  };
}

function connectionInCluster(env: NodeJS.ProcessEnv): KubeConnection | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
  if (!host || !existsSync(join(serviceAccountDir, 'token'))) return undefined;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    tls: { ca: readFileSync(join(serviceAccountDir, 'ca.crt')) },
    getAuthHeaders: tokenFromFile(join(serviceAccountDir, 'token')),
  };
}

/** Reads a kubeconfig file; a file that cannot be read is an error naming it and where its path came from. */
function readKubeconfigFile(path: string, origin: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : errorMessage(err);
    throw new KubeconfigError(`cannot read the kubeconfig ${path} (${origin}): ${why}`, {
      ...(origin.includes('KUBECONFIG') ? { fieldPath: 'KUBECONFIG' } : {}),
      reason: 'KubeconfigUnreadable',
    });
  }
}

async function fromFile(
  path: string,
  tokenProvider: TokenProvider | undefined,
  origin = 'kubeconfig path',
): Promise<KubeConnection> {
  const text = readKubeconfigFile(path, origin);
  return (
    (await connectionFromKubeconfig(text, dirname(path), path, tokenProvider)) ??
    (await connectionFromClientNode((kc) => kc.loadFromFile(path), path))
  );
}

/**
 * Resolves a source to a connection. The default rules follow kubectl: `$KUBECONFIG` (several files: merged by
 * @kubernetes/client-node), `~/.kube/config`, then the pod's service account. A `tokenProvider` replaces the
 * kubeconfig user's credentials (e.g. an EKS token computed from the function's IAM role).
 *
 * @example
 * const conn = await loadKubeConnection({ kubeconfig: text });
 * const headers = await conn.getAuthHeaders();
 */
export async function loadKubeConnection(
  source: KubeconfigSource,
  options: { readonly tokenProvider?: TokenProvider; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<KubeConnection> {
  const { tokenProvider, env = process.env } = options;
  if ('server' in source) {
    const ca = source.certificateAuthorityData;
    return {
      server: source.server.replace(/\/+$/, ''),
      tls: ca === undefined ? {} : { ca: Buffer.from(ca, 'base64') },
      getAuthHeaders: tokenProvider ? withTokenProvider(tokenProvider) : noAuth,
    };
  }
  if ('kubeconfig' in source) {
    return (
      (await connectionFromKubeconfig(source.kubeconfig, undefined, '(inline)', tokenProvider)) ??
      (await connectionFromClientNode((kc) => kc.loadFromString(source.kubeconfig), '(inline)'))
    );
  }
  if ('kubeconfigPath' in source) return fromFile(source.kubeconfigPath, tokenProvider);
  const paths = (env['KUBECONFIG'] ?? '').split(':').filter((p) => p !== '');
  if (paths.length > 1) return connectionFromClientNode((kc) => kc.loadFromDefault(), '$KUBECONFIG');
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  if (paths[0] !== undefined) return fromFile(paths[0], tokenProvider, 'set by KUBECONFIG');
  if (existsSync(home)) return fromFile(home, tokenProvider, 'the default ~/.kube/config');
  const inCluster = connectionInCluster(env);
  if (inCluster) {
    return tokenProvider ? { ...inCluster, getAuthHeaders: withTokenProvider(tokenProvider) } : inCluster;
  }
  throw new KubeconfigError('no kubeconfig: set KUBECONFIG, create ~/.kube/config or run in a pod', {
    reason: 'NoKubeconfig',
  });
}
