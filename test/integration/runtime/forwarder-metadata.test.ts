// The forwarder reads metadata only and needs no more than its manifests grant: run against a real kube-apiserver
// (RBAC on) as the `capi-serverless-forwarder` ServiceAccount bound to the chart's `files/forwarder-rbac.yaml`,
// through a recording HTTPS proxy on loopback that shows the headers of every LIST and watch it sends.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { applyObject, createKubeClient, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { KubeError } from '#shared/kube/errors.ts';
import { partialObjectMetadataAccept, partialObjectMetadataListAccept } from '#shared/kube/partial-object-metadata.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { startHeartbeat } from '#functions/forwarder/renew-heartbeat.ts';
import { checkHealth } from '#shared/health/index.ts';
import { createPki } from '#test/support/harness/certs.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { chartFile } from '../../../infra/chart/chart-files.ts';

const ns = 'fwd-meta';
const saNamespace = 'capi-serverless-system';
const saName = 'capi-serverless-forwarder';

type Recorded = { method: string; url: string; accept: string; status: number };

/** An HTTPS proxy with its own CA that forwards every request (headers untouched) and records it. */
async function startRecordingProxy(upstream: string, upstreamCa: Buffer) {
  const dir = mkdtempSync(join(tmpdir(), 'capi-proxy-'));
  const pki = createPki(dir);
  const recorded: Recorded[] = [];
  const server: Server = createServer(
    { key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) },
    (req, res) => {
      const entry = { method: req.method ?? '', url: req.url ?? '', accept: req.headers.accept ?? '', status: 0 };
      recorded.push(entry);
      const forward = httpsRequest(
        new URL(req.url ?? '/', upstream),
        { method: req.method, headers: { ...req.headers, host: new URL(upstream).host }, ca: upstreamCa },
        (up) => {
          entry.status = up.statusCode ?? 0;
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      req.pipe(forward);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: readFileSync(pki.caCert).toString('base64'),
    recorded,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tokenKubeconfig(server: string, caData: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{ name: c, cluster: { server: '${server}', certificate-authority-data: '${caData}' } }]`,
    `users: [{ name: forwarder, user: { token: '${token}' } }]`,
    'contexts: [{ name: forwarder, context: { cluster: c, user: forwarder } }]',
    'current-context: forwarder',
    '',
  ].join('\n');
}

async function eventually(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('forwarder: metadata only, with no more than its ClusterRole', () => {
  let mgmt: TestCluster;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let kube: KubeClient;
  let forwarder: Forwarder;
  let kubeconfig: string;
  const sent: ObjectChange[] = [];
  const apply = (obj: KubeObject) => applyObject(mgmt.kube, obj, { fieldManager: 'test-user' });

  before(async () => {
    mgmt = await startManagementCluster({ name: 'forwarder-rbac' });
    for (const name of [ns, saNamespace]) await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await apply({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: saName, namespace: saNamespace },
    });
    for (const doc of parseAllDocuments(readFileSync(chartFile('forwarder-rbac.yaml'), 'utf8')))
      await apply(doc.toJS() as KubeObject);
    const tokenRequest = await mgmt.kube.request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${saNamespace}/serviceaccounts/${saName}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      target: { verb: 'create', kind: 'TokenRequest', namespace: saNamespace, name: saName },
    });
    const adminCa = /certificate-authority-data: (\S+)/.exec(mgmt.controlPlane.kubeconfig)?.[1] ?? '';
    proxy = await startRecordingProxy(mgmt.controlPlane.server, Buffer.from(adminCa, 'base64'));
    kubeconfig = tokenKubeconfig(proxy.url, proxy.ca, tokenRequest.status.token);
    kube = await createKubeClient({ kubeconfig });
  });
  after(async () => {
    await forwarder?.stop();
    kube?.close();
    await proxy?.stop();
    await mgmt?.stop();
  });

  test('forwards Secrets and ConfigMaps as the ServiceAccount, every LIST and watch asking for metadata only', async () => {
    const secret = await apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: ns, name: 'kubeconfig-like' },
      stringData: { value: 'top secret' },
    } as KubeObject);
    forwarder = startForwarder({
      kube,
      source: { kubeconfig },
      targets: [
        { apiVersion: 'v1', kind: 'Secret', namespace: ns },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      ],
      sink: async (batch) => (sent.push(...batch), []),
      coalesceMs: 100,
      retryBaseMs: 50,
    });
    await eventually('the listed Secret was sent', () => sent.some((c) => c.name === 'kubeconfig-like'));
    const cm = await apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ns, name: 'addon' },
      data: { a: 'b' },
    });
    await eventually('the watched ConfigMap was sent', () =>
      sent.some((c) => c.name === 'addon' && c.type === 'ADDED'),
    );

    const listed = sent.find((c) => c.name === 'kubeconfig-like');
    assert.equal(listed?.kind, 'Secret');
    assert.equal(listed?.uid, secret.metadata.uid);
    assert.equal(listed?.resourceVersion, secret.metadata.resourceVersion);
    assert.equal(sent.find((c) => c.name === 'addon')?.resourceVersion, cm.metadata.resourceVersion);

    const reads = proxy.recorded.filter((r) => /\/(secrets|configmaps)(\?|$)/.test(r.url));
    for (const kind of ['secrets', 'configmaps']) {
      assert.ok(
        reads.some((r) => r.url.includes(`/${kind}?`) && !r.url.includes('watch=true')),
        `a LIST of ${kind}`,
      );
      assert.ok(
        reads.some((r) => r.url.includes(`/${kind}?`) && r.url.includes('watch=true')),
        `a watch of ${kind}`,
      );
    }
    for (const r of reads) {
      const want = r.url.includes('watch=true') ? partialObjectMetadataAccept : partialObjectMetadataListAccept;
      assert.equal(r.accept, want, `${r.method} ${r.url}`);
    }
    const watches = reads.filter((r) => r.url.includes('watch=true')).length;
    assert.ok(watches <= 4, `the watches stay open (${watches} opened)`);
    assert.deepEqual(
      proxy.recorded.filter((r) => r.status >= 400).map((r) => `${r.method} ${r.url} ${r.status}`),
      [],
      'the ClusterRole grants everything the forwarder asks for',
    );
  });

  test('what a metadata-only LIST returns: no data, only metadata', async () => {
    const list = await kube.request<{ kind: string; items: (KubeObject & { data?: unknown })[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/secrets`,
      accept: partialObjectMetadataListAccept,
      target: { verb: 'list', kind: 'SecretList', namespace: ns },
    });
    assert.equal(list.kind, 'PartialObjectMetadataList');
    const item = list.items.find((s) => s.metadata.name === 'kubeconfig-like');
    assert.equal(item?.kind, 'PartialObjectMetadata');
    assert.equal(item?.data, undefined);
  });

  test('the ServiceAccount may not get a single Secret (the ClusterRole grants list and watch only)', async () => {
    const err = await kube
      .request({
        method: 'GET',
        path: `/api/v1/namespaces/${ns}/secrets/kubeconfig-like`,
        target: { verb: 'get', kind: 'Secret', namespace: ns, name: 'kubeconfig-like' },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof KubeError && err.statusCode === 403, String(err));
  });

  test('the ServiceAccount may create and renew its heartbeat Lease (rbac.yaml), and nothing else of leases', async () => {
    const failures: string[] = [];
    const heartbeat = startHeartbeat({
      kube,
      namespace: saNamespace,
      holder: 'forwarder-0',
      log: (message, fields) => failures.push(`${message} ${JSON.stringify(fields)}`),
    });
    heartbeat.stop();
    await heartbeat.renew();
    await heartbeat.renew();
    assert.deepEqual(failures, []);
    assert.deepEqual(await checkHealth({ kube: mgmt.kube, now: Date.now, forwarderNamespace: saNamespace }), []);
    const err = await kube
      .request({
        method: 'GET',
        path: `/apis/coordination.k8s.io/v1/namespaces/${saNamespace}/leases/another`,
        target: { verb: 'get', kind: 'Lease', namespace: saNamespace, name: 'another' },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof KubeError && err.statusCode === 403, String(err));
  });
});
