// 410 Gone: the forwarder's watch expires, it relists and emits what changed (SYNC) and what vanished (DELETED).
// NOTE: this test scripts the API server's watch protocol on loopback (discovery, list, then an ERROR event carrying
// a 410 Status, as kube-apiserver sends it) to pin the exact order of requests; forwarder-compaction.test.ts gets
// the same 410 from a real kube-apiserver over a really compacted etcd.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createKubeClient } from '#shared/kube/index.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';

const cm = (name: string, rv: string) => ({
  metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv },
  data: {},
});

test('after 410 Gone the forwarder relists and sends changed and vanished objects, then watches from the new list', async () => {
  const lists = [
    { metadata: { resourceVersion: '10' }, items: [cm('a', '5'), cm('b', '6')] },
    { metadata: { resourceVersion: '20' }, items: [cm('a', '5'), cm('c', '18')] },
  ];
  const watchVersions: string[] = [];
  let listCount = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/api/v1') {
      res.end(
        JSON.stringify({
          kind: 'APIResourceList',
          resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }],
        }),
      );
      return;
    }
    if (url.searchParams.get('watch') !== 'true') {
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', ...lists[Math.min(listCount++, 1)] }));
      return;
    }
    watchVersions.push(url.searchParams.get('resourceVersion') ?? '');
    if (watchVersions.length === 1) {
      const status = {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Expired',
        code: 410,
        message: 'too old resource version: 10 (15)',
      };
      // NOTE: later than the outbox's coalescing window, so the first list is sent before the relist.
      setTimeout(() => res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`), 300);
      return;
    }
    // The second watch stays open until the test ends.
    res.write('');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
    'users: [{name: fake, user: {token: t}}]',
    'contexts: [{name: fake, context: {cluster: fake, user: fake}}]',
    'current-context: fake',
  ].join('\n');
  const kube = await createKubeClient({ kubeconfig });
  const sent: ObjectChange[] = [];
  const forwarder = startForwarder({
    kube,
    source: { kubeconfig },
    targets: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns' }],
    sink: (batch) => {
      sent.push(...batch);
      return Promise.resolve([]);
    },
    coalesceMs: 10,
  });
  try {
    const deadline = Date.now() + 10_000;
    while (watchVersions.length < 2 || sent.length < 4) {
      if (Date.now() > deadline) throw new Error(`timed out: watches ${watchVersions.join(',')}, sent ${sent.length}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await forwarder.outbox.flush();
    // NOTE: a relist's SYNC entries wait for the coalescing window while a DELETED goes out at once (an object's first
    // change in a window), so only the entries sent, not their order across objects, are compared.
    assert.deepEqual(sent.map((c) => `${c.type} ${c.name}@${c.resourceVersion ?? ''}`).sort(), [
      'DELETED b@',
      'SYNC a@5',
      'SYNC b@6',
      'SYNC c@18',
    ]);
    assert.deepEqual(watchVersions, ['10', '20'], 'the watch resumes from the relist, not from the expired version');
    assert.equal(forwarder.watchers.get('v1/ConfigMap')?.stats.gone, 1);
  } finally {
    await forwarder.stop();
    kube.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
