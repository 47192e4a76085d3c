// Counts every HTTP request this process sends, at the HTTP level (node's `http.client.request.start` diagnostics
// channel), so the passes, the SDK and the kube client are counted exactly as they run, without wrapping them.
// Requests are attributed to a server by host:port and classified per verb and resource.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

export type ServerRole = 'management' | 'workload' | 'dynamodb';

export type CountedRequest = {
  readonly server: ServerRole;
  /** Kubernetes: get, list, watch, create, update, patch, apply, delete, discovery; DynamoDB: the operation. */
  readonly verb: string;
  /** Kubernetes: `plural[.group][/subresource]`; DynamoDB: the table-level operation again. */
  readonly resource: string;
  readonly mutating: boolean;
  readonly dryRun: boolean;
};

export type RequestCounter = {
  readonly requests: CountedRequest[];
  reset(): void;
  /** Requests since the last reset, optionally only of one server. */
  of(server: ServerRole): CountedRequest[];
  stop(): void;
};

/** DynamoDB operations that write, and how many write request units each costs for rows ≤ 1 KB. */
export const dynamoDbWriteUnits: Readonly<Record<string, number>> = {
  PutItem: 1,
  UpdateItem: 1,
  DeleteItem: 1,
  // NOTE: transactions cost 2 units per item (the pass protocol sends none since one row per object).
  TransactWriteItems: 4,
};

/**
 * Verb and resource of a Kubernetes request from its method, path, query and content type.
 *
 * @example
 * classifyKubeRequest('PATCH', '/apis/cluster.x-k8s.io/v1beta1/namespaces/a/clusters/c1/status', 'dryRun=All', 'application/apply-patch+yaml');
 * // { verb: 'apply', resource: 'clusters.cluster.x-k8s.io/status', dryRun: true }
 */
export function classifyKubeRequest(
  method: string,
  path: string,
  query: string,
  contentType: string,
): { verb: string; resource: string; dryRun: boolean } {
  const params = new URLSearchParams(query);
  const dryRun = params.has('dryRun');
  const parts = path.split('/').filter(Boolean);
  let group = '';
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    rest = parts.slice(3);
  } else return { verb: 'discovery', resource: path, dryRun };
  if (rest.length === 0) return { verb: 'discovery', resource: parts.join('/'), dryRun };
  let resource: string;
  let name: string | undefined;
  let sub: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) [, , resource = '', name, sub] = rest;
  else [resource = '', name, sub] = rest;
  const qualified = `${resource}${group ? `.${group}` : ''}${sub ? `/${sub}` : ''}`;
  const verbOf: Record<string, string> = { POST: 'create', PUT: 'update', DELETE: 'delete' };
  let verb: string;
  if (method === 'GET') verb = name !== undefined ? 'get' : params.get('watch') === 'true' ? 'watch' : 'list';
  else if (method === 'PATCH') verb = contentType.includes('apply-patch') ? 'apply' : 'patch';
  else verb = verbOf[method] ?? method.toLowerCase();
  return { verb, resource: qualified, dryRun };
}

/**
 * Starts counting. `servers` maps `host:port` to the server's role; requests to other hosts are ignored.
 *
 * @example
 * const counter = startRequestCounter({ '127.0.0.1:6443': 'management', '127.0.0.1:8000': 'dynamodb' });
 */
export function startRequestCounter(servers: ReadonlyMap<string, ServerRole>): RequestCounter {
  const requests: CountedRequest[] = [];
  const onStart = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    const host = String(request.getHeader('host') ?? '');
    const server = servers.get(host);
    if (server === undefined) return;
    if (server === 'dynamodb') {
      const target = String(request.getHeader('x-amz-target') ?? '');
      const op = target.split('.').at(-1) ?? 'unknown';
      requests.push({ server, verb: op, resource: op, mutating: op in dynamoDbWriteUnits, dryRun: false });
      return;
    }
    const [path = '', query = ''] = request.path.split('?');
    const c = classifyKubeRequest(request.method, path, query, String(request.getHeader('content-type') ?? ''));
    requests.push({ server, ...c, mutating: request.method !== 'GET' && !c.dryRun });
  };
  subscribe('http.client.request.start', onStart);
  return {
    requests,
    reset: () => void requests.splice(0, requests.length),
    of: (server) => requests.filter((r) => r.server === server),
    stop: () => void unsubscribe('http.client.request.start', onStart),
  };
}

/** `{ "verb resource": count }`, sorted by key, for the JSON results. */
export function countByVerbAndResource(requests: readonly CountedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const key =
      r.server === 'dynamodb'
        ? `dynamodb ${r.verb}`
        : `${r.server} ${r.verb}${r.dryRun ? ' (dry-run)' : ''} ${r.resource}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** The figures of one group of requests: Kubernetes reads/mutating/dry-runs, DynamoDB reads/writes and units. */
export function summarize(requests: readonly CountedRequest[]) {
  const kube = requests.filter((r) => r.server !== 'dynamodb');
  const ddb = requests.filter((r) => r.server === 'dynamodb');
  return {
    kube: {
      total: kube.length,
      reads: kube.filter((r) => !r.mutating && !r.dryRun).length,
      mutating: kube.filter((r) => r.mutating).length,
      dryRuns: kube.filter((r) => r.dryRun).length,
    },
    dynamodb: {
      reads: ddb.filter((r) => !r.mutating).length,
      writes: ddb.filter((r) => r.mutating).length,
      readUnits: ddb.filter((r) => !r.mutating).length,
      writeUnits: ddb.reduce((sum, r) => sum + (dynamoDbWriteUnits[r.verb] ?? 0), 0),
    },
  };
}
export type RequestSummary = ReturnType<typeof summarize>;
