// How long a new Cluster waits for BeforeClusterCreate through the product's own path: the forwarder watching a
// real kube-apiserver (default coalescing window), the local bus, the topology function's handler
// (createFunctionHandler) with its checkpoints in DynamoDB Local, and upstream's test extension behind its Service,
// reached through the API server's service proxy as in upstream's e2e. Upstream's ClusterUpgradeWithRuntimeSDKSpec
// reads the extension's hook-response ConfigMap within 1 s of creating the Cluster; the extension writes it when the
// hook is first called, so the measurement is creation → that ConfigMap's ADDED event. A benchmark with generous
// bounds: it prints each stage and fails only when the forwarder holds a new Cluster's change for its window again,
// or the median is far off the 1 s upstream's spec allows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { applyObject, type KubeObject } from '#shared/kube/index.ts';
import { startWatch, type WatchHandle } from '#shared/kube/watch.ts';
import { reconcilers } from '#shared/controllers.ts';
import { reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import type { HandlerResult } from '#shared/runtime/handler-result.ts';
import { createLocalBus, type LocalBus } from '#shared/runtime/local-bus.ts';
import type { PassTimings } from '#shared/runtime/types.ts';
import { reconcileClusterClass } from '#shared/topology/index.ts';
import { defaultTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import { sequentialSuffix } from '#test/support/builders/topology.ts';
import {
  genericCrd,
  harnessFieldManager,
  startManagementCluster,
  type TestCluster,
} from '#test/support/harness/clusters.ts';
import { startDynamoDB, type DynamoDBServer } from '#test/support/harness/dynamodb.ts';
import { serveBehindService, upstreamTestExtensionService } from '#test/support/harness/extension-service.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const cpApi = 'controlplane.cluster.x-k8s.io/v1beta2';
const bootstrapApi = 'bootstrap.cluster.x-k8s.io/v1beta2';
const capi = 'cluster.x-k8s.io/v1beta2';
const ns = 'create-latency';
const extensionName = 'test-ext';
/** Clusters created one after another, each once the previous one's hook was called and its passes settled. */
const samples = 5;
/** The forwarder's default coalescing window (functions/forwarder/event-batcher.ts). */
const defaultCoalesceMs = 500;

const template = (apiVersion: string, kind: string, name: string, spec: object) => ({
  apiVersion,
  kind,
  metadata: { name, namespace: ns },
  spec: { template: { spec } },
});
const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });
const hookResponses = (cluster: string) => `${cluster}-${extensionName}-test-extension-hookresponses`;

