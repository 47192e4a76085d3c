// `npm start` run as a user runs it, for the tests of the local mode: a detached process group in a private TMPDIR,
// its output collected, Ctrl-C (SIGINT to the group) when it overruns.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const repo = new URL('../../../', import.meta.url).pathname;

/** Command lines of every live process (those that vanish while being read are skipped). */
export function processCommandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // gone meanwhile
    }
  }
  return lines;
}

/**
 * Runs `npm start` with CAPI_SERVERLESS_EXIT_WHEN_READY=1 and `env` until it exits (SIGINT after `timeoutMs`; the
 * ready timeout is a minute shorter).
 *
 * @example
 * const { code, output } = await runNpmStart(tmp, 300_000, { CAPI_SERVERLESS_UPSTREAM: '0' });
 */
export function runNpmStart(
  tmp: string,
  timeoutMs: number,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: tmp,
    CAPI_SERVERLESS_EXIT_WHEN_READY: '1',
    CAPI_SERVERLESS_READY_TIMEOUT_MS: String(timeoutMs - 60_000),
    ...extraEnv,
  };
  // NOTE: both would point the local mode at servers that already exist.
  delete env['KUBECONFIG'];
  delete env['DYNAMODB_ENDPOINT'];
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repo,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
