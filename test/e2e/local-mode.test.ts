// `npm start` by default, as a user runs it: the full plane — upstream Cluster API v1.14.2's managers (core, kubeadm
// bootstrap, kubeadm control plane, Docker provider with its in-memory backend) in the handoff configuration beside
// capi-serverless — with CAPI_SERVERLESS_EXIT_WHEN_READY=1. Upstream's own in-memory ClusterClass and Cluster get real
// Machines (a control-plane and a worker Machine Running), the ClusterResourceSet lands in the in-memory workload
// cluster (created by capi-serverless, not by upstream's ClusterResourceSet controller), and it exits 0 leaving no server, manager or temporary directory behind.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { processCommandLines, runNpmStart } from '#test/support/harness/npm-start.ts';

describe('npm start (the full plane beside upstream Cluster API)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'capi-serverless-local-mode-test-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test("upstream's in-memory Cluster gets running Machines and its add-on, then everything stops", async () => {
    const started = Date.now();
    const { code, output } = await runNpmStart(tmp, 900_000);
    assert.equal(code, 0, output);
    assert.match(output, /upstream managers: +core, bootstrap-kubeadm, control-plane-kubeadm, infrastructure-docker/);
    assert.match(output, /topology +Cluster default\/in-memory-1 → Success/);
    assert.match(output, /\+ created MachineDeployment default\/in-memory-1-md-0-/);
    // Which implementation applied the add-on, from the in-memory workload API server's request counts by user agent:
    // capi-serverless, never upstream's own ClusterResourceSet controller (which once did, when capi-serverless shared
    // its finalizer; docs/beside-upstream.md).
    assert.match(output, /addons +ClusterResourceSet default\/demo-cni → /);
    assert.match(
      output,
      /reconciled: Cluster default\/in-memory-1 runs Machines .*\(control plane\).*on upstream's managers; the workload cluster has ConfigMap kube-system\/demo-cni-settings/,
    );
    assert.match(
      output,
      /the workload cluster has ConfigMap kube-system\/demo-cni-settings, created by capi-serverless \(upstream's core manager wrote no ConfigMap there\)/,
    );
    assert.doesNotMatch(output, /WRITTEN BY UPSTREAM/);
    assert.match(output, /stopped; all servers and their data are gone/);

    const leftDirs = readdirSync(tmp).filter((e) => e.startsWith('capi-serverless-'));
    assert.deepEqual(leftDirs, [], 'the control planes and managers removed their directories');
    const left = processCommandLines().filter((cmd) => cmd.includes(tmp));
    assert.deepEqual(left, [], 'no server or manager process is left running');
    console.log(`npm start, full plane, to reconciled and stopped: ${Math.round((Date.now() - started) / 1000)} s`);
  });
});
