// `npm start` in its fast mode (CAPI_SERVERLESS_UPSTREAM=0: no upstream manager; the full plane, the default, is
// test/e2e/local-mode.test.ts) as a user runs it, with CAPI_SERVERLESS_EXIT_WHEN_READY=1: it reaches a reconciled
// Cluster (the example's MachineDeployment exists) and an applied ClusterResourceSet (the workload cluster has the
// ConfigMap's object), exits 0, and leaves no servers or temporary directories behind.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { processCommandLines, runNpmStart } from '#test/support/harness/npm-start.ts';

describe('npm start', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'capi-serverless-start-test-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test('reaches a reconciled Cluster and an applied ClusterResourceSet, then exits 0 leaving nothing behind', async () => {
    const { code, output } = await runNpmStart(tmp, 300_000, { CAPI_SERVERLESS_UPSTREAM: '0' });
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
