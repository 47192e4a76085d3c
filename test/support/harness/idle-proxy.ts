// A TCP proxy in front of the API server that ends idle keep-alive connections, on a thread of its own so that it
// keeps time while the test's own thread is frozen (a Lambda container between invocations, an event loop blocked
// by a build). TLS passes through untouched. Two ways to end an idle connection:
// - `close`: the proxy closes it (FIN), as the API server does at its idle timeout; a client that is not frozen
//   notices and drops the socket, a frozen one finds out only after it has written its next request;
// - `drop`: the proxy forgets it without a word and resets (RST) whatever arrives on it next, as a load balancer or
//   NAT does at its idle timeout (the EKS API endpoint's NLB after 350 s).
import { Worker } from 'node:worker_threads';

export type IdleProxyMode = 'close' | 'drop';

export type IdleProxy = {
  readonly port: number;
  /** Connections the proxy ended for being idle so far (closed or dropped). */
  idleEnded(): Promise<number>;
  stop(): Promise<void>;
};

const proxySource = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const { host, port, idleMs, mode } = workerData;
let ended = 0;
const pairs = new Set();
const server = net.createServer((client) => {
  const upstream = net.connect(port, host);
  const pair = { client, upstream, dropped: false, timer: undefined };
  pairs.add(pair);
  const arm = () => {
    clearTimeout(pair.timer);
    pair.timer = setTimeout(() => {
      ended++;
      upstream.destroy();
      if (mode === 'close') client.end();
      else pair.dropped = true;
    }, idleMs);
  };
  for (const s of [client, upstream]) s.on('error', () => undefined);
  client.on('data', (chunk) => {
    if (pair.dropped) return void client.resetAndDestroy();
    arm();
    upstream.write(chunk);
  });
  upstream.on('data', (chunk) => {
    arm();
    client.write(chunk);
  });
  upstream.on('close', () => { if (!pair.dropped) client.destroy(); });
  client.on('close', () => { clearTimeout(pair.timer); upstream.destroy(); pairs.delete(pair); });
  arm();
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'ended') parentPort.postMessage({ ended });
  if (m === 'stop') {
    for (const p of pairs) { p.client.destroy(); p.upstream.destroy(); }
    server.close(() => parentPort.postMessage({ stopped: true }));
  }
});
`;

/**
 * Starts the proxy to `host:port`; a connection with no bytes either way for `idleMs` is ended the `mode` way.
 *
 * @example
 * const proxy = await startIdleProxy('127.0.0.1', apiServerPort, { idleMs: 500, mode: 'drop' });
 */
export async function startIdleProxy(
  host: string,
  port: number,
  options: { readonly idleMs: number; readonly mode: IdleProxyMode },
): Promise<IdleProxy> {
  const worker = new Worker(proxySource, { eval: true, workerData: { host, port, ...options } });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        resolve(m[key] as T);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const listening = await next<number>('port');
  return {
    port: listening,
    idleEnded() {
      const answer = next<number>('ended');
      worker.postMessage('ended');
      return answer;
    },
    async stop() {
      const stopped = next<boolean>('stopped');
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

/**
 * Freezes this thread for `ms`, as Lambda freezes a container between invocations: no timer, socket event or
 * promise of this thread runs meanwhile (other threads and processes go on).
 */
export function freezeThisThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
