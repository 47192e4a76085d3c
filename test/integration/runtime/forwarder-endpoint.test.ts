// The forwarder's default Secret narrowing and its HTTP endpoint against a real kube-apiserver: only Secrets of the
// ClusterResourceSet type are listed and watched (a field selector the server applies), /readyz turns 200 once the
// initial lists are done, /metrics counts what was seen and forwarded, and /healthz fails once a kind's LISTs have
// failed for longer than the limit (the API server gone).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, createKubeClient, type KubeClient } from '#shared/kube/index.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { clusterResourceSetSecretType, defaultTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { startHttpServer, type HttpServer } from '#functions/forwarder/start-http-server.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startCuttableProxy, type CuttableProxy } from './loopback.ts';

const ns = 'fwd-endpoint';
const user = { fieldManager: 'test-user' } as const;

async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = async (http: HttpServer, path: string) => {
  const res = await fetch(`http://127.0.0.1:${http.port}${path}`);
  return { status: res.status, body: await res.text() };
};
const sample = (metrics: string, prefix: string) =>
  Number(
    metrics
      .split('\n')
      .find((l) => l.startsWith(prefix))
      ?.split(' ')
      .pop() ?? NaN,
  );

describe('forwarder endpoint and Secret narrowing on a real kube-apiserver', () => {
  let mgmt: TestCluster;
  let proxy: CuttableProxy;
  let kube: KubeClient;
  let forwarder: Forwarder;
  let http: HttpServer;
  const sent: ObjectChange[] = [];
  const secret = (name: string, type: string, v: string) =>
    applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: ns, name }, type, stringData: { v } },
      user,
    );

  before(async () => {
    mgmt = await startManagementCluster({ name: 'forwarder-endpoint' });
    await applyObject(mgmt.kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, user);
    await secret('addon', clusterResourceSetSecretType, '1');
    await secret('bootstrap-token', 'Opaque', '1');
    const server = new URL(mgmt.controlPlane.server);
    proxy = await startCuttableProxy(server.hostname, Number(server.port));
    const kubeconfig = mgmt.controlPlane.kubeconfig.replace(
      mgmt.controlPlane.server,
      `https://${server.hostname}:${proxy.port}`,
    );
    kube = await createKubeClient({ kubeconfig });
    forwarder = startForwarder({
      kube,
      source: { kubeconfig },
      // NOTE: every default kind, and one the cluster does not serve (it must not hold readiness back).
      targets: [...defaultTargets(), { apiVersion: 'example.com/v1', kind: 'Unserved' }],
      sink: (batch) => (sent.push(...batch), Promise.resolve([])),
      coalesceMs: 100,
      retryBaseMs: 50,
    });
    http = await startHttpServer({ port: 0, snapshot: forwarder.snapshot, wedgedAfterMs: 2_000 });
  });
  after(async () => {
    await forwarder?.stop();
    await http?.close();
    kube?.close();
    await Promise.all([proxy?.stop(), mgmt?.stop()]);
  });

  const secretsSent = () => sent.filter((c) => c.kind === 'Secret' && c.namespace === ns).map((c) => c.name);

  test('/readyz answers 200 once the initial lists are done, and every kind the cluster does not serve is skipped', async () => {
    await eventually('ready', async () => (await get(http, '/readyz')).status === 200);
    assert.equal((await get(http, '/healthz')).status, 200);
    const states = forwarder.snapshot().kinds.map((k) => k.health.state);
    assert.ok(states.includes('unserved') && states.includes('watching'), states.join(','));
  });

  test('only Secrets of the ClusterResourceSet type are forwarded, at start and on change', async () => {
    await eventually('the add-on Secret is sent', () => secretsSent().includes('addon'));
    await secret('bootstrap-token', 'Opaque', '2');
    await secret('addon', clusterResourceSetSecretType, '2');
    await eventually('the add-on Secret change is sent', () => secretsSent().length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(secretsSent(), ['addon', 'addon']);
    assert.equal(forwarder.watchers.get('v1/Secret')?.knownObjects(), 1);
  });

  test('/metrics counts the Secrets seen and forwarded and the watched objects', async () => {
    await forwarder.outbox.flush();
    const { status, body } = await get(http, '/metrics');
    assert.equal(status, 200);
    assert.equal(sample(body, 'capi_serverless_forwarder_watched_objects{kind="Secret",target="v1/Secret"}'), 1);
    assert.equal(sample(body, 'capi_serverless_forwarder_events_seen_total{kind="Secret",target="v1/Secret"}'), 2);
    assert.equal(sample(body, 'capi_serverless_forwarder_events_forwarded_total{kind="Secret"}'), 2);
    assert.ok(sample(body, 'capi_serverless_forwarder_last_put_events_success_timestamp_seconds') > 1.7e9);
  });

  test('/healthz fails once the API server has been unreachable for longer than the limit', async () => {
    await proxy.stop();
    proxy.cut();
    await eventually('unhealthy', async () => (await get(http, '/healthz')).status === 503, 30_000);
    const { body } = await get(http, '/healthz');
    assert.match(body, /every LIST and watch failed for \d+ s/);
    // NOTE: still ready: readiness is about the first lists, which were done.
    assert.equal((await get(http, '/readyz')).status, 200);
  });
});
