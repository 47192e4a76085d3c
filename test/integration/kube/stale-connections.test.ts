// Kept-alive sockets the other end closed while the client was idle or frozen, on a real kube-apiserver behind a
// proxy that ends idle connections (test/support/harness/idle-proxy.ts): a request whose replay is harmless is sent once
// more on a fresh connection and succeeds; a create with generateName is not sent twice: it fails, naming why,
// and no object is created behind the caller's back.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import {
  applyObject,
  createKubeClient,
  createObject,
  deleteObject,
  getObject,
  KubeUnavailableError,
  listObjects,
  type KubeClient,
  type RequestRecord,
} from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  freezeThisThread,
  startIdleProxy,
  type IdleProxy,
  type IdleProxyMode,
} from '#test/support/harness/idle-proxy.ts';

const idleMs = 300;
const fieldManager = 'stale-connections';

describe('requests on kept-alive sockets the server closed', () => {
  let mgmt: TestCluster;
  const proxies: IdleProxy[] = [];
  const clients: KubeClient[] = [];
  before(async () => {
    mgmt = await startManagementCluster({ name: 'stale', crds: 'none' });
  });
  after(async () => {
    for (const kube of clients) kube.close();
    await Promise.all(proxies.map((p) => p.stop()));
    await mgmt?.stop();
  });

  /** A client through a fresh proxy, with the records of its requests. */
  async function clientThrough(mode: IdleProxyMode) {
    const server = new URL(mgmt.controlPlane.server);
    const proxy = await startIdleProxy(server.hostname, Number(server.port), { idleMs, mode });
    proxies.push(proxy);
    const records: RequestRecord[] = [];
    const kube = await createKubeClient(
      { kubeconfig: mgmt.controlPlane.kubeconfig.replace(mgmt.controlPlane.server, `https://127.0.0.1:${proxy.port}`) },
      { onRequest: (r) => records.push(r) },
    );
    clients.push(kube);
    return { kube, proxy, records };
  }

  const configMap = (name: string, v: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'default', name },
    data: { v },
  });

  test('a GET right after a freeze past the idle timeout succeeds on a fresh connection', async () => {
    const { kube, proxy, records } = await clientThrough('close');
    const ref = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };
    await getObject(kube, ref);
    await sleep(50);
    freezeThisThread(idleMs * 4);
    // NOTE: no await between the thaw and the request: the socket's end is still unread when it is reused.
    const namespace = await getObject(kube, ref);
    assert.equal(namespace.metadata.name, 'default');
    assert.equal(await proxy.idleEnded(), 1, 'the kept-alive connection was closed while frozen');
    assert.deepEqual(
      records.map((r) => [r.method, r.statusCode]),
      [
        ['GET', 200],
        ['GET', 0],
        ['GET', 200],
      ],
      'the first attempt met the closed socket, the second a fresh one',
    );
  });

  test('server-side apply and a delete with a precondition succeed after the load balancer dropped the connection', async () => {
    const { kube, proxy, records } = await clientThrough('drop');
    await applyObject(kube, configMap('sa-1', 'one'), { fieldManager });
    await sleep(idleMs * 2);
    const applied = await applyObject(kube, configMap('sa-1', 'two'), { fieldManager });
    assert.deepEqual(applied['data'], { v: 'two' });
    // NOTE: the replay emptied the pool; a read puts a kept-alive connection back in it for the delete to meet.
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'sa-1' };
    await getObject(kube, ref);
    await sleep(idleMs * 2);
    assert.equal(await deleteObject(kube, ref, { uid: applied.metadata.uid }), true);
    assert.equal(await proxy.idleEnded(), 2);
    assert.deepEqual(
      records.filter((r) => r.method !== 'GET').map((r) => [r.method, r.statusCode]),
      [
        ['PATCH', 201],
        ['PATCH', 0],
        ['PATCH', 200],
        ['DELETE', 0],
        ['DELETE', 200],
      ],
    );
  });

  test('a create by name is sent again and makes one object', async () => {
    const { kube, records } = await clientThrough('drop');
    await getObject(kube, { apiVersion: 'v1', kind: 'Namespace', name: 'default' });
    await sleep(idleMs * 2);
    await createObject(kube, configMap('named-1', 'x'), { fieldManager });
    const { items } = await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
    assert.equal(items.filter((o) => o.metadata.name === 'named-1').length, 1);
    assert.deepEqual(
      records.filter((r) => r.method === 'POST').map((r) => r.statusCode),
      [0, 201],
    );
  });

  test('a create with generateName is not sent twice: it fails, naming why, and nothing is created', async () => {
    const { kube, records } = await clientThrough('drop');
    await getObject(kube, { apiVersion: 'v1', kind: 'Namespace', name: 'default' });
    await sleep(idleMs * 2);
    const generated = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', generateName: 'generated-' },
      data: { v: 'x' },
    };
    await assert.rejects(createObject(kube, generated, { fieldManager }), (err: unknown) => {
      assert.ok(err instanceof KubeUnavailableError, String(err));
      assert.match(err.message, /^failed to create ConfigMap default\/generated-: .*not sent twice/);
      return true;
    });
    assert.deepEqual(
      records.filter((r) => r.method === 'POST').map((r) => r.statusCode),
      [0],
      'one attempt, not replayed',
    );
    const { items } = await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
    assert.equal(items.filter((o) => o.metadata.name?.startsWith('generated-')).length, 0);
  });
});
