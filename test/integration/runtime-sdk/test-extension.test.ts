// The Runtime SDK client against upstream's own test Runtime Extension (built from sigs.k8s.io/cluster-api/test)
// on loopback, with upstream's ExtensionConfig CRD in a real kube-apiserver: discovery recorded on the
// ExtensionConfig, lifecycle hooks that block and release through the extension's response ConfigMap, topology
// hooks, TLS with the CA bundle, failure policies, an unreachable extension and a slow one.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ExtensionConfig, ExtensionHandler } from '#shared/api/runtime-extension.ts';
import { applyObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import {
  callExtensionHandler,
  getExtensionConfig,
  reconcileExtensionConfig,
  RuntimeExtensionError,
} from '#shared/runtime-sdk/index.ts';
import { harnessFieldManager, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

let mgmt: TestCluster;
let ext: TestExtension;
let slow: Server;
let slowPort = 0;
const deps = () => ({ kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() });

const cluster: KubeObject = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { namespace: 'default', name: 'hooked', uid: '00000000-0000-0000-0000-000000000001' },
  spec: { topology: { classRef: { name: 'quick-start' }, version: 'v1.34.0' } },
};

async function putExtensionConfig(name: string, clientConfig: Record<string, unknown>): Promise<void> {
  await applyObject(
    mgmt.kube,
    {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name },
      spec: { clientConfig, settings: { extensionConfigName: name } },
    },
    { fieldManager: harnessFieldManager, force: true },
  );
}

function handlerOf(config: ExtensionConfig, hook: string): ExtensionHandler {
  const handler = config.status?.handlers?.find((h) => h.requestHook.hook === hook);
  assert.ok(handler, `no ${hook} handler on ${config.metadata.name ?? ''}`);
  return handler;
}

before(async () => {
  const crds = computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  );
  mgmt = await startManagementCluster({ name: 'runtime-sdk', extraCrds: crds });
  ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
  // A server that accepts connections and never answers: the "slow extension".
  slow = createServer(() => undefined);
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const address = slow.address();
  slowPort = typeof address === 'object' && address ? address.port : 0;
});

after(async () => {
  slow?.close();
  await ext?.stop();
  await mgmt?.stop();
});

