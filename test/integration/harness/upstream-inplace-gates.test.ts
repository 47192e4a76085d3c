// In-place updates beside capi-serverless (docs/beside-upstream.md): upstream v1.14.2's real core manager in the
// handoff. With `InPlaceUpdates` on and `RuntimeSDK` off it exits (its MachineDeployment and Machine controllers need a
// Runtime SDK client), the configuration the providers pass warns about. With the chosen gates (`RuntimeSDK` on,
// `ClusterTopology` still off) it starts them, and its ExtensionConfig controller discovers upstream's test extension
// and is the one writer of the ExtensionConfig: capi-serverless, with EXTENSION_CONFIG_DISCOVERY=upstream, reads it
// with zero mutating requests. The last test shows what the one-writer check catches: capi-serverless's own discovery
// (the default) would write the status too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import { checkExtensionConfig, reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import {
  inPlaceUpdatesFeatureGates,
  startUpstreamCapi,
  upstreamManagerUsers,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';

const ecKey = { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', name: 'inplace-ext' };
const capiServerlessManager = 'capi-serverless';

type ManagedField = { manager: string; operation: string; subresource?: string };
const managedFields = (o: KubeObject) => (o.metadata as { managedFields?: ManagedField[] }).managedFields ?? [];

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, logs: () => string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what} not reached in ${timeoutMs} ms\n${logs().slice(-20_000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('upstream core manager with in-place updates beside capi-serverless', { timeout: 600_000 }, () => {
  let mgmt: TestCluster;
  let ext: TestExtension | undefined;
  let capi: UpstreamCapi | undefined;

  before(async () => {
    mgmt = await startManagementCluster({ name: 'inplace', crds: 'none' });
  });
  after(async () => {
    await capi?.stop();
    await ext?.stop();
    await mgmt?.stop();
  });

  test('InPlaceUpdates on with RuntimeSDK off: the core manager refuses to start', async () => {
    await assert.rejects(
      startUpstreamCapi(mgmt, { managers: ['core'], featureGates: { core: { InPlaceUpdates: true } } }),
      /RuntimeClient must not be nil when InPlaceUpdates feature gate is enabled/,
    );
  });

  test('with RuntimeSDK on it starts its MachineDeployment, Machine and ExtensionConfig controllers, no topology', async () => {
    capi = await startUpstreamCapi(mgmt, { managers: ['core'], featureGates: inPlaceUpdatesFeatureGates });
    const logs = capi.logs;
    const started = (name: string) => new RegExp(`"Starting workers"[^\\n]*controller="${name}"`);
    for (const name of ['machinedeployment', 'machine', 'extensionconfig', 'machineset', 'cluster']) {
      await eventually(`controller ${name} started`, async () => (started(name).test(logs()) ? true : undefined), logs);
    }
    for (const name of ['topology/cluster', 'clusterclass', 'topology/machinedeployment', 'topology/machineset']) {
      assert.doesNotMatch(logs(), new RegExp(`"Starting Controller"[^\\n]*controller="${name}"`), name);
    }
  });

  test("upstream's ExtensionConfig controller is the one writer; capi-serverless reads with no write", async () => {
    assert.ok(capi, 'the previous test started the core manager');
    const logs = capi.logs;
    ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
    await applyObject(
      mgmt.kube,
      {
        apiVersion: ecKey.apiVersion,
        kind: 'ExtensionConfig',
        metadata: { name: ecKey.name },
        spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle }, settings: { extensionConfigName: ecKey.name } },
      },
      { fieldManager: 'test-user', force: true },
    );
    const { kube, log } = await mgmt.newClient();
    try {
      const checked = await eventually(
        'upstream discovered the extension',
        async () => {
          // NOTE: upstream's patch helper writes the conditions and the rest of the status in two requests.
          const c = await checkExtensionConfig({ kube }, ecKey.name);
          return c.discovered && c.handlers.length > 0 ? c : undefined;
        },
        logs,
      );
      const ec = await getObject(mgmt.kube, { ...ecKey, namespace: '' });
      // The in-place hooks upstream's core manager calls are among them.
      for (const hook of ['can-update-machineset', 'update-machine', 'before-cluster-create']) {
        assert.ok(checked.handlers.includes(`${hook}.${ecKey.name}`), checked.handlers.join(','));
      }
      assert.deepEqual(log.mutating(), [], 'capi-serverless (EXTENSION_CONFIG_DISCOVERY=upstream) writes nothing');
      const statusWriters = managedFields(ec)
        .filter((f) => f.subresource === 'status')
        .map((f) => f.manager);
      assert.ok(statusWriters.length > 0, `the status has a writer: ${JSON.stringify(managedFields(ec))}`);
      assert.ok(!statusWriters.includes(capiServerlessManager), statusWriters.join(','));
      const conditions = (ec['status'] as { conditions?: { type: string }[] }).conditions ?? [];
      // NOTE: upstream's writable ExtensionConfig controller also writes the Paused condition; capi-serverless never does.
      assert.deepEqual(conditions.map((c) => c.type).sort(), ['Discovered', 'Paused']);
      assert.equal(upstreamManagerUsers.core, 'capi-manager');
    } finally {
      kube.close();
    }
  });

  test("capi-serverless's own discovery (the default) would be a second writer of the status", async () => {
    await reconcileExtensionConfig(
      { kube: mgmt.kube, fieldManager: capiServerlessManager, now: () => Date.now() },
      ecKey.name,
    );
    const ec = await getObject(mgmt.kube, { ...ecKey, namespace: '' });
    const statusWriters = managedFields(ec)
      .filter((f) => f.subresource === 'status')
      .map((f) => f.manager);
    assert.ok(statusWriters.includes(capiServerlessManager), statusWriters.join(','));
    assert.ok(
      statusWriters.some((m) => m !== capiServerlessManager),
      statusWriters.join(','),
    );
  });
});
