// Child processes the harness runs beside a control plane (kube-controller-manager, upstream Cluster API's managers):
// started in their own process group, output captured (printed on failure, or live with HARNESS_VERBOSE=1), killed on
// stop() and on process exit even when a test fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';

export type HarnessProcess = {
  readonly name: string;
  readonly proc: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr interleaved). */
  logs(): string;
  /** The last `lines` lines of its output. */
  tail(lines?: number): string;
  exited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
};

const running = new Set<HarnessProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of running) killGroup(p.proc, 'SIGKILL');
  });
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

/** Spawns `bin args` detached (own process group) with output captured. */
export function startHarnessProcess(
  name: string,
  bin: string,
  args: readonly string[],
  opts: { verbose?: boolean; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): HarnessProcess {
  installExitHook();
  const verbose = opts.verbose ?? process.env['HARNESS_VERBOSE'] === '1';
  const proc = spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    if (verbose) process.stderr.write(`[${name}] ${chunk.toString('utf8')}`);
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  const handle: HarnessProcess = {
    name,
    proc,
    logs: () => Buffer.concat(chunks).toString('utf8'),
    tail: (lines = 40) => handle.logs().split('\n').slice(-lines).join('\n'),
    exited,
    async stop(graceMs = 5000) {
      running.delete(handle);
      if (exited()) return;
      const done = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      killGroup(proc, 'SIGTERM');
      const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
  proc.on('error', (err) => chunks.push(Buffer.from(`spawn ${bin}: ${err.message}\n`)));
  running.add(handle);
  return handle;
}

/** GET over HTTPS on loopback without verifying the (self-signed) serving certificate; 0 when unreachable. */
export function probeLoopback(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** GET over plain HTTP on loopback; 0 when unreachable. */
export async function probeHttp(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Polls `check` until true; fails early (with the processes' logs) when one of them exits. */
export async function waitForProcesses(
  what: string,
  check: () => Promise<boolean>,
  procs: readonly HarnessProcess[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    const dead = procs.find((p) => p.exited());
    if (dead) {
      throw new Error(
        `${what}: ${dead.name} exited (${dead.proc.exitCode ?? dead.proc.signalCode}):\n${dead.tail(60)}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not ready after ${timeoutMs} ms:\n${procs.map((p) => `--- ${p.name}\n${p.tail(30)}`).join('\n')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
