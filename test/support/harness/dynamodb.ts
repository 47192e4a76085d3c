// A real DynamoDB-protocol server for integration tests and local mode: AWS DynamoDB Local, in memory (or in a
// temporary directory, to survive a restart), on loopback. Set DYNAMODB_ENDPOINT to use a running server instead.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type DynamoDBCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string };

export type DynamoDBServer = {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly region: string;
  /** DynamoDB Local keeps one database per access key and region (without `-sharedDb`); any secret is accepted. */
  readonly credentials: DynamoDBCredentials;
  /** Stops the server (kills its process group); a no-op for a server given by DYNAMODB_ENDPOINT. */
  stop(): Promise<void>;
  /**
   * Fault injection: SIGSTOP the JVM (connections are accepted by the kernel, nothing answers) until `thaw()`.
   * Throws for a server given by DYNAMODB_ENDPOINT.
   */
  freeze(): void;
  thaw(): void;
  /**
   * Fault injection: SIGKILL the JVM (connections are refused) and resolve when it is gone. Throws for a server given
   * by DYNAMODB_ENDPOINT.
   */
  kill(): Promise<void>;
  /**
   * Starts the server again on the same port after `kill()` or `stop()`, with the same data; needs `onDisk`
   * (an in-memory server would come back empty). Resolves when it answers ListTables.
   */
  restart(): Promise<void>;
};

export type StartDynamoDBOptions = {
  readonly region?: string;
  /** How long to wait for the first answer to ListTables; default 60 s (a cold JVM on a busy 2-core machine). */
  readonly startTimeoutMs?: number;
  /**
   * Keep the tables in a temporary directory (`-dbPath`, on /dev/shm when there is one, removed by `stop()`) instead
   * of in the JVM's memory, so `restart()` brings the same data back.
   */
  readonly onDisk?: boolean;
  /** The port to listen on (default: a free one); for the test that two servers on one port are told apart. */
  readonly port?: number;
};

const defaultRegion = 'us-east-1';
// NOTE: DynamoDB Local 2.x accepts access key ids made of letters and digits only.
const localCredentials: DynamoDBCredentials = { accessKeyId: 'capiserverless', secretAccessKey: 'local' };
const installScript = join(dirname(fileURLToPath(import.meta.url)), 'install-dynamodb-local.sh');

/**
 * Starts DynamoDB Local in memory (or on disk with `onDisk`) on a free loopback port and waits until it answers
 * ListTables.
 *
 * @example
 * const ddb = await startDynamoDB();
 * after(() => ddb.stop());
 * const client = createDynamoDBClient(ddb);
 *
 * @example
 * const ddb = await startDynamoDB({ onDisk: true });
 * await ddb.kill();
 * await ddb.restart(); // same port, same tables
 */
