// 410 Gone for real: etcd compacted past the forwarder's resourceVersion while its watch was down, and past a
// paged relist's continue token. The API server runs without its watch cache, so a resumed watch reaches etcd
// (with the cache, kube-apiserver replays recent events from memory however far etcd has been compacted).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  applyObject,
  createKubeClient,
  deleteObject,
  type KubeClient,
  type KubeRequest,
  type RequestRecord,
} from '#shared/kube/index.ts';
import { ObjectChange } from '#shared/runtime/events.ts';
import { createPutEventsSink } from '#functions/forwarder/put-events-sink.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startEventBridgeRecorder, startGatedProxy, type EventBridgeRecorder, type GatedProxy } from './loopback.ts';

const ns = 'compaction';
const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns } as const;

async function eventually(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** etcd's current revision, through its JSON gRPC gateway. */
async function getEtcdRevision(etcdUrl: string): Promise<number> {
  const res = await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'AA==' }) });
  const body = (await res.json()) as { header?: { revision?: string } };
  const revision = Number(body.header?.revision);
  assert.ok(res.ok && revision > 0, `etcd range answered ${res.status}: ${JSON.stringify(body)}`);
  return revision;
}

/** Compacts etcd at its current revision (physically: the old revisions are gone from disk); returns it. */
async function compactEtcd(etcdUrl: string): Promise<number> {
  const revision = await getEtcdRevision(etcdUrl);
  const res = await fetch(`${etcdUrl}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  assert.ok(res.ok, `etcd compaction answered ${res.status}: ${await res.text()}`);
  return revision;
}

describe('event forwarder against a compacted etcd', () => {
  let mgmt: TestCluster;
  let recorder: EventBridgeRecorder;
  let proxy: GatedProxy;
  let kube: KubeClient;
  let kubeconfig: string;
  const requests: RequestRecord[] = [];
  const logs: { message: string; fields: Record<string, unknown> }[] = [];
  const forwarders: Forwarder[] = [];

  const changes = () =>
    recorder.requests.flatMap((r) =>
      r.entries.filter((_, i) => !r.failedIndexes.includes(i)).map((e) => ObjectChange.parse(JSON.parse(e.Detail))),
    );
  const describeChange = (c: ObjectChange) =>
    `${c.type} ${c.name}@${c.resourceVersion ?? ''}${c.type === 'DELETED' ? ` uid=${c.uid ?? ''}` : ''}`;
  const putConfigMap = async (name: string, data: Record<string, string>) =>
    (
      await applyObject(
        mgmt.kube,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data },
        { fieldManager: 'test-user' },
      )
    ).metadata;

  function start(client: KubeClient, pageSize?: number): Forwarder {
    const forwarder = startForwarder({
      kube: client,
      source: { kubeconfig },
      targets: [target],
      sink: createPutEventsSink({
        eventBusName: 'capi-serverless-test',
        region: 'us-east-1',
        endpoint: recorder.endpoint,
        getCredentials: () => Promise.resolve({ accessKeyId: 'test', secretAccessKey: 'test' }),
      }),
      coalesceMs: 200,
      retryBaseMs: 50,
      ...(pageSize === undefined ? {} : { pageSize }),
      log: (message, fields = {}) => logs.push({ message, fields }),
    });
    forwarders.push(forwarder);
    return forwarder;
  }

  before(async () => {
    [mgmt, recorder] = await Promise.all([
      startManagementCluster({ name: 'forwarder-compaction', extraApiServerArgs: ['--watch-cache=false'] }),
      startEventBridgeRecorder(),
    ]);
    const server = new URL(mgmt.controlPlane.server);
    proxy = await startGatedProxy(server.hostname, Number(server.port));
    kubeconfig = mgmt.controlPlane.kubeconfig.replace(
      mgmt.controlPlane.server,
      `https://${server.hostname}:${proxy.port}`,
    );
    kube = await createKubeClient({ kubeconfig }, { onRequest: (r) => requests.push(r) });
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      { fieldManager: 'test-user' },
    );
  });
  after(async () => {
    for (const f of forwarders) await f.stop();
    kube?.close();
    await Promise.all([proxy?.stop(), recorder?.stop(), mgmt?.stop()]);
  });

  test('a watch resumed from a compacted resourceVersion ends in 410 Gone and the relist sends exactly what changed and what vanished', async () => {
    await putConfigMap('keep', { v: '1' });
    await putConfigMap('change', { v: '1' });
    const doomed = await putConfigMap('doomed', { v: '1' });
    const forwarder = start(kube);
    const watcher = forwarder.watchers.get('v1/ConfigMap');
    await eventually('the initial list was sent', () => changes().length === 3);
    await eventually('the watch is open', () => (watcher?.stats.watches ?? 0) > 0);
    const resumeFrom = Number(watcher?.resourceVersion());

    proxy.close();
    const changed = await putConfigMap('change', { v: '2' });
    const born = await putConfigMap('born', { v: '1' });
    assert.equal(
      await deleteObject(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'doomed' }),
      true,
    );
    const compactedAt = await compactEtcd(mgmt.controlPlane.etcdUrl);
    assert.ok(compactedAt > resumeFrom + 1, `compacted at ${compactedAt}, the watch resumes after ${resumeFrom}`);
    const sentBefore = changes().length;
    proxy.open();

    await eventually('the relist was sent', () => changes().length >= sentBefore + 3);
    await new Promise((r) => setTimeout(r, 500));
    await forwarder.outbox.flush();
    // NOTE: the relist's SYNC entries wait for the coalescing window while the DELETED goes out at once (an object's
    // first change in a window): the entries are compared, not their order across objects.
    assert.deepEqual(
      changes().slice(sentBefore).map(describeChange).sort(),
      [
        `DELETED doomed@ uid=${doomed.uid}`,
        `SYNC born@${born.resourceVersion}`,
        `SYNC change@${changed.resourceVersion}`,
      ],
      'keep is unchanged and not sent again',
    );
    assert.equal(watcher?.stats.gone, 1);
    assert.equal(watcher?.stats.lists, 2);
    const expired = logs.filter((l) => l.message === 'watch error event');
    assert.equal(expired.length, 1, JSON.stringify(logs));
    assert.equal(expired[0]?.fields['code'], 410, 'the API server sent an ERROR event with a 410 Status');
    assert.match(String(expired[0]?.fields['message']), /resourceVersion for the provided watch is too old/);
    assert.ok(Number(watcher?.resourceVersion()) >= compactedAt, 'the watch resumed from the relist');
    await forwarder.stop();
  });

  test('a paged relist whose continue token was compacted starts again from the first page and sends each object once', async () => {
    let compactedAt = 0;
    // NOTE: between the first and the second page, an object is created and etcd compacted past the list's snapshot.
    const interrupting: KubeClient = {
      ...kube,
      async request<T>(req: KubeRequest): Promise<T> {
        if (req.query?.['continue'] !== undefined && compactedAt === 0) {
          await putConfigMap('late', { v: '1' });
          compactedAt = await compactEtcd(mgmt.controlPlane.etcdUrl);
        }
        return kube.request<T>(req);
      },
    };
    for (const f of forwarders) await f.stop();
    requests.splice(0);
    const sentBefore = changes().length;
    const forwarder = start(interrupting, 2);
    const watcher = forwarder.watchers.get('v1/ConfigMap');
    await eventually(
      'the relist was sent',
      () => (watcher?.stats.watches ?? 0) > 0 && changes().length >= sentBefore + 4,
    );
    await new Promise((r) => setTimeout(r, 500));
    await forwarder.outbox.flush();

    const current = await mgmt.kube.request<{ items: { metadata: { name: string; resourceVersion: string } }[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      target: { verb: 'list', kind: 'ConfigMapList' },
    });
    assert.deepEqual(
      changes().slice(sentBefore).map(describeChange),
      current.items.map((i) => `SYNC ${i.metadata.name}@${i.metadata.resourceVersion}`),
      'every object once, in list order, though the first page was read twice',
    );
    assert.deepEqual(
      current.items.map((i) => i.metadata.name),
      ['born', 'change', 'keep', 'late'],
    );
    const continued = requests.filter((r) => r.path.endsWith('/configmaps') && r.query.includes('continue='));
    assert.deepEqual(
      continued.map((r) => r.statusCode),
      [410, 200],
      'the compacted continue token was refused, the fresh one served',
    );
    const restarted = logs.filter((l) => l.message === 'list continue token expired (410 Gone); listing again');
    assert.match(String(restarted[0]?.fields['reason']), /continue parameter is too old/);
    assert.equal(watcher?.stats.listRestarts, 1);
    assert.equal(watcher?.stats.lists, 1);
    assert.ok(Number(watcher?.resourceVersion()) >= compactedAt, 'the watch starts from the restarted list');
  });
});
