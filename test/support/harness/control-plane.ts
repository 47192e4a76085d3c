// A real control plane on loopback: etcd + kube-apiserver with TLS and an admin kubeconfig, our CRDs installed.
// Several can run at once (a management cluster and workload clusters); each stops and removes its data on
// stop() and on process exit, even when a test fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveControlPlaneAssets } from '#test/support/harness/assets.ts';
import { createPki, renderKubeconfig, type Pki } from '#test/support/harness/certs.ts';
import { getFreePort } from '#test/support/harness/ports.ts';

export type ControlPlane = {
  readonly name: string;
  readonly server: string;
  /** Admin kubeconfig (YAML text) with embedded certificates. */
  readonly kubeconfig: string;
  /** Path of the admin kubeconfig on disk (for kubectl). */
  readonly kubeconfigPath: string;
  readonly dataDir: string;
  /** etcd's client URL (plain HTTP on loopback; etcd serves its JSON gRPC gateway here, e.g. `/v3/kv/compaction`). */
  readonly etcdUrl: string;
  /** The control plane's CA (and its key), e.g. to issue more client or webhook serving certificates. */
  readonly pki: Pki;
  /** Fault injection: SIGSTOP kube-apiserver (connections stay open, nothing answers) until {@link thawApiServer}. */
  freezeApiServer(): void;
  thawApiServer(): void;
  /** Fault injection: stops kube-apiserver (connections refused) until {@link startApiServer}; etcd keeps running. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and waits until it is ready. */
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
};

export type StartControlPlaneOptions = {
  readonly name?: string;
  /** Print the servers' logs to stderr (default: only on failure). */
  readonly verbose?: boolean;
  readonly startTimeoutMs?: number;
  /** Appended to kube-apiserver's flags, e.g. `['--watch-cache=false']`. */
  readonly extraApiServerArgs?: readonly string[];
};

const running = new Set<{ procs: ChildProcess[]; dir: string }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const cleanup = () => {
    for (const entry of running) {
      for (const proc of entry.procs) killGroup(proc, 'SIGKILL');
      rmSync(entry.dir, { recursive: true, force: true });
    }
    running.clear();
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
}

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
  }
}

function waitForExit(proc: ChildProcess, timeoutMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killGroup(proc, 'SIGKILL');
      resolve();
    }, timeoutMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function startProcess(bin: string, args: string[], logFile: string, verbose: boolean): ChildProcess {
  const proc = spawn(bin, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    if (verbose) process.stderr.write(chunk);
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  proc.on('exit', () => {
    try {
      writeFileSync(logFile, Buffer.concat(chunks));
    } catch {
      // data dir already removed
    }
  });
  (proc as ChildProcess & { logs: () => string }).logs = () => Buffer.concat(chunks).toString('utf8');
  return proc;
}

function logsOf(proc: ChildProcess): string {
  const fn = (proc as ChildProcess & { logs?: () => string }).logs;
  return fn ? fn().split('\n').slice(-30).join('\n') : '';
}

function probe(url: string, pki: Pki): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        ca: readFileSync(pki.caCert),
        cert: readFileSync(pki.adminCert),
        key: readFileSync(pki.adminKey),
        timeout: 2000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  procs: ChildProcess[],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    for (const proc of procs) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(
          `${what}: process ${proc.spawnfile} exited (${proc.exitCode ?? proc.signalCode}):\n${logsOf(proc)}`,
        );
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not ready after ${timeoutMs} ms:\n${procs.map(logsOf).join('\n---\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts etcd and kube-apiserver on random loopback ports.
 *
 * @example
 * const mgmt = await startControlPlane({ name: 'mgmt' });
 * try { ... } finally { await mgmt.stop(); }
 */
export async function startControlPlane(options: StartControlPlaneOptions = {}): Promise<ControlPlane> {
  // NOTE: a free port can be taken by another test process between the kernel's answer and etcd's bind; start again
  // on fresh ports then (the failed attempt cleans up after itself).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startControlPlaneOnce(options);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
}

async function startControlPlaneOnce(options: StartControlPlaneOptions): Promise<ControlPlane> {
  const name = options.name ?? 'test';
  const verbose = options.verbose ?? process.env['HARNESS_VERBOSE'] === '1';
  const assets = resolveControlPlaneAssets();
  installExitHook();
  const dir = mkdtempSync(join(tmpdir(), `capi-serverless-${name}-`));
  const entry = { procs: [] as ChildProcess[], dir };
  running.add(entry);
  try {
    const pki = createPki(dir);
    const [etcdClient, etcdPeer, apiPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const etcd = startProcess(
      assets.etcd,
      [
        '--name',
        'default',
        '--data-dir',
        join(dir, 'etcd'),
        '--listen-client-urls',
        etcdUrl,
        '--advertise-client-urls',
        etcdUrl,
        '--listen-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-cluster',
        `default=http://127.0.0.1:${etcdPeer}`,
        '--unsafe-no-fsync',
        '--log-level',
        'warn',
      ],
      join(dir, 'etcd.log'),
      verbose,
    );
    entry.procs.push(etcd);
    const apiServerArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      '--service-account-issuer=https://localhost',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--endpoint-reconciler-type=none',
      '--v=0',
      ...(options.extraApiServerArgs ?? []),
    ];
    const launchApiServer = () => {
      const proc = startProcess(assets.kubeApiServer, apiServerArgs, join(dir, 'kube-apiserver.log'), verbose);
      entry.procs.push(proc);
      return proc;
    };
    let apiserver = launchApiServer();
    const server = `https://127.0.0.1:${apiPort}`;
    const waitUntilReady = () =>
      waitUntil(
        `kube-apiserver ${name}`,
        async () => (await probe(`${server}/readyz`, pki)) === 200,
        options.startTimeoutMs ?? 60_000,
        entry.procs,
      );
    await waitUntilReady();
    const kubeconfig = renderKubeconfig(name, server, pki);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfig);
    return {
      name,
      server,
      kubeconfig,
      kubeconfigPath,
      dataDir: dir,
      etcdUrl,
      pki,
      freezeApiServer: () => killGroup(apiserver, 'SIGSTOP'),
      thawApiServer: () => killGroup(apiserver, 'SIGCONT'),
      async stopApiServer() {
        killGroup(apiserver, 'SIGCONT');
        killGroup(apiserver, 'SIGTERM');
        await waitForExit(apiserver, 5000);
        killGroup(apiserver, 'SIGKILL');
        entry.procs.splice(entry.procs.indexOf(apiserver), 1);
      },
      async startApiServer() {
        apiserver = launchApiServer();
        await waitUntilReady();
      },
      async stop() {
        killGroup(apiserver, 'SIGCONT');
        killGroup(apiserver, 'SIGTERM');
        await waitForExit(apiserver, 5000);
        killGroup(etcd, 'SIGTERM');
        await waitForExit(etcd, 5000);
        rmSync(dir, { recursive: true, force: true });
        running.delete(entry);
      },
    };
  } catch (err) {
    for (const proc of entry.procs) killGroup(proc, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    running.delete(entry);
    throw err;
  }
}