describe("the Runtime SDK client against upstream's test extension", () => {
  test('discovery records every handler, named after the ExtensionConfig, and Discovered=True', async () => {
    await putExtensionConfig('test-ext', { url: ext.url, caBundle: ext.caBundle });
    const outcome = await reconcileExtensionConfig(deps(), 'test-ext');
    assert.equal(outcome.discovered, true, `${outcome.error ?? ''}\n${ext.logs().slice(-2000)}`);
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const names = (config.status?.handlers ?? []).map((h) => h.name);
    for (const expected of [
      'generate-patches.test-ext',
      'validate-topology.test-ext',
      'discover-variables.test-ext',
      'before-cluster-create.test-ext',
      'before-cluster-delete.test-ext',
    ]) {
      assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
    }
    const discovered = (config.status?.conditions ?? []).find((c) => (c as { type: string }).type === 'Discovered');
    assert.equal((discovered as { status: string } | undefined)?.status, 'True');
    const again = await reconcileExtensionConfig(deps(), 'test-ext');
    assert.deepEqual(again.changed, [], 'a second discovery with the same answer writes nothing');
  });

  test('BeforeClusterCreate answers non-blocking by default, blocks with the response the ConfigMap preloads, then releases', async () => {
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const handler = handlerOf(config, 'BeforeClusterCreate');
    const first = await callExtensionHandler(deps(), 'BeforeClusterCreate', config, handler, { cluster });
    assert.deepEqual([first.status, first.retryAfterSeconds], ['Success', 0]);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'hooked-test-ext-test-extension-hookresponses',
    };
    const recorded = (await getObject(mgmt.kube, configMap))['data'] as Record<string, string>;
    assert.match(recorded['BeforeClusterCreate-actualResponseStatus'] ?? '', /Status: Success, RetryAfterSeconds: 0/);

    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: configMap.name },
        data: { 'BeforeClusterCreate-preloadedResponse': '{"Status": "Success", "RetryAfterSeconds": 7}' },
      },
      { fieldManager: 'e2e', force: true },
    );
    const blocked = await callExtensionHandler(deps(), 'BeforeClusterCreate', config, handler, { cluster });
    assert.deepEqual([blocked.status, blocked.retryAfterSeconds], ['Success', 7]);

    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: configMap.name },
        data: { 'BeforeClusterCreate-preloadedResponse': '{"Status": "Success", "RetryAfterSeconds": 0}' },
      },
      { fieldManager: 'e2e', force: true },
    );
    const released = await callExtensionHandler(deps(), 'BeforeClusterCreate', config, handler, { cluster });
    assert.equal(released.retryAfterSeconds, 0);
  });

  test('a Failure answer fails the call with the extension, handler and hook named, whatever the failure policy', async () => {
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const handler = { ...handlerOf(config, 'BeforeClusterDelete'), failurePolicy: 'Ignore' as const };
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'hooked-test-ext-test-extension-hookresponses' },
        data: { 'BeforeClusterDelete-preloadedResponse': '{"Status": "Failure", "Message": "not today"}' },
      },
      { fieldManager: 'e2e', force: true },
    );
    await assert.rejects(
      callExtensionHandler(deps(), 'BeforeClusterDelete', config, handler, { cluster }),
      (err: unknown) =>
        err instanceof RuntimeExtensionError &&
        err.failure === 'ExtensionResponseFailure' &&
        err.message.includes('"before-cluster-delete.test-ext" (BeforeClusterDelete)') &&
        err.message.includes('not today'),
    );
  });

  test('DiscoverVariables returns the variables the extension defines', async () => {
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const answer = await callExtensionHandler(
      deps(),
      'DiscoverVariables',
      config,
      handlerOf(config, 'DiscoverVariables'),
      {},
    );
    assert.equal(answer.status, 'Success');
    const names = (answer.variables ?? []).map((v) => v['name']);
    assert.ok(names.length > 0, 'the test extension defines variables');
  });

  test('GeneratePatches: the extension answers a base64 JSON patch per item, keyed by the item uid', async () => {
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const template = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevClusterTemplate',
      metadata: { namespace: 'default', name: 'quick-start-cluster' },
      spec: { template: { spec: { backend: { docker: { loadBalancer: {} } } } } },
    };
    const answer = await callExtensionHandler(deps(), 'GeneratePatches', config, handlerOf(config, 'GeneratePatches'), {
      variables: [{ name: 'imageRepository', value: 'registry.example/kindest' }],
      items: [
        {
          uid: 'item-1',
          holderReference: {
            apiVersion: 'cluster.x-k8s.io/v1beta2',
            kind: 'Cluster',
            namespace: 'default',
            name: 'hooked',
            fieldPath: 'spec.infrastructureRef',
          },
          object: template,
        },
      ],
    });
    assert.equal(answer.status, 'Success', answer.message);
    assert.equal(answer.items?.length, 1);
    const item = answer.items?.[0];
    assert.deepEqual([item?.uid, item?.patchType], ['item-1', 'JSONPatch']);
    const ops = JSON.parse(Buffer.from(item?.patch ?? '', 'base64').toString('utf8')) as {
      path: string;
      value: unknown;
    }[];
    assert.ok(
      ops.some((op) => JSON.stringify(op).includes('registry.example/kindest')),
      `a patch sets the image repository: ${JSON.stringify(ops)}`,
    );
  });

  test('a CA bundle that did not sign the extension certificate fails the call (Fail) and is forgiven (Ignore)', async () => {
    const other = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
    try {
      const config = await getExtensionConfig(mgmt.kube, 'test-ext');
      const wrongCa: ExtensionConfig = {
        ...config,
        spec: { ...config.spec, clientConfig: { url: ext.url, caBundle: other.caBundle } },
      };
      const handler = handlerOf(config, 'BeforeClusterCreate');
      await assert.rejects(
        callExtensionHandler(
          deps(),
          'BeforeClusterCreate',
          wrongCa,
          { ...handler, failurePolicy: 'Fail' },
          { cluster },
        ),
        (err: unknown) => err instanceof RuntimeExtensionError && err.failure === 'ExtensionCallFailed',
      );
      const ignored = await callExtensionHandler(
        deps(),
        'BeforeClusterCreate',
        wrongCa,
        { ...handler, failurePolicy: 'Ignore' },
        { cluster },
      );
      assert.deepEqual([ignored.status, ignored.retryAfterSeconds], ['Success', 0]);
    } finally {
      await other.stop();
    }
  });

  test('a slow extension hits the handler timeout and the call fails cleanly', async () => {
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const slowConfig: ExtensionConfig = {
      ...config,
      spec: { ...config.spec, clientConfig: { url: `https://127.0.0.1:${slowPort}`, caBundle: ext.caBundle } },
    };
    const started = Date.now();
    await assert.rejects(
      callExtensionHandler(
        deps(),
        'BeforeClusterCreate',
        slowConfig,
        { ...handlerOf(config, 'BeforeClusterCreate'), timeoutSeconds: 1, failurePolicy: 'Fail' },
        { cluster },
      ),
      (err: unknown) =>
        err instanceof RuntimeExtensionError && err.failure === 'ExtensionCallFailed' && /timeout/.test(err.message),
    );
    assert.ok(Date.now() - started < 5_000, 'the 1 s timeout was honoured');
  });

  test('an extension that is down: discovery fails with the reason on the ExtensionConfig and the handlers stay', async () => {
    await putExtensionConfig('test-ext', { url: `https://127.0.0.1:${slowPort + 1}`, caBundle: ext.caBundle });
    const outcome = await reconcileExtensionConfig(deps(), 'test-ext');
    assert.equal(outcome.discovered, false);
    const config = await getExtensionConfig(mgmt.kube, 'test-ext');
    const discovered = (config.status?.conditions ?? []).find((c) => (c as { type: string }).type === 'Discovered') as
      { status: string; reason: string; message: string } | undefined;
    assert.deepEqual([discovered?.status, discovered?.reason], ['False', 'NotDiscovered']);
    assert.match(
      discovered?.message ?? '',
      /Error in discovery: failed to discover extension "test-ext": http call failed/,
    );
    assert.ok((config.status?.handlers ?? []).length > 0, 'handlers discovered before are kept');
  });
});
