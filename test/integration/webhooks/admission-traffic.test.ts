// What reaches the webhooks function, on a real kube-apiserver with the configurations of infra/webhooks/manifests/:
// the matchConditions keep writes that need no check away (Clusters without a topology, updates that leave spec and
// annotations as they are, the topology pass's own marks), and a warm container reads a ClusterClass once per TTL (counted in the API server's audit
// log). Two webhook servers stand for two warm containers of the function: A answers for Clusters, B for the rest, each
// with the deployed function's own dependencies (computeWebhooksHandlerOptions) and so its own ClusterClass cache.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import {
  applyObject,
  createObject,
  deleteObject,
  KubeForbiddenError,
  KubeInvalidError,
  patchObject,
  type KubeObject,
} from '#shared/kube/index.ts';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { ClusterBuilder, ClusterClassBuilder } from '#test/support/builders/topology.ts';
import { createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';
import { loadWebhookConfigurations } from '../../../infra/webhooks/webhook-manifests.ts';

const fieldManager = 'admission-traffic-test';
const pathToken = 'admission-traffic-path-token';
const ttlMs = 5_000;

/** ClusterClass reads, to count the webhooks' lookups at the API server. */
const classReadsPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [get]
  resources:
  - group: cluster.x-k8s.io
    resources: [clusterclasses]
- level: None
`;

let audit: AuditLog;
let mgmt: TestCluster;
let clusters: WebhookServer;
let others: WebhookServer;

const asKube = (o: unknown) => o as KubeObject;
const clusterRef = (name: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  namespace: 'default',
  name,
});
const classRef = (name: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'ClusterClass',
  namespace: 'default',
  name,
});

function clusterClass(name: string, maximum = 10): ClusterClass {
  return new ClusterClassBuilder(name)
    .variables([
      { name: 'cpu', required: false, schema: { openAPIV3Schema: { type: 'integer', minimum: 1, maximum } } },
    ])
    .build();
}

function cluster(name: string, className: string, cpu = 2): Cluster {
  return new ClusterBuilder(name)
    .with((c) => {
      delete c.metadata.uid;
      c.spec!.topology!.classRef = { name: className };
      c.spec!.topology!.variables = [{ name: 'cpu', value: cpu }];
    })
    .build();
}

/** The function's handler as deployed: dependencies from the environment, one ClusterClass cache per container. */
function startContainer(): Promise<WebhookServer> {
  return startWebhookServer(
    createWebhooksHandler(
      computeWebhooksHandlerOptions({
        KUBECONFIG: mgmt.controlPlane.kubeconfigPath,
        WEBHOOK_PATH_TOKEN: pathToken,
        WEBHOOK_CLUSTERCLASS_CACHE_TTL_MS: String(ttlMs),
      }),
    ),
  );
}

/** The webhooks' GETs of one ClusterClass since the last call (the function's client names itself). */
function classReads(name: string): number {
  return audit
    .readNew()
    .filter(
      (e) =>
        e.verb === 'get' && e.objectRef?.name === name && (e.userAgent ?? '').startsWith('capi-serverless/webhooks'),
    ).length;
}

/** Requests both servers answered while `action` ran. */
async function webhookCalls(action: () => Promise<unknown>): Promise<number> {
  const before = clusters.requests() + others.requests();
  await action();
  return clusters.requests() + others.requests() - before;
}

/**
 * Waits until the API server sends Cluster writes to the webhooks. NOTE: a dry-run create of a Cluster whose class does
 * not exist yet is admitted with a warning (as upstream), so the probe counts the requests the server answered instead.
 */
async function waitForWebhooks(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const before = clusters.requests();
    await createObject(mgmt.kube, asKube(cluster('probe', 'missing')), { fieldManager, dryRun: true }).catch(
      () => undefined,
    );
    if (clusters.requests() > before) return;
    if (Date.now() > deadline) throw new Error('webhooks were not called within 20s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  audit = createAuditLog(classReadsPolicy);
  mgmt = await startManagementCluster({
    name: 'admission-traffic',
    extraApiServerArgs: audit.apiServerArgs,
    extraCrds: [genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane')],
  });
  clusters = await startContainer();
  others = await startContainer();
  // NOTE: the same configurations, with the Cluster webhooks pointed at container A and the others at container B.
  type Configuration = KubeObject & { webhooks: { name: string }[] };
  const render = (server: WebhookServer) =>
    loadWebhookConfigurations({ baseUrl: `${server.url}/${pathToken}`, caBundle: server.caBundle }) as Configuration[];
  const forClusters = render(clusters);
  const forOthers = render(others).map((configuration, i) => ({
    ...configuration,
    webhooks: configuration.webhooks.map((hook) =>
      /^(validation|default)\.cluster\./.test(hook.name)
        ? (forClusters[i]?.webhooks.find((h) => h.name === hook.name) ?? hook)
        : hook,
    ),
  }));
  for (const object of forOthers) await applyObject(mgmt.kube, object, { fieldManager });
  await waitForWebhooks();
});

after(async () => {
  await clusters?.stop();
  await others?.stop();
  await mgmt?.stop();
  audit?.remove();
});

describe('matchConditions: only writes that need the checks reach the webhooks', () => {
  test('a topology Cluster reaches both webhooks on create, spec and annotation changes, and on losing its topology', async () => {
    await applyObject(mgmt.kube, asKube(clusterClass('traffic')), { fieldManager });
    assert.equal(
      await webhookCalls(() => createObject(mgmt.kube, asKube(cluster('t1', 'traffic')), { fieldManager })),
      2,
    );
    const spec = { spec: { topology: { variables: [{ name: 'cpu', value: 3 }] } } };
    assert.equal(await webhookCalls(() => patchObject(mgmt.kube, clusterRef('t1'), spec, { fieldManager })), 2);
    const annotation = { metadata: { annotations: { note: 'changed' } } };
    assert.equal(await webhookCalls(() => patchObject(mgmt.kube, clusterRef('t1'), annotation, { fieldManager })), 2);
    const calls = await webhookCalls(() =>
      assert.rejects(
        patchObject(mgmt.kube, clusterRef('t1'), { spec: { topology: null } }, { fieldManager }),
        (err: unknown) =>
          err instanceof KubeInvalidError && err.message.includes('cannot be removed from an existing Cluster'),
      ),
    );
    assert.equal(calls, 2);
  });

  test('updates that leave spec and annotations as they are do not reach them', async () => {
    await createObject(mgmt.kube, asKube(cluster('t2', 'traffic')), { fieldManager });
    const writes: [string, unknown][] = [
      ['a label', { metadata: { labels: { team: 'a' } } }],
      ['a finalizer', { metadata: { finalizers: ['example.com/keep'] } }],
      ['nothing (a no-op patch)', { metadata: { labels: { team: 'a' } } }],
      ['the finalizer removed', { metadata: { finalizers: null } }],
    ];
    for (const [what, patch] of writes)
      assert.equal(
        await webhookCalls(() => patchObject(mgmt.kube, clusterRef('t2'), patch, { fieldManager })),
        0,
        `${what} reached a webhook`,
      );
  });

  test("the topology pass's own marks do not reach them; a version change they block still does", async () => {
    await createObject(mgmt.kube, asKube(cluster('t3', 'traffic')), { fieldManager });
    const pendingHooks = 'runtime.cluster.x-k8s.io/pending-hooks';
    const upgradeStep = 'topology.internal.cluster.x-k8s.io/upgrade-step';
    const marks: [string, Record<string, string | null>][] = [
      ['the pending hooks set', { [pendingHooks]: 'AfterClusterUpgrade,AfterControlPlaneUpgrade' }],
      ['the upgrade step set', { [upgradeStep]: 'v1.31.0' }],
      ['the pending hooks changed', { [pendingHooks]: 'AfterClusterUpgrade' }],
      ['the upgrade step removed', { [upgradeStep]: null }],
      ['the pending hooks removed (no annotation left)', { [pendingHooks]: null }],
      ['the pending hooks set again', { [pendingHooks]: 'AfterClusterUpgrade' }],
    ];
    for (const [what, annotations] of marks)
      assert.equal(
        await webhookCalls(() =>
          patchObject(mgmt.kube, clusterRef('t3'), { metadata: { annotations } }, { fieldManager }),
        ),
        0,
        `${what} reached a webhook`,
      );
    // NOTE: as the topology pass writes the step, by server-side apply, down to no annotation at all.
    const step = (annotations?: Record<string, string>) =>
      applyObject(
        mgmt.kube,
        asKube({
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: { namespace: 'default', name: 't3', ...(annotations ? { annotations } : {}) },
        }),
        { fieldManager: 'capi-topology', force: true },
      );
    await patchObject(
      mgmt.kube,
      clusterRef('t3'),
      { metadata: { annotations: { [pendingHooks]: null } } },
      { fieldManager },
    );
    assert.equal(await webhookCalls(() => step({ [upgradeStep]: 'v1.31.0' })), 0, 'the step applied reached a webhook');
    const dryRun = () =>
      applyObject(
        mgmt.kube,
        asKube({
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: { namespace: 'default', name: 't3', annotations: { 'topology.cluster.x-k8s.io/dry-run': '' } },
        }),
        { fieldManager: 'capi-topology', force: true, dryRun: true },
      );
    assert.equal(await webhookCalls(dryRun), 0, "the pass's dry run (its dry-run annotation) reached a webhook");
    assert.equal(
      await webhookCalls(() => step()),
      0,
      'the step removed by apply (no annotation left) reached a webhook',
    );
    await patchObject(
      mgmt.kube,
      clusterRef('t3'),
      { metadata: { annotations: { [pendingHooks]: 'AfterClusterUpgrade' } } },
      { fieldManager },
    );
    const withAnother = { metadata: { annotations: { [upgradeStep]: 'v1.31.0', note: 'too' } } };
    assert.equal(
      await webhookCalls(() => patchObject(mgmt.kube, clusterRef('t3'), withAnother, { fieldManager })),
      2,
      'another annotation changed with a mark reaches both',
    );
    const upgrade = { spec: { topology: { version: 'v1.31.0' } } };
    const calls = await webhookCalls(() =>
      assert.rejects(
        patchObject(mgmt.kube, clusterRef('t3'), upgrade, { fieldManager }),
        (err: unknown) => err instanceof KubeInvalidError && err.message.includes('"AfterClusterUpgrade" hook'),
      ),
    );
    assert.equal(calls, 2, 'the version change reached both and was refused while AfterClusterUpgrade is pending');
  });

  test('a Cluster without a topology does not reach them', async () => {
    const plain = new ClusterBuilder('plain')
      .with((c) => {
        delete c.metadata.uid;
        delete c.spec!.topology;
        c.spec!.infrastructureRef = {
          apiGroup: 'infrastructure.cluster.x-k8s.io',
          kind: 'DockerCluster',
          name: 'plain',
        };
      })
      .build();
    assert.equal(await webhookCalls(() => createObject(mgmt.kube, asKube(plain), { fieldManager })), 0);
    const paused = { spec: { paused: true } };
    assert.equal(await webhookCalls(() => patchObject(mgmt.kube, clusterRef('plain'), paused, { fieldManager })), 0);
  });

  test('a ClusterClass reaches them on spec changes and deletion, not on metadata changes', async () => {
    const label = { metadata: { labels: { team: 'a' } } };
    assert.equal(await webhookCalls(() => patchObject(mgmt.kube, classRef('traffic'), label, { fieldManager })), 0);
    assert.equal(
      await webhookCalls(() => applyObject(mgmt.kube, asKube(clusterClass('traffic', 20)), { fieldManager })),
      2,
    );
    const calls = await webhookCalls(() =>
      assert.rejects(deleteObject(mgmt.kube, classRef('traffic')), (err: unknown) => err instanceof KubeForbiddenError),
    );
    assert.equal(calls, 1);
  });
});

describe('matchConditions: ClusterResourceSets', () => {
  test("a ClusterResourceSet reaches them on create and spec changes, not on metadata changes (upstream's fenced controller's finalizer patches)", async () => {
    const ref = {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      namespace: 'default',
      name: 'traffic',
    };
    const crs = (strategy: string) =>
      asKube({
        ...ref,
        metadata: { name: ref.name, namespace: ref.namespace },
        spec: {
          clusterSelector: { matchLabels: { addons: 'traffic' } },
          resources: [{ kind: 'ConfigMap', name: 'traffic' }],
          strategy,
        },
      });
    assert.equal(await webhookCalls(() => createObject(mgmt.kube, crs('ApplyOnce'), { fieldManager })), 2);
    const finalizer = { metadata: { finalizers: ['addons.cluster.x-k8s.io'] } };
    assert.equal(await webhookCalls(() => patchObject(mgmt.kube, ref, finalizer, { fieldManager })), 0);
    assert.equal(
      await webhookCalls(() => patchObject(mgmt.kube, ref, { metadata: { labels: { team: 'a' } } }, { fieldManager })),
      0,
    );
    assert.equal(
      await webhookCalls(() =>
        patchObject(
          mgmt.kube,
          ref,
          {
            spec: {
              resources: [
                { kind: 'ConfigMap', name: 'traffic' },
                { kind: 'Secret', name: 'traffic' },
              ],
            },
          },
          { fieldManager },
        ),
      ),
      2,
    );
  });
});

describe('ClusterClass reads per warm container', () => {
  test('two admissions within the TTL read the class once, and a class changed meanwhile is seen after the TTL', async () => {
    await applyObject(mgmt.kube, asKube(clusterClass('cached', 10)), { fieldManager });
    classReads('cached');
    // Two Clusters: the defaulting and the validating webhook of each look the class up, four admissions in all.
    const firstRead = Date.now();
    await createObject(mgmt.kube, asKube(cluster('k1', 'cached')), { fieldManager });
    await createObject(mgmt.kube, asKube(cluster('k2', 'cached')), { fieldManager });
    const within = Date.now() - firstRead;
    assert.ok(within < ttlMs, `both Clusters were admitted within the TTL (${within} ms)`);
    assert.equal(classReads('cached'), 1, 'one GET of the ClusterClass for four admissions');

    // The class changes through another container (B); container A still keeps the version before the change.
    await applyObject(mgmt.kube, asKube(clusterClass('cached', 4)), { fieldManager });
    await new Promise((r) => setTimeout(r, Math.max(0, ttlMs - (Date.now() - firstRead)) + 100));
    await assert.rejects(
      createObject(mgmt.kube, asKube(cluster('k3', 'cached', 5)), { fieldManager }),
      (err: unknown) =>
        err instanceof KubeInvalidError &&
        err.message.includes(
          'spec.topology.variables[cpu].value: Invalid value: "5": should be less than or equal to 4',
        ),
    );
    assert.equal(classReads('cached'), 1, 'read again once the TTL had passed, then kept');
  });
});
