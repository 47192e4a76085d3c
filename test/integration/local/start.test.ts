// `npm start` as a user runs it, with CAPI_SERVERLESS_EXIT_WHEN_READY=1: it reaches a reconciled Cluster (the example's
// MachineDeployment exists) and an applied ClusterResourceSet (the workload cluster has the ConfigMap's object), exits
// 0, and leaves no servers or temporary directories behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const repo = new URL('../../../', import.meta.url).pathname;

/** Command lines of every live process (those that vanish while being read are skipped). */
function processCommandLines(): string[] {
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

function runNpmStart(tmp: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: tmp,
    CAPI_SERVERLESS_EXIT_WHEN_READY: '1',
    CAPI_SERVERLESS_READY_TIMEOUT_MS: String(timeoutMs - 60_000),
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

describe('npm start', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'capi-serverless-start-test-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test('reaches a reconciled Cluster and an applied ClusterResourceSet, then exits 0 leaving nothing behind', async () => {
    const { code, output } = await runNpmStart(tmp, 300_000);
    assert.equal(code, 0, output);
    assert.match(output, /kubeconfig: +\S+kubeconfig/);
    assert.match(output, /topology +Cluster default\/docker-1 → Success/);
    assert.match(output, /\+ created MachineDeployment default\/docker-1-md-0-/);
    assert.match(output, /addons +ClusterResourceSet default\/demo-cni → Success/);
    assert.match(output, /\+ applied ConfigMap kube-system\/demo-cni-settings in Cluster default\/docker-1/);
    assert.match(
      output,
      /reconciled: Cluster default\/docker-1 has MachineDeployment docker-1-md-0-\S+; the workload cluster has ConfigMap kube-system\/demo-cni-settings/,
    );
    assert.match(output, /stopped; all servers and their data are gone/);

    const leftDirs = readdirSync(tmp).filter((e) => e.startsWith('capi-serverless-'));
    assert.deepEqual(leftDirs, [], 'the control planes removed their data directories');
    const ddbPort = /DynamoDB Local: +http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    assert.ok(ddbPort, 'the DynamoDB Local endpoint was printed');
    const left = processCommandLines().filter((cmd) => cmd.includes(tmp) || cmd.includes(`-port ${ddbPort}`));
    assert.deepEqual(left, [], 'no server process is left running');
  });
});
