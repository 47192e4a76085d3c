// A Lambda Function URL in front of a fixed number of emulated containers (aws-lambda-rie, one invocation at a time
// each), for the API server of a test control plane to call over HTTPS as it calls the deployed Function URL.
// What it models: the function's reserved concurrency (the pool's size); a request when every container is busy is
// throttled at once with 429 TooManyRequestsException and no Retry-After, as Lambda throttles a synchronous invocation
// (nothing queues); a container's first invocation pays its cold start (the emulator starts the runtime then); a
// free warm container is preferred over a cold one. What it does not model: each Lambda container has CPU of its
// own, here all share the machine's cores, so latency under a burst is pessimistic; Lambda's burst scaling rate and
// the account-level limits are not modelled. For the admission fault rows the reserved concurrency can be lowered
// (to 0: every call throttled), each call delayed (a slow function), and the URL made unreachable (connection refused).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPki } from '#test/support/harness/certs.ts';
import type { EmulatedFunction } from '#test/support/harness/lambda-rie.ts';

/** One request the URL answered. */
export type FunctionUrlRecord = {
  readonly startedAt: number;
  readonly durationMs: number;
  /** The HTTP status sent to the caller (429: throttled, 502: the function failed). */
  readonly status: number;
  /** Which container served it (undefined when throttled). */
  readonly container: number | undefined;
  /** The container's first invocation (its cold start). */
  readonly cold: boolean;
};

export type FunctionUrlPool = {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Base64 PEM of the CA that signed the serving certificate (for `clientConfig.caBundle`). */
  readonly caBundle: string;
  readonly records: FunctionUrlRecord[];
  /** The most requests in flight at once, throttled ones included: the concurrency the traffic asked for. */
  peakDemand(): number;
  /**
   * Starts the runtime of the first `count` containers with `event` (e.g. a request without the path token, which the
   * function refuses before any read), one after the other, as provisioned concurrency initializes containers before
   * any traffic. Returns how long each first invocation took (its cold start), in ms.
   */
  warm(count: number, event: unknown): Promise<number[]>;
  /** Serves at most `n` invocations at once (the first `n` containers), as a lowered reserved concurrency does. */
  setReservedConcurrency(n: number): void;
  /** Holds each call `ms` before invoking its container (0: none), as a function slow to answer. */
  setDelay(ms: number): void;
  /** Stops listening and drops every connection: the URL is unreachable (connection refused) until `resume`. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Starts the URL over `containers`; each request becomes a Function URL event (payload format 2.0) for one of them.
 *
 * @example
 * const pool = await startFunctionUrlPool(containers);
 * // webhook clientConfig.url: `${pool.url}/<token>/validate`, caBundle: pool.caBundle
 */
export async function startFunctionUrlPool(containers: readonly EmulatedFunction[]): Promise<FunctionUrlPool> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-function-url-'));
  const pki = createPki(dir);
  const busy = containers.map(() => false);
  const used = containers.map(() => false);
  const records: FunctionUrlRecord[] = [];
  let inFlight = 0;
  let peak = 0;
  let reserved = containers.length;
  let delayMs = 0;
  const server: Server = createServer(
    { key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) },
    (req, res) => {
      const startedAt = Date.now();
      inFlight++;
      peak = Math.max(peak, inFlight);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void serve());
      const serve = async () => {
        if (delayMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
        // NOTE: warm (used) containers first, then cold ones, as Lambda routes to a warm container when it has one.
        const free = [...containers.keys()]
          .filter((i) => i < reserved && !busy[i])
          .sort((a, b) => Number(used[b]) - Number(used[a]));
        const index = free[0];
        const answer = (status: number, headers: Record<string, string>, body: string, cold = false) => {
          inFlight--;
          records.push({ startedAt, durationMs: Date.now() - startedAt, status, container: index, cold });
          res.writeHead(status, headers);
          res.end(body);
        };
        if (index === undefined) {
          answer(
            429,
            { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' },
            JSON.stringify({ Message: 'Rate Exceeded.' }),
          );
          return;
        }
        const container = containers[index] as EmulatedFunction;
        const cold = !used[index];
        busy[index] = true;
        used[index] = true;
        const url = new URL(req.url ?? '/', 'https://127.0.0.1');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const event = {
          version: '2.0',
          routeKey: '$default',
          rawPath: url.pathname,
          rawQueryString: url.search.replace(/^\?/, ''),
          headers,
          body: Buffer.concat(chunks).toString('base64'),
          isBase64Encoded: true,
          requestContext: { http: { method: req.method ?? 'GET', path: url.pathname } },
        };
        container.invoke(event).then(
          ({ status, body }) => {
            busy[index] = false;
            // NOTE: the emulator answers a timed-out invocation with plain text ("Task timed out …").
            let result: Record<string, unknown> = {};
            try {
              if (status === 200) result = JSON.parse(body) as Record<string, unknown>;
            } catch {
              result = { errorType: 'NotJson' };
            }
            if (status !== 200 || result['errorType'] !== undefined || typeof result['statusCode'] !== 'number') {
              // NOTE: a function error or timeout reaches a Function URL's caller as 502.
              answer(502, { 'content-type': 'text/plain' }, `function failed: ${body.slice(0, 500)}`, cold);
              return;
            }
            answer(
              result['statusCode'],
              { ...(result['headers'] as Record<string, string> | undefined) },
              typeof result['body'] === 'string' ? result['body'] : '',
              cold,
            );
          },
          (err: unknown) => {
            busy[index] = false;
            answer(502, { 'content-type': 'text/plain' }, String(err), cold);
          },
        );
      };
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: readFileSync(pki.caCert).toString('base64'),
    records,
    peakDemand: () => peak,
    async warm(count, event) {
      const coldStartsMs: number[] = [];
      for (const [i, container] of containers.slice(0, count).entries()) {
        const startedAt = performance.now();
        await container.invoke(event).catch(() => undefined);
        coldStartsMs.push(Math.round(performance.now() - startedAt));
        used[i] = true;
      }
      return coldStartsMs;
    },
    setReservedConcurrency(n) {
      reserved = Math.min(n, containers.length);
    },
    setDelay(ms) {
      delayMs = ms;
    },
    async pause() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async resume() {
      if (server.listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
