// The forwarder's HTTP endpoint for the kubelet and Prometheus: `GET /healthz` (alive: no watch wedged), `GET /readyz`
// (every served kind listed once), `GET /metrics` (Prometheus text). Nothing else is served.
import { createServer, type Server } from 'node:http';
import {
  computeLiveness,
  computeMetricsText,
  computeReadiness,
  type ForwarderSnapshot,
  type ForwarderVerdict,
} from '#functions/forwarder/compute-forwarder-status.ts';

export type HttpServerOptions = {
  readonly port: number;
  /** Listen address (default all interfaces, as a pod's probes need). */
  readonly host?: string;
  readonly snapshot: () => ForwarderSnapshot;
  /** How long every LIST and watch of a kind may fail before `/healthz` fails (default 5 minutes). */
  readonly wedgedAfterMs?: number;
};

export type HttpServer = { readonly port: number; close(): Promise<void> };

const verdictBody = (v: ForwarderVerdict) => (v.ok ? 'ok\n' : `${v.reasons.join('\n')}\n`);

/**
 * Starts listening; resolves once the port is bound (port 0 picks a free one, reported in `port`).
 *
 * @example
 * const http = await startHttpServer({ port: 8080, snapshot: forwarder.snapshot });
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const wedgedAfterMs = options.wedgedAfterMs ?? 300_000;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    const text = (status: number, body: string, type = 'text/plain; charset=utf-8') =>
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body);
    switch (path) {
      case '/healthz': {
        const v = computeLiveness(options.snapshot(), wedgedAfterMs);
        return text(v.ok ? 200 : 503, verdictBody(v));
      }
      case '/readyz': {
        const v = computeReadiness(options.snapshot());
        return text(v.ok ? 200 : 503, verdictBody(v));
      }
      case '/metrics':
        return text(200, computeMetricsText(options.snapshot()), 'text/plain; version=0.0.4; charset=utf-8');
      default:
        return text(404, 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
