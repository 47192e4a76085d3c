// The harness's cross-process exclusive lock (test/support/harness/exclusive-lock.ts), which queues the test files that start
// upstream's Docker in-memory manager (fixed port 19000): real processes contending for a real lock file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  acquireExclusiveLock,
  dockerInMemoryPortLockPath,
  networkNamespaceId,
  readLockHolder,
} from '#test/support/harness/exclusive-lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-lock-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const lockModule = new URL('../../support/harness/exclusive-lock.ts', import.meta.url).href;

/** A node process that takes the lock, says `held` on stdout, keeps it `holdMs`, then releases it and exits. */
function holdInChild(path: string, holdMs: number): Promise<{ held: Promise<number>; exited: Promise<number> }> {
  const script = `
    const { acquireExclusiveLock } = await import(${JSON.stringify(lockModule)});
    const lock = await acquireExclusiveLock(${JSON.stringify(path)}, { holder: 'child' });
    process.stdout.write('held\\n');
    await new Promise((r) => setTimeout(r, ${holdMs}));
    const releasingAt = Date.now();
    lock.release();
    process.stdout.write('released at ' + releasingAt + '\\n');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const held = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('held')) resolve(Date.now());
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before holding the lock: ${out}`)));
  });
  // NOTE: the child's own clock just before it released (same machine): when the parent saw it exit says nothing under
  // load, since a process's teardown can take longer than the parent's poll of the lock file.
  const exited = new Promise<number>((resolve, reject) =>
    child.on('exit', () => {
      const m = /released at (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
      else reject(new Error(`child exited without releasing: ${out}`));
    }),
  );
  return Promise.resolve({ held, exited });
}

test('a second process waits, with a progress line, until the holder releases, then gets the lock', async () => {
  const path = join(dir, 'queue.lock');
  const child = await holdInChild(path, 2_000);
  await child.held;
  assert.equal(readLockHolder(path)?.what, 'child');
  const lines: string[] = [];
  const lock = await acquireExclusiveLock(path, {
    purpose: 'the test resource',
    progressEveryMs: 500,
    log: (l) => lines.push(l),
  });
  const acquiredAt = Date.now();
  try {
    const releasingAt = await child.exited;
    assert.ok(acquiredAt >= releasingAt, 'acquired only once the child had released');
    assert.ok(lines.length >= 1, 'printed at least one progress line while waiting');
    assert.match(lines[0] ?? '', /^waiting for the test resource: held by pid \d+ \(child\)/);
    assert.equal(readLockHolder(path)?.pid, process.pid);
  } finally {
    lock.release();
  }
  assert.equal(existsSync(path), false, 'release removes the lock file');
});

test('a lock left by a process that died is stale and taken over at once', async () => {
  const path = join(dir, 'stale.lock');
  const dead = spawn(process.execPath, ['-e', '']);
  const deadPid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid ?? 0)));
  writeFileSync(path, `${deadPid} some-token crashed test\n`);
  const started = Date.now();
  const lock = await acquireExclusiveLock(path, { timeoutMs: 5_000 });
  try {
    assert.ok(Date.now() - started < 2_000, 'no wait for a dead holder');
    assert.equal(readLockHolder(path)?.pid, process.pid);
  } finally {
    lock.release();
  }
});

test('two holders in one process queue; releasing the first twice does not remove the second', async () => {
  const path = join(dir, 'same-process.lock');
  const first = await acquireExclusiveLock(path);
  let secondAcquired = false;
  const second = acquireExclusiveLock(path, { pollMs: 50 }).then((l) => {
    secondAcquired = true;
    return l;
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(secondAcquired, false, 'the second waits while the first holds the lock');
  first.release();
  const lock = await second;
  first.release();
  assert.ok(existsSync(path), "the first's second release left the second's lock in place");
  lock.release();
  assert.equal(existsSync(path), false);
});

test('a waiter gives up after its timeout with an error naming the holder', async () => {
  const path = join(dir, 'timeout.lock');
  const child = await holdInChild(path, 3_000);
  await child.held;
  await assert.rejects(
    acquireExclusiveLock(path, { timeoutMs: 500, purpose: 'the test resource', log: () => undefined }),
    /lock .*timeout\.lock \(the test resource\): still held by pid \d+ \(child\) after \d+ s/,
  );
  await child.exited;
});

test('the port-19000 lock is per network namespace: a process in another namespace gets another lock file, and test/run.mjs gives each run its own', async (t) => {
  if (process.env.CAPI_SERVERLESS_NETNS === '0') t.skip('CAPI_SERVERLESS_NETNS=0: this run shares the host namespace');
  const script = `const m = await import(${JSON.stringify(lockModule)}); process.stdout.write(m.dockerInMemoryPortLockPath());`;
  const pathIn = (flags: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        'unshare',
        [...flags, process.execPath, '--import', 'tsx', '--input-type=module', '-e', script],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`unshare exited ${code}`))));
    });
  const flags = process.getuid?.() === 0 ? ['-n'] : ['-rn'];
  const [a, b] = await Promise.all([pathIn(flags), pathIn(flags)]);
  assert.match(a, /capi-serverless-docker-in-memory-19000-net\d+\.lock$/);
  assert.notEqual(a, b, 'two private namespaces, two locks');
  assert.notEqual(dockerInMemoryPortLockPath(), a);
  // NOTE: this file itself runs under test/run.mjs, in a namespace of its own, not the one run.mjs started in.
  assert.ok(process.env.CAPI_SERVERLESS_HOST_NETNS, 'test/run.mjs found a private network namespace');
  assert.notEqual(networkNamespaceId(), process.env.CAPI_SERVERLESS_HOST_NETNS);
});
