// The shipped API Priority and Fairness objects (the chart's files/flow-control.yaml) on a real
// kube-apiserver: accepted as written, and a request from the functions' group or the forwarder's ServiceAccount is
// served by the `capi-serverless` priority level (the API server names it in every response's
// X-Kubernetes-PF-PriorityLevel-UID header), while another authenticated user stays in global-default.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { applyObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import { issueCertificate } from '#test/support/harness/certs.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { chartFile } from '../../../infra/chart/chart-files.ts';

const manifest = chartFile('flow-control.yaml');

/**
 * GET /api/v1/namespaces as a client-certificate user or with a bearer token; answers the uid of the priority level
 * the server says served it (flow control classifies before authorization, so a refused request names it too).
 */
function priorityLevelOf(mgmt: TestCluster, as: { cert: string; key: string } | { token: string }): Promise<string> {
  const { pki, server } = mgmt.controlPlane;
  const credentials =
    'token' in as
      ? { headers: { authorization: `Bearer ${as.token}` } }
      : { cert: readFileSync(as.cert), key: readFileSync(as.key) };
  return new Promise((resolve, reject) => {
    const req = request(`${server}/api/v1/namespaces`, { ca: readFileSync(pki.caCert), ...credentials }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.headers['x-kubernetes-pf-prioritylevel-uid'] ?? '')));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the shipped flow-control objects on a real API server', () => {
  let mgmt: TestCluster;
  let dir: string;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'flow-control' });
    dir = mkdtempSync(join(tmpdir(), 'flow-control-'));
  });
  after(async () => {
    await mgmt?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the functions and the forwarder land in the capi-serverless priority level, other users do not', async () => {
    const objects = parseAllDocuments(readFileSync(manifest, 'utf8')).map((d) => d.toJS() as KubeObject);
    for (const o of objects) await applyObject(mgmt.kube, o, { fieldManager: 'test-user', force: true });
    const level = await getObject(mgmt.kube, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      name: 'capi-serverless',
    });
    const other = await getObject(mgmt.kube, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      name: 'global-default',
    });
    const { pki } = mgmt.controlPlane;
    const functions = issueCertificate(pki, dir, 'topology', {
      user: 'capi-serverless-topology',
      // NOTE: the group the stack's EKS access entry gives the topology function's role.
      groups: ['capi-serverless:topology'],
    });
    // NOTE: the forwarder is a ServiceAccount: its token comes from the TokenRequest API, as in a Pod.
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-serverless-system' } },
      {
        fieldManager: 'test-user',
      },
    );
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { namespace: 'capi-serverless-system', name: 'capi-serverless-forwarder' },
      },
      { fieldManager: 'test-user' },
    );
    const forwarder = await mgmt.kube.request<{ status: { token: string } }>({
      method: 'POST',
      path: '/api/v1/namespaces/capi-serverless-system/serviceaccounts/capi-serverless-forwarder/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
      target: {
        verb: 'create token for',
        kind: 'ServiceAccount',
        namespace: 'capi-serverless-system',
        name: 'capi-serverless-forwarder',
      },
    });
    const stranger = issueCertificate(pki, dir, 'stranger', { user: 'someone', groups: [] });
    // NOTE: the API server's flow-control configuration follows the objects asynchronously: ask until it does.
    const deadline = Date.now() + 30_000;
    let seen = '';
    while (Date.now() < deadline) {
      seen = await priorityLevelOf(mgmt, functions);
      if (seen === level.metadata.uid) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(seen, level.metadata.uid, 'the functions group is served by capi-serverless');
    assert.equal(
      await priorityLevelOf(mgmt, { token: forwarder.status.token }),
      level.metadata.uid,
      'so is the forwarder',
    );
    assert.equal(await priorityLevelOf(mgmt, stranger), other.metadata.uid, 'another user stays in global-default');
    const spec = level['spec'] as { limited: { nominalConcurrencyShares: number; lendablePercent?: number } };
    assert.deepEqual([spec.limited.nominalConcurrencyShares, spec.limited.lendablePercent], [100, 90]);
  });
});