/** One Cluster's timeline, ms after its creation was accepted. */
type Sample = {
  cluster: string;
  /** The forwarder handed the Cluster's ADDED change to the bus. */
  sentMs: number;
  /** The test extension wrote its hook-response ConfigMap: BeforeClusterCreate was called. */
  hookMs: number;
  /** The steps of the first pass that ran for the Cluster. */
  timings: PassTimings | undefined;
};

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe('creation → BeforeClusterCreate through the forwarder, the bus and the topology function', () => {
  let mgmt: TestCluster;
  let ddb: DynamoDBServer;
  let ext: TestExtension;
  let bus: LocalBus;
  let forwarder: Forwarder;
  let configMaps: WatchHandle;
  const sentAt = new Map<string, number>();
  const hookAt = new Map<string, number>();
  const firstPass = new Map<string, PassTimings | undefined>();
  const put = (obj: object) =>
    applyObject(mgmt.kube, obj as KubeObject, { fieldManager: harnessFieldManager, force: true });

  before(async () => {
    [mgmt, ddb] = await Promise.all([
      startManagementCluster({
        name: 'create-latency',
        extraCrds: [
          ...computeUpstreamCrds({ components: ['core'] }).filter(
            (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
          ),
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevClusterTemplate'),
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevCluster'),
          genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DevMachineTemplate'),
          genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
          genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
          genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
        ],
      }),
      startDynamoDB(),
    ]);
    // NOTE: as upstream's e2e deploys it: behind its Service, the ExtensionConfig naming the Service.
    ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
    // NOTE: its own pod address: other suites in the same network namespace serve at 10.255.0.1:443.
    await serveBehindService(mgmt.kube, ext, { podIp: '10.255.0.3' });
    await put({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: extensionName },
      spec: {
        clientConfig: { service: { ...upstreamTestExtensionService, port: 443 }, caBundle: ext.caBundle },
        settings: { extensionConfigName: extensionName },
      },
    });
    const discovered = await reconcileExtensionConfig(
      { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
      extensionName,
    );
    assert.equal(discovered.discovered, true, discovered.error);
    await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const t of [
      template(infra, 'DevClusterTemplate', 'dev-cluster', { backend: { docker: {} } }),
      template(cpApi, 'KubeadmControlPlaneTemplate', 'dev-control-plane', { kubeadmConfigSpec: {} }),
      template(infra, 'DevMachineTemplate', 'dev-machine', { backend: { docker: {} } }),
      template(bootstrapApi, 'KubeadmConfigTemplate', 'dev-bootstrap', { joinConfiguration: {} }),
    ])
      await put(t);
    await put({
      apiVersion: capi,
      kind: 'ClusterClass',
      metadata: { namespace: ns, name: 'dev' },
      spec: {
        infrastructure: { templateRef: ref(infra, 'DevClusterTemplate', 'dev-cluster') },
        controlPlane: {
          templateRef: ref(cpApi, 'KubeadmControlPlaneTemplate', 'dev-control-plane'),
          machineInfrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'dev-machine') },
        },
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              bootstrap: { templateRef: ref(bootstrapApi, 'KubeadmConfigTemplate', 'dev-bootstrap') },
              infrastructure: { templateRef: ref(infra, 'DevMachineTemplate', 'dev-machine') },
            },
          ],
        },
      },
    });
    const cc = await reconcileClusterClass(
      { kube: mgmt.kube, randomSuffix: sequentialSuffix(), now: () => new Date() },
      { namespace: ns, name: 'dev' },
    );
    assert.equal(cc.result, 'Success', cc.error);

    const tableName = `create-latency-${process.pid}`;
    const env = {
      ...process.env,
      KUBECONFIG: mgmt.controlPlane.kubeconfigPath,
      DYNAMODB_ENDPOINT: ddb.endpoint,
      AWS_REGION: ddb.region,
      AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
      TABLE_NAME: tableName,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    // NOTE: the functions' DynamoDB client takes its credentials from the process's environment, as on Lambda.
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    const ddbClient = createDynamoDBClient(ddb);
    await ensureTable(createCheckpointStore({ client: ddbClient, tableName }));
    ddbClient.destroy();
    bus = createLocalBus({
      handlers: { topology: createFunctionHandler(reconcilers.topology!, env) },
      onResult: (_controller, _event, result: HandlerResult) => {
        if (result.status !== 'Handled') return;
        for (const pass of result.passes)
          if (pass.key.kind === 'Cluster' && pass.status === 'Ran' && !firstPass.has(pass.key.name))
            firstPass.set(pass.key.name, pass.timings);
      },
    });
    // NOTE: the forwarder as deployed: every default target, the default coalescing window.
    forwarder = startForwarder({
      kube: mgmt.kube,
      source: { kubeconfig: mgmt.controlPlane.kubeconfig },
      targets: defaultTargets(),
      sink: (batch) => {
        for (const change of batch)
          if (change.kind === 'Cluster' && change.type === 'ADDED') sentAt.set(change.name, performance.now());
        return bus.putEvents(batch);
      },
    });
    configMaps = await startWatch(
      { kubeconfig: mgmt.controlPlane.kubeconfig },
      { path: `/api/v1/namespaces/${ns}/configmaps` },
      (event) => {
        if (event.type !== 'ADDED') return;
        const name = event.object.metadata.name ?? '';
        if (name.endsWith(hookResponses(''))) hookAt.set(name.slice(0, -hookResponses('').length), performance.now());
      },
    );
    // NOTE: the forwarder's first LIST of every kind is over, so the Clusters' changes come from its watches.
    const deadline = Date.now() + 30_000;
    while ([...forwarder.watchers.values()].some((w) => w.health().state === 'listing')) {
      if (Date.now() > deadline) assert.fail('the forwarder did not finish listing');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  after(async () => {
    configMaps?.stop();
    await forwarder?.stop();
    await bus?.stop();
    await ext?.stop();
    await Promise.all([mgmt?.stop(), ddb?.stop()]);
  });

  test(`${samples} Clusters created one by one get BeforeClusterCreate well within upstream's 1 s`, async () => {
    const results: Sample[] = [];
    for (let i = 1; i <= samples; i++) {
      const cluster = `c${i}`;
      await put({
        apiVersion: capi,
        kind: 'Cluster',
        metadata: { namespace: ns, name: cluster },
        spec: {
          topology: {
            classRef: { name: 'dev' },
            version: 'v1.34.0',
            controlPlane: { replicas: 1 },
            workers: { machineDeployments: [{ class: 'default-worker', name: 'md-a', replicas: 1 }] },
          },
        },
      });
      const created = performance.now();
      const deadline = Date.now() + 30_000;
      while (!hookAt.has(cluster)) {
        if (Date.now() > deadline)
          assert.fail(`BeforeClusterCreate not called for ${cluster}\n${ext.logs().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      // NOTE: the next Cluster is created on a quiet plane: the passes this one woke have ended.
      await new Promise((r) => setTimeout(r, 2 * defaultCoalesceMs));
      await bus.drain();
      results.push({
        cluster,
        sentMs: Math.round((sentAt.get(cluster) ?? Number.NaN) - created),
        hookMs: Math.round((hookAt.get(cluster) ?? Number.NaN) - created),
        timings: firstPass.get(cluster),
      });
    }
    for (const r of results)
      console.log(
        `create-latency: ${r.cluster} change sent +${r.sentMs} ms, BeforeClusterCreate +${r.hookMs} ms; first pass ${JSON.stringify(r.timings)}`,
      );
    const sent = median(results.map((r) => r.sentMs));
    const hook = median(results.map((r) => r.hookMs));
    console.log(
      `create-latency: median change sent +${sent} ms, BeforeClusterCreate +${hook} ms (${samples} Clusters)`,
    );
    // NOTE: generous bounds on a shared machine. Holding the ADDED change for the window (as before) fails the first;
    // the second is upstream's spec's own limit.
    assert.ok(sent < defaultCoalesceMs / 2, `a new Cluster's change waited ${sent} ms in the forwarder (median)`);
    assert.ok(hook < 1_000, `BeforeClusterCreate came ${hook} ms after creation (median)`);
  });
});