export async function startDynamoDB(opts: StartDynamoDBOptions = {}): Promise<DynamoDBServer> {
  const region = opts.region ?? process.env['AWS_REGION'] ?? defaultRegion;
  const existing = process.env['DYNAMODB_ENDPOINT'];
  if (existing) {
    const external = () => {
      throw new Error('cannot inject faults into a DynamoDB given by DYNAMODB_ENDPOINT');
    };
    return {
      endpoint: existing,
      region,
      credentials: localCredentials,
      stop: () => Promise.resolve(),
      freeze: external,
      thaw: external,
      kill: () => Promise.resolve(external()),
      restart: () => Promise.resolve(external()),
    };
  }
  const installDir = installDynamoDBLocal();
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + startTimeoutMs;
  const dbPath = opts.onDisk ? mkdtempSync(join(dbParentDir(), 'capi-serverless-dynamodb-')) : undefined;
  const removeDbPath = () => {
    if (dbPath) rmSync(dbPath, { recursive: true, force: true });
  };
  let lastError: unknown;
  // NOTE: the free port is found by binding and closing it, so another process may grab it first; retry then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = opts.port ?? (await findFreePort());
    let server = launch(installDir, port, dbPath);
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(endpoint, region, server, deadline);
      return {
        endpoint,
        region,
        credentials: localCredentials,
        stop: async () => {
          await server.stop();
          removeDbPath();
        },
        freeze: () => killGroup(server.child.pid ?? 0, 'SIGSTOP'),
        thaw: () => killGroup(server.child.pid ?? 0, 'SIGCONT'),
        kill: async () => {
          running.delete(server);
          killGroup(server.child.pid ?? 0, 'SIGKILL');
          // NOTE: the child is unreferenced, so a timer keeps the event loop alive until its exit is seen.
          const keepAlive = setInterval(() => undefined, 1_000);
          await server.exited;
          clearInterval(keepAlive);
          server.child.stdin?.destroy();
        },
        restart: async () => {
          if (!dbPath) throw new Error('restart() needs a DynamoDB Local started with { onDisk: true }');
          await server.stop();
          server = await relaunch(installDir, port, dbPath, endpoint, region, Date.now() + startTimeoutMs);
        },
      };
    } catch (err) {
      lastError = err;
      await server.stop();
      if (Date.now() >= deadline) break;
    }
  }
  removeDbPath();
  throw new Error(
    `failed to start DynamoDB Local: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}

/** Launches the server again on a port it had; retries while the port is still being released. */
async function relaunch(
  installDir: string,
  port: number,
  dbPath: string,
  endpoint: string,
  region: string,
  deadline: number,
): Promise<RunningServer> {
  for (;;) {
    const server = launch(installDir, port, dbPath);
    try {
      await waitUntilReady(endpoint, region, server, deadline);
      return server;
    } catch (err) {
      await server.stop();
      if (Date.now() >= deadline) {
        throw new Error(
          `failed to restart DynamoDB Local on port ${port}: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Where `onDisk` tables go: /dev/shm when there is one, else the temporary directory.
 * NOTE: tmpfs outlives the process, which is all a restart needs, without the cost of syncing SQLite to a real disk
 * (on a busy disk that slows every write and so the suite's figures; measured 7.1 s against 3.2 s in one row).
 */
function dbParentDir(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

let installed: string | undefined;

/** Runs the install script once per process (it is itself idempotent across processes) and returns its directory. */
function installDynamoDBLocal(): string {
  if (installed) return installed;
  const result = spawnSync('bash', [installScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = result.stdout.trim().split('\n').at(-1);
  if (result.status !== 0 || !dir) {
    throw new Error(`failed to install DynamoDB Local: ${installScript} exited with ${result.status ?? result.signal}`);
  }
  installed = dir;
  return dir;
}

type RunningServer = {
  readonly child: ChildProcess;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** The last lines the server printed, for error messages. */
  output(): string;
  stop(): Promise<void>;
};

const running = new Set<RunningServer>();

function launch(installDir: string, port: number, dbPath?: string): RunningServer {
  const java = process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'java') : 'java';
  const args = [
    `-Djava.library.path=${join(installDir, 'native')}`,
    '-Dddblocal.host=127.0.0.1',
    '-Dddblocal.exitOnStdinEof=true',
    // NOTE: a small serial-GC heap and the C1 compiler start faster and stay light beside other test servers.
    '-Xms32m',
    '-Xmx512m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-cp',
    [join(installDir, 'launcher'), join(installDir, 'DynamoDBLocal.jar'), join(installDir, 'lib', '*')].join(':'),
    'LoopbackServerRunner',
    ...(dbPath ? ['-dbPath', dbPath] : ['-inMemory']),
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  // NOTE: detached puts the JVM in its own process group so stop() can kill the whole group; stdin stays an open
  // pipe that the launcher watches, so the JVM exits by itself when this process dies without running its handlers.
  const child = spawn(java, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  child.once('error', (err) => keep(Buffer.from(`\n${err.message}\n`)));
  // Forgetting stop() must not keep the test process alive: unreference the child and its pipes.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();

  const server: RunningServer = {
    child,
    exited,
    output: () => tail.trim(),
    stop: async () => {
      running.delete(server);
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      killGroup(child.pid, 'SIGCONT');
      killGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child.pid ?? 0, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      child.stdin?.destroy();
    },
  };
  running.add(server);
  installExitHooks();
  return server;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

let hooksInstalled = false;

/** Kills every server this process started when it exits, including after a failed test or Ctrl-C. */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const killAll = () => {
    for (const server of running) if (server.child.pid !== undefined) killGroup(server.child.pid, 'SIGKILL');
    running.clear();
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      // Re-raise with the default handler restored, so the process still ends the way the signal asked.
      process.kill(process.pid, signal);
    });
  }
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Polls ListTables with a plain HTTP request (DynamoDB Local does not check signatures) until it answers 200. */
/**
 * Whether process `pid` holds the socket listening on loopback `port` (Linux: /proc/net/tcp{,6} and the process's
 * fds). Elsewhere it answers true: the check is skipped.
 */
function holdsListeningPort(pid: number | undefined, port: number): boolean {
  if (process.platform !== 'linux' || pid === undefined) return true;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // NOTE: columns: sl, local address, remote address, state (0A is LISTEN), ..., inode (10th).
      if (cols.length >= 10 && cols[3] === '0A' && cols[1]?.endsWith(hexPort)) inodes.add(cols[9] ?? '');
    }
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      return inode !== undefined && inodes.has(inode);
    } catch {
      return false;
    }
  });
}

async function waitUntilReady(
  endpoint: string,
  region: string,
  server: RunningServer,
  deadline: number,
): Promise<void> {
  const port = Number(new URL(endpoint).port);
  let exited = false;
  void server.exited.then(() => (exited = true));
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    if (exited) throw new Error(`DynamoDB Local exited early: ${server.output() || 'no output'}`);
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: `AWS4-HMAC-SHA256 Credential=${localCredentials.accessKeyId}/20240101/${region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
        },
        body: '{}',
        signal: AbortSignal.timeout(2_000),
      });
      await response.text();
      // NOTE: two test files can pick the same free port at once; the JVM that loses the bind exits a moment later,
      // and until then its file would take the winner's answer for its own and share another file's tables.
      if (response.ok && holdsListeningPort(server.child.pid, port)) return;
      lastError = response.ok ? `another process answers on port ${port}` : `ListTables answered ${response.status}`;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`DynamoDB Local at ${endpoint} did not answer in time (${lastError}): ${server.output()}`);
}
