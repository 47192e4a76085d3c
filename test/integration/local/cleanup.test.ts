// `npm start` stopped with Ctrl-C after its dependencies died under it (kube-apiserver, etcd, DynamoDB Local):
// cleanup is unconditional, so no etcd, kube-apiserver or java process and no temporary folder holding the admin
// key is left behind. On the way it checks that local mode is production's behaviour: the same admission webhooks
// reject what production rejects, and the console shows no raw metrics and no warnings.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { applyObject, createKubeClient, KubeInvalidError } from '#shared/kube/index.ts';

const repo = new URL('../../../', import.meta.url).pathname;

/** Live processes as pid and command line (those that vanish while being read are skipped). */
function processes(): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      out.push({ pid: Number(pid), cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** What production's webhooks reject is rejected locally: a ClusterResourceSet with an empty selector. */
async function assertWebhookRejects(output: string): Promise<void> {
  const kubeconfigPath = /kubeconfig: +(\S+)/.exec(output)?.[1];
  assert.ok(kubeconfigPath, output);
  const kube = await createKubeClient({ kubeconfigPath });
  try {
    await assert.rejects(
      applyObject(
        kube,
        {
          apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
          kind: 'ClusterResourceSet',
          metadata: { namespace: 'default', name: 'empty-selector' },
          spec: { clusterSelector: {}, resources: [{ kind: 'ConfigMap', name: 'calico' }] },
        },
        { fieldManager: 'cleanup-test' },
      ),
      (err: unknown) => err instanceof KubeInvalidError && /selector must not be empty/.test(err.message),
    );
  } finally {
    kube.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('npm start cleanup', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'capi-serverless-cleanup-test-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test('Ctrl-C after kube-apiserver, etcd and DynamoDB Local died leaves no process and no data folder', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TMPDIR: tmp,
      CAPI_SERVERLESS_EXAMPLES: '0',
      CAPI_SERVERLESS_UPSTREAM: '0',
      CAPI_SERVERLESS_TICK_MS: '1000',
    };
    delete env['KUBECONFIG'];
    delete env['DYNAMODB_ENDPOINT'];
    const child = spawn('npm', ['start', '--silent'], { cwd: repo, env, detached: true, stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const pid = child.pid ?? 0;
    try {
      for (let i = 0; i < 240 && !/Ctrl-C stops everything/.test(output); i++) await sleep(500);
      assert.match(output, /Ctrl-C stops everything/, output);
      // NOTE: a few ticks run meanwhile; their metrics must not reach the console as raw EMF JSON.
      await sleep(3_000);
      assert.doesNotMatch(output, /"_aws"|CloudWatchMetrics/, 'no raw EMF metric documents on the console');
      assert.doesNotMatch(output, /Warning|\(node:\d+\)/, 'no warnings in a normal run');
      await assertWebhookRejects(output);
      const ddbPort = /DynamoDB Local: +http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      assert.ok(ddbPort, output);
      const victims = processes().filter(
        (p) => (p.cmd.includes(tmp) && /kube-apiserver|etcd/.test(p.cmd)) || p.cmd.includes(`-port ${ddbPort}`),
      );
      assert.ok(victims.length >= 3, `found kube-apiserver, etcd and java: ${victims.map((v) => v.cmd).join('\n')}`);
      for (const victim of victims) process.kill(victim.pid, 'SIGKILL');
      await sleep(2_000);
      process.kill(-pid, 'SIGINT');
      const code = await Promise.race([exited, sleep(90_000).then(() => 'hung' as const)]);
      assert.notEqual(code, 'hung', `npm start did not exit within 90 s after Ctrl-C:\n${output}`);
      await sleep(1_000);
      const left = processes().filter((p) => p.cmd.includes(tmp) || p.cmd.includes(`-port ${ddbPort}`));
      assert.deepEqual(
        left.map((p) => p.cmd),
        [],
        'no etcd, kube-apiserver or DynamoDB Local process is left',
      );
      assert.deepEqual(
        readdirSync(tmp).filter((e) => e.startsWith('capi-serverless-')),
        [],
        'no data folder (admin key, etcd data) is left',
      );
    } finally {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      for (const p of processes().filter((q) => q.cmd.includes(tmp))) process.kill(p.pid, 'SIGKILL');
    }
  });
});
