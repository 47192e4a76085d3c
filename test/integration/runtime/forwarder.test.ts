// The forwarder against a real kube-apiserver, putting events through the forwarder's PutEvents client to a recording
// endpoint on loopback: batches of at most 10, coalesced bursts, resume after the watch connection is cut, retries of entries EventBridge refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, createKubeClient, type KubeClient } from '#shared/kube/index.ts';
import { ObjectChange } from '#shared/runtime/events.ts';
import { createPutEventsSink } from '#functions/forwarder/put-events-sink.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  startCuttableProxy,
  startEventBridgeRecorder,
  type CuttableProxy,
  type EventBridgeRecorder,
} from './loopback.ts';

const ns = 'fwd';
const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns } as const;

async function eventually(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('event forwarder on a real kube-apiserver', () => {
  let mgmt: TestCluster;
  let recorder: EventBridgeRecorder;
  let proxy: CuttableProxy;
  let kube: KubeClient;
  let kubeconfig: string;
  const forwarders: Forwarder[] = [];

  const changes = () =>
    recorder.requests.flatMap((r) =>
      r.entries.filter((_, i) => !r.failedIndexes.includes(i)).map((e) => ObjectChange.parse(JSON.parse(e.Detail))),
    );
  const changesOf = (name: string) => changes().filter((c) => c.name === name);
  const putConfigMap = (name: string, data: Record<string, string>) =>
    applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data },
      { fieldManager: 'test-user' },
    );

  function start(): Forwarder {
    const forwarder = startForwarder({
      kube,
      source: { kubeconfig },
      targets: [target],
      sink: createPutEventsSink({
        eventBusName: 'capi-serverless-test',
        region: 'us-east-1',
        endpoint: recorder.endpoint,
        getCredentials: () => Promise.resolve({ accessKeyId: 'test', secretAccessKey: 'test' }),
      }),
      coalesceMs: 300,
      retryBaseMs: 50,
    });
    forwarders.push(forwarder);
    return forwarder;
  }

  before(async () => {
    [mgmt, recorder] = await Promise.all([startManagementCluster({ name: 'forwarder' }), startEventBridgeRecorder()]);
    const server = new URL(mgmt.controlPlane.server);
    proxy = await startCuttableProxy(server.hostname, Number(server.port));
    kubeconfig = mgmt.controlPlane.kubeconfig.replace(
      mgmt.controlPlane.server,
      `https://${server.hostname}:${proxy.port}`,
    );
    kube = await createKubeClient({ kubeconfig });
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      { fieldManager: 'test-user' },
    );
    for (let i = 0; i < 12; i++) await putConfigMap(`cm-${String(i).padStart(2, '0')}`, { i: String(i) });
  });
  after(async () => {
    for (const f of forwarders) await f.stop();
    kube?.close();
    await Promise.all([proxy?.stop(), recorder?.stop(), mgmt?.stop()]);
  });

  test('the initial list is put in batches of at most 10 compact, well-formed entries', async () => {
    start();
    await eventually('12 objects were sent', () => new Set(changes().map((c) => c.name)).size >= 12);
    assert.ok(recorder.requests.every((r) => r.target === 'AWSEvents.PutEvents'));
    assert.ok(
      recorder.requests.every((r) => r.entries.length <= 10),
      JSON.stringify(recorder.requests.map((r) => r.entries.length)),
    );
    assert.ok(recorder.requests.length >= 2);
    for (const entry of recorder.requests.flatMap((r) => r.entries)) {
      assert.equal(entry.Source, 'capi-serverless.forwarder');
      assert.equal(entry.DetailType, 'Object Changed');
      assert.equal(entry.EventBusName, 'capi-serverless-test');
    }
    const first = changesOf('cm-00')[0];
    assert.equal(first?.type, 'SYNC');
    assert.equal(first?.namespace, ns);
    assert.ok(first?.uid && first.resourceVersion, 'uid and resourceVersion travel with the event');
  });

  test('a burst of updates to one object is coalesced into one event carrying the latest version', async () => {
    const sentBefore = changesOf('cm-01').length;
    let last = '';
    for (let i = 0; i < 5; i++)
      last = (await putConfigMap('cm-01', { i: `burst-${i}` })).metadata.resourceVersion ?? '';
    await eventually('the burst was sent', () => changesOf('cm-01').some((c) => c.resourceVersion === last));
    await new Promise((r) => setTimeout(r, 500));
    const burst = changesOf('cm-01').slice(sentBefore);
    assert.equal(burst.length, 1, JSON.stringify(burst));
    assert.equal(burst[0]?.type, 'MODIFIED');
  });

  test('after the watch connection is cut, the forwarder resumes and sends what changed meanwhile', async () => {
    const forwarder = forwarders[0] as Forwarder;
    const watches = forwarder.watchers.get('v1/ConfigMap')?.stats.watches ?? 0;
    assert.ok(proxy.cut() > 0, 'there were connections to cut');
    await putConfigMap('during-cut', { created: 'while the watch was down' });
    await eventually('the new object was sent', () => changesOf('during-cut').length > 0);
    assert.ok((forwarder.watchers.get('v1/ConfigMap')?.stats.watches ?? 0) > watches, 'the watch was reopened');
    assert.equal(forwarder.watchers.get('v1/ConfigMap')?.stats.lists, 1, 'resumed from its resourceVersion, no relist');
    assert.deepEqual(
      changesOf('during-cut').map((c) => c.type),
      ['ADDED'],
    );
  });

  test('entries EventBridge refuses are sent again', async () => {
    recorder.failNextEntries(1);
    const before = recorder.requests.length;
    await putConfigMap('refused-once', { try: '1' });
    await eventually('the refused entry was sent again', () => changesOf('refused-once').length > 0);
    const attempts = recorder.requests
      .slice(before)
      .filter((r) => r.entries.some((e) => e.Detail.includes('"refused-once"')));
    assert.ok(attempts.length >= 2, `refused then accepted, got ${attempts.length} request(s)`);
    assert.deepEqual(attempts[0]?.failedIndexes, [0]);
  });
});
