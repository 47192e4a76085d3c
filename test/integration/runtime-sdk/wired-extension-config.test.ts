// The deployed topology function (functions/topology.ts) runs ExtensionConfig discovery: an event about the
// ExtensionConfig discovers upstream's test extension and records its handlers; the pass asks to run again in 10
// minutes, and the tick finds it through the due index; an extension that went away is reported on the object.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject } from '#shared/kube/index.ts';
import { tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { getExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { harnessFieldManager } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';
import { changeEvent, invoke, useWiredFunction } from '../runtime/wired-setup.ts';

const ctx = useWiredFunction('topology', {
  extraCrds: computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  ),
});
let ext: TestExtension;
const ecKey = {
  apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
  kind: 'ExtensionConfig',
  namespace: '',
  name: 'wired-ext',
};

async function putExtensionConfig(url: string): Promise<void> {
  await applyObject(
    ctx.mgmt.kube,
    {
      apiVersion: ecKey.apiVersion,
      kind: 'ExtensionConfig',
      metadata: { name: ecKey.name },
      spec: { clientConfig: { url, caBundle: ext.caBundle }, settings: { extensionConfigName: ecKey.name } },
    },
    { fieldManager: harnessFieldManager, force: true },
  );
}

describe('ExtensionConfig discovery in the deployed topology function', () => {
  before(async () => {
    ext = await startTestExtension(ctx.mgmt.controlPlane.kubeconfigPath);
  });
  after(async () => {
    await ext?.stop();
  });

  test('an event about an ExtensionConfig discovers its handlers and requeues the next discovery', async () => {
    await putExtensionConfig(ext.url);
    const passes = await invoke(ctx.functionHandler, changeEvent({ ...ecKey }));
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.status, p.result]),
      [['ExtensionConfig', 'Ran', 'Requeue']],
    );
    const config = await getExtensionConfig(ctx.mgmt.kube, ecKey.name);
    assert.ok((config.status?.handlers ?? []).some((h) => h.name === 'before-cluster-create.wired-ext'));
  });

  test('the tick rediscovers it once the requeue is due, through the due index', async () => {
    ctx.clock.now = Date.now();
    const early = await ctx.countedHandler(
      tickEvent('topology', 'tick-early', new Date(ctx.clock.now)),
      localLambdaContext('tick', 60_000),
    );
    assert.equal(early.status, 'Handled');
    if (early.status === 'Handled') {
      assert.ok(!early.passes.some((p) => p.key.kind === 'ExtensionConfig' && p.status === 'Ran'));
    }
    ctx.clock.now += 10 * 60_000 + 1_000;
    const due = await ctx.countedHandler(
      tickEvent('topology', 'tick-due', new Date(ctx.clock.now)),
      localLambdaContext('tick', 60_000),
    );
    assert.equal(due.status, 'Handled');
    if (due.status === 'Handled') {
      assert.deepEqual(
        due.passes.filter((p) => p.key.kind === 'ExtensionConfig').map((p) => [p.status, p.result]),
        [['Ran', 'Requeue']],
      );
    }
  });

  test('an ExtensionConfig whose extension is gone gets Discovered=False and an Error outcome with backoff', async () => {
    await putExtensionConfig('https://127.0.0.1:1');
    const passes = await invoke(ctx.functionHandler, changeEvent({ ...ecKey }));
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.result]),
      [['ExtensionConfig', 'Error']],
    );
    const config = await getExtensionConfig(ctx.mgmt.kube, ecKey.name);
    const discovered = (config.status?.conditions ?? []).find((c) => (c as { type: string }).type === 'Discovered') as
      { status: string; message: string } | undefined;
    assert.equal(discovered?.status, 'False');
    assert.match(discovered?.message ?? '', /failed to discover extension "wired-ext"/);
  });
});
