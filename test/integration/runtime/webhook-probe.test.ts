// Webhooks the API server cannot reach, on the alarm path: the forwarder (as its ServiceAccount, with the chart's
// RBAC) probes the URLs capi-serverless's webhook configurations name and writes the result on its heartbeat Lease;
// the topology tick's health check (runHealthCheck) counts a failed probe toward `Unhealthy` and logs the URL (token
// hidden) and the error. Real kube-apiserver + etcd, the webhooks handler served over HTTPS as in the webhooks tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { parseAllDocuments } from 'yaml';
import { applyObject, createKubeClient, createObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import type { HealthFinding } from '#shared/health/index.ts';
import { runHealthCheck } from '#shared/health/run-health-check.ts';
import { createMetrics, publishMetricsWhenAny } from '#shared/runtime/middlewares/record-metrics.ts';
import type { RuntimeDeps } from '#shared/runtime/types.ts';
import { createWebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { probeWebhooks } from '#functions/forwarder/probe-webhooks.ts';
import { startHeartbeat, type Heartbeat } from '#functions/forwarder/renew-heartbeat.ts';
import { ClusterClassBuilder } from '#test/support/builders/topology.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';
import { chartFile } from '../../../infra/chart/chart-files.ts';
import { loadWebhookConfigurations } from '../../../infra/webhooks/webhook-manifests.ts';

const fieldManager = 'webhook-probe-test';
const pathToken = 'webhook-probe-path-token-0123';
const saNamespace = 'capi-serverless-system';
const saName = 'capi-serverless-forwarder';

let mgmt: TestCluster;
let server: WebhookServer;
let forwarderKube: KubeClient;
let heartbeat: Heartbeat;
const apply = (obj: KubeObject) => applyObject(mgmt.kube, obj, { fieldManager });

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

async function configureWebhooks(baseUrl: string): Promise<void> {
  for (const object of loadWebhookConfigurations({ baseUrl, caBundle: server.caBundle })) await apply(object);
}

/** One forwarder renewal (probe included), then one tick's health check: the findings and what was published. */
async function tick(): Promise<{ findings: HealthFinding[]; unhealthy: number; logged: unknown[] }> {
  await heartbeat.renew();
  const logged: unknown[] = [];
  const deps = {
    kube: mgmt.kube,
    now: Date.now,
    logger: { error: (...args: unknown[]) => logged.push(args) },
  } as unknown as RuntimeDeps;
  const lines: string[] = [];
  const metrics: Metrics = createMetrics();
  Object.assign(metrics, { console: { log: (line: string) => lines.push(line), warn: () => undefined } });
  const findings = await runHealthCheck(deps, metrics);
  publishMetricsWhenAny(metrics);
  const unhealthy = lines
    .map((l) => (JSON.parse(l) as Record<string, unknown>)['Unhealthy'])
    .reduce<number>((sum, v) => sum + (typeof v === 'number' ? v : 0), 0);
  return { findings, unhealthy, logged };
}

before(async () => {
  mgmt = await startManagementCluster({ name: 'webhook-probe' });
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: saNamespace } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: saName, namespace: saNamespace } });
  for (const doc of parseAllDocuments(readFileSync(chartFile('forwarder-rbac.yaml'), 'utf8')))
    await apply(doc.toJS() as KubeObject);
  const tokenRequest = await mgmt.kube.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${saNamespace}/serviceaccounts/${saName}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    target: { verb: 'create', kind: 'TokenRequest', namespace: saNamespace, name: saName },
  });
  const ca = /certificate-authority-data: (\S+)/.exec(mgmt.controlPlane.kubeconfig)?.[1] ?? '';
  forwarderKube = await createKubeClient({
    kubeconfig: tokenKubeconfig(mgmt.controlPlane.server, ca, tokenRequest.status.token),
  });
  const webhookClient = await mgmt.newClient();
  server = await startWebhookServer(
    createWebhooksHandler({ pathToken, getDeps: async () => ({ reader: createWebhookReader(webhookClient.kube) }) }),
  );
  heartbeat = startHeartbeat({
    kube: forwarderKube,
    holder: 'forwarder-0',
    probe: () => probeWebhooks({ kube: forwarderKube, timeoutMs: 5_000 }),
  });
  heartbeat.stop();
});

after(async () => {
  heartbeat?.stop();
  forwarderKube?.close();
  await server?.stop();
  await mgmt?.stop();
});

describe('the webhook probe on the alarm path', () => {
  test('no webhook configuration installed: nothing probed, nothing unhealthy', async () => {
    const { findings, unhealthy } = await tick();
    assert.deepEqual(findings, []);
    assert.equal(unhealthy, 0);
    assert.deepEqual(heartbeat.lastProbe()?.targets, []);
  });

  test('reachable webhooks: one URL probed (token hidden), nothing unhealthy', async () => {
    await configureWebhooks(`${server.url}/${pathToken}`);
    const before = server.requests();
    const { findings, unhealthy, logged } = await tick();
    assert.deepEqual(findings, []);
    assert.equal(unhealthy, 0);
    assert.deepEqual(logged, []);
    assert.deepEqual(heartbeat.lastProbe()?.targets, [{ url: `${server.url}/…/healthz` }]);
    assert.equal(server.requests() - before, 1, 'mutate and validate share one health URL');
  });

  test('a refused token (auth broken): Unhealthy 1, the log names the URL and the 403', async () => {
    await configureWebhooks(`${server.url}/a-rotated-away-token-0000`);
    const { findings, unhealthy, logged } = await tick();
    assert.equal(unhealthy, 1);
    assert.deepEqual(
      findings.map((f) => f.check),
      ['webhookReachability'],
    );
    assert.match(
      findings[0]!.message,
      /webhooks unreachable from the cluster: https:\/\/127\.0\.0\.1:\d+\/…\/healthz: HTTP 403/,
    );
    assert.doesNotMatch(findings[0]!.message, /a-rotated-away-token/);
    assert.equal(logged.length, 1);
  });

  test('a name that does not resolve (DNS): Unhealthy 1, the error is the lookup', async () => {
    await configureWebhooks(`https://capi-serverless-webhooks.invalid/${pathToken}`);
    const { findings, unhealthy } = await tick();
    assert.equal(unhealthy, 1);
    assert.match(findings[0]?.message ?? '', /https:\/\/capi-serverless-webhooks\.invalid\/…\/healthz: getaddrinfo/);
  });

  test('the URL stops answering (server gone): Unhealthy 1, and a ClusterClass write is refused meanwhile', async () => {
    await configureWebhooks(`${server.url}/${pathToken}`);
    assert.equal((await tick()).unhealthy, 0, 'reachable again');
    await server.stop();
    const { findings, unhealthy } = await tick();
    assert.equal(unhealthy, 1);
    assert.match(findings[0]?.message ?? '', /\/…\/healthz: connect ECONNREFUSED 127\.0\.0\.1:\d+/);
    await assert.rejects(
      createObject(mgmt.kube, new ClusterClassBuilder('probe-cc').build() as unknown as KubeObject, {
        fieldManager,
        dryRun: true,
      }),
      /failed calling webhook/,
    );
  });
});
