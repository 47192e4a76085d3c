// A cross-process exclusive lock on a file, for harness resources that cannot be shared: upstream's
// Docker provider in-memory backend always binds port 19000 (not configurable in v1.14), so two test files starting
// it at once collide. The holder's pid is in the file (created with O_EXCL); a lock whose holder has died is stale and
// taken over. Waiters poll and print a progress line, so concurrent users queue instead of failing.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

export type ExclusiveLock = {
  readonly path: string;
  /** Removes the lock file if this process still holds it; idempotent. */
  release(): void;
};

export type AcquireLockOptions = {
  /** Give up after this long (default: 30 minutes, longer than any test file that holds it). */
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  /** How often a waiter prints a progress line (default: every 10 s). */
  readonly progressEveryMs?: number;
  /** Where progress lines go (default: stderr). */
  readonly log?: (line: string) => void;
  /** What the lock guards, for the progress line. */
  readonly purpose?: string;
  /** Who holds it, written into the file next to the pid (default: this process's argv). */
  readonly holder?: string;
};

/**
 * This process's network namespace (the inode of /proc/self/ns/net), or undefined off Linux. A port belongs to a
 * network namespace, so `test/run.mjs` runs each suite in a private one (`unshare -n`) and suites stop contending for
 * port 19000.
 */
export function networkNamespaceId(): string | undefined {
  try {
    return String(statSync('/proc/self/ns/net').ino);
  } catch {
    return undefined;
  }
}

/**
 * The lock file of the Docker in-memory manager's fixed port. NOTE: a port is per network namespace, so the lock is
 * too: keyed by the namespace, in the system's /tmp, not os.tmpdir() (a test may run `npm start` with a private
 * TMPDIR, which then started the manager while another process of the same namespace held the lock elsewhere).
 */
export function dockerInMemoryPortLockPath(netns: string | undefined = networkNamespaceId()): string {
  return join('/tmp', `capi-serverless-docker-in-memory-19000${netns === undefined ? '' : `-net${netns}`}.lock`);
}

export const dockerInMemoryPortLock = dockerInMemoryPortLockPath();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // NOTE: EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock is stale when its holder has died; a file without a valid pid is one being written (between create and
 * write), stale only once it is older than a few seconds (its writer died in between).
 */
function isStale(path: string, pid: number): boolean {
  if (Number.isInteger(pid) && pid > 0) return !isAlive(pid);
  try {
    return Date.now() - statSync(path).mtimeMs > 5_000;
  } catch {
    return false;
  }
}

/** The holder written in the lock file (`<pid> <token> <what>`), or undefined when the file is absent. */
export function readLockHolder(path: string): { pid: number; token: string; what: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const [pid, token, ...rest] = text.trim().split(' ');
  return { pid: Number(pid), token: token ?? '', what: rest.join(' ') };
}

function tryCreate(path: string, token: string, holder: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid} ${token} ${holder}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Acquires the exclusive lock at `path`, waiting (with a progress line) while a live process holds it. A lock
 * file whose pid is dead is removed and taken over. Release it in a `finally`; a process that exits without
 * releasing leaves a stale file the next user takes over.
 *
 * @example
 * const lock = await acquireExclusiveLock(dockerInMemoryPortLock, { purpose: 'upstream Docker in-memory manager (port 19000)' });
 * try { ... } finally { lock.release(); }
 */
export async function acquireExclusiveLock(path: string, opts: AcquireLockOptions = {}): Promise<ExclusiveLock> {
  const holder = opts.holder ?? process.argv.slice(1).join(' ').slice(0, 200);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // NOTE: a token per acquisition, so two holders in one process (one after the other) never release each other's.
  const token = randomUUID();
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? 30 * 60_000;
  let lastProgress = started;
  for (;;) {
    if (tryCreate(path, token, holder)) break;
    const current = readLockHolder(path);
    if (current && isStale(path, current.pid)) {
      // NOTE: stale (its holder died without releasing): remove it only if it is still the same file content, so
      // two waiters noticing the same stale lock do not remove each other's fresh one.
      const again = readLockHolder(path);
      if (again && again.token === current.token) {
        try {
          unlinkSync(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      continue;
    }
    const waited = Date.now() - started;
    if (waited > timeoutMs)
      throw new Error(
        `lock ${path}${opts.purpose ? ` (${opts.purpose})` : ''}: still held by pid ${current?.pid ?? '?'} (${current?.what ?? ''}) after ${Math.round(waited / 1000)} s`,
      );
    if (Date.now() - lastProgress >= (opts.progressEveryMs ?? 10_000)) {
      lastProgress = Date.now();
      log(
        `waiting for ${opts.purpose ?? path}: held by pid ${current?.pid ?? '?'} (${current?.what ?? ''}), ${Math.round(waited / 1000)} s so far`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 250));
  }
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      if (readLockHolder(path)?.token !== token) return;
      try {
        unlinkSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    },
  };
}
