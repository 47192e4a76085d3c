// Loopback servers for the forwarder tests: an EventBridge endpoint that records the real SDK's PutEvents requests,
// and TCP proxies in front of the API server whose connections a test can cut, or cut and hold until it reopens.
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type RecordedEntry = { Source: string; DetailType: string; Detail: string; EventBusName: string };
export type RecordedRequest = { target: string; entries: RecordedEntry[]; failedIndexes: number[] };

export type EventBridgeRecorder = {
  readonly endpoint: string;
  readonly requests: RecordedRequest[];
  /** Answer the next `n` entries with an ErrorCode (partial failure), so the sender must retry them. */
  failNextEntries(n: number): void;
  stop(): Promise<void>;
};

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** An HTTP server speaking enough of the EventBridge JSON protocol to answer PutEvents. */
export async function startEventBridgeRecorder(): Promise<EventBridgeRecorder> {
  const requests: RecordedRequest[] = [];
  let failing = 0;
  let eventId = 0;
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries: RecordedEntry[] };
      const failedIndexes: number[] = [];
      const entries = body.Entries.map((_, i) => {
        if (failing > 0) {
          failing--;
          failedIndexes.push(i);
          return { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' };
        }
        return { EventId: `e-${++eventId}` };
      });
      requests.push({ target: String(req.headers['x-amz-target']), entries: body.Entries, failedIndexes });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ FailedEntryCount: failedIndexes.length, Entries: entries }));
    });
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    failNextEntries: (n) => void (failing = n),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type CuttableProxy = {
  readonly port: number;
  /** Destroys every open connection (the watch streams die mid-flight). */
  cut(): number;
  stop(): Promise<void>;
};

/** A TCP proxy to `target` (TLS passes through untouched). */
export async function startCuttableProxy(targetHost: string, targetPort: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const port = await listen(server);
  return {
    port,
    cut() {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    stop() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type GatedProxy = {
  readonly port: number;
  /** Cuts every connection and holds new ones (unanswered) until `open()`. */
  close(): void;
  open(): void;
  stop(): Promise<void>;
};

/** A TCP proxy to the API server whose gate a test closes (the watch is down) while things change behind it. */
export async function startGatedProxy(host: string, port: number): Promise<GatedProxy> {
  const sockets = new Set<Socket>();
  let held: Socket[] = [];
  let closed = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const pipe = (client: Socket) => {
    const upstream = connect(port, host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const server = createTcpServer((client) => {
    track(client);
    if (closed) held.push(client);
    else pipe(client);
  });
  const listening = await listen(server);
  return {
    port: listening,
    close() {
      closed = true;
      for (const s of sockets) s.destroy();
    },
    open() {
      closed = false;
      for (const client of held) if (!client.destroyed) pipe(client);
      held = [];
    },
    stop() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
