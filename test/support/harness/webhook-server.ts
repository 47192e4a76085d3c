// An HTTPS server on loopback with its own generated CA, serving a Lambda Function URL handler the way the Function
// URL does (payload format 2.0), so the API server of a test control plane can call the real webhooks handler.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPki } from '#test/support/harness/certs.ts';

export type FunctionUrlHandler = (
  event: unknown,
) => Promise<{ statusCode: number; headers?: Readonly<Record<string, string>>; body?: string }>;

export type WebhookServer = {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Base64 PEM of the CA that signed the serving certificate (for `clientConfig.caBundle`). */
  readonly caBundle: string;
  /** How many requests the server answered. */
  readonly requests: () => number;
  stop(): Promise<void>;
};

/** Longer than kube-apiserver's idle webhook connections (90 s). */
export const webhookServerKeepAliveMs = 120_000;

/**
 * Starts the server; every request becomes a Function URL event for `handler`.
 *
 * @example
 * const server = await startWebhookServer(createWebhooksHandler({ getDeps }));
 */
export async function startWebhookServer(handler: FunctionUrlHandler): Promise<WebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-webhook-'));
  const pki = createPki(dir);
  let count = 0;
  const server: Server = createServer(
    { key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        count++;
        const url = new URL(req.url ?? '/', 'https://127.0.0.1');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const event = {
          version: '2.0',
          routeKey: '$default',
          rawPath: url.pathname,
          rawQueryString: url.search.replace(/^\?/, ''),
          headers,
          // NOTE: a Function URL base64-encodes bodies it does not know to be text; do the same to cover that path.
          body: Buffer.concat(chunks).toString('base64'),
          isBase64Encoded: true,
          requestContext: { http: { method: req.method ?? 'GET', path: url.pathname } },
        };
        handler(event).then(
          (result) => {
            res.writeHead(result.statusCode, { ...result.headers });
            res.end(result.body ?? '');
          },
          (err: unknown) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(String(err));
          },
        );
      });
    },
  );
  // NOTE: kube-apiserver keeps webhook connections idle up to 90 s (Go's IdleConnTimeout) and reuses them; with Node's
  // 5 s keepAliveTimeout the server could close one just as the API server wrote a review on it ("failed calling
  // webhook ...: write: broken pipe", a refused write). Idle connections are kept longer than the client keeps them.
  server.keepAliveTimeout = webhookServerKeepAliveMs;
  server.headersTimeout = webhookServerKeepAliveMs + 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: readFileSync(pki.caCert).toString('base64'),
    requests: () => count,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
