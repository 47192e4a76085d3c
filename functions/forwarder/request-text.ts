// One HTTP(S) request with a text body and a deadline, for the forwarder's few AWS calls (PutEvents, credentials).
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type TextResponse = { readonly statusCode: number; readonly body: string };

export type TextRequest = {
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
};

// NOTE: one kept-alive connection to the regional endpoint serves every PutEvents of a burst.
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 4 });

/**
 * Sends the request and reads the whole answer (any status); rejects on a network error or after `timeoutMs`.
 *
 * @example
 * const { statusCode, body } = await requestText('https://sts.eu-west-1.amazonaws.com/', { method: 'POST', body, timeoutMs: 5_000 });
 */
export function requestText(url: string, req: TextRequest): Promise<TextResponse> {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
  return new Promise((resolve, reject) => {
    const r = send(
      u,
      {
        method: req.method,
        headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: req.timeoutMs,
        ...(u.protocol === 'https:' ? { agent: httpsAgent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    r.on('timeout', () => r.destroy(new Error(`${req.method} ${u.host} timed out after ${req.timeoutMs} ms`)));
    r.on('error', reject);
    r.end(body);
  });
}
