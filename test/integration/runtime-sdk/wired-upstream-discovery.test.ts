// The deployed topology function with EXTENSION_CONFIG_DISCOVERY=upstream (in-place updates: upstream's core manager
// runs with RuntimeSDK on and its ExtensionConfig controller is the one writer, docs/beside-upstream.md): an event
// about an ExtensionConfig neither discovers nor writes; the pass fails (with backoff) until the object carries
// upstream's Discovered condition at its generation, then succeeds, and never writes the ExtensionConfig.
// test/integration/harness/upstream-inplace-gates.test.ts runs upstream's real core manager as the writer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyObject, applyStatus, getObject } from '#shared/kube/index.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { harnessFieldManager } from '#test/support/harness/clusters.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';
import { changeEvent, resetCounters, useWiredFunction } from '../runtime/wired-setup.ts';

// NOTE: read by the function's configuration when the wired setup starts it (before the tests).
process.env['EXTENSION_CONFIG_DISCOVERY'] = 'upstream';

const ctx = useWiredFunction('topology', {
  extraCrds: computeUpstreamCrds({ components: ['core'] }).filter(
    (crd) => crd.metadata.name === 'extensionconfigs.runtime.cluster.x-k8s.io',
  ),
});
const ecKey = {
  apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
  kind: 'ExtensionConfig',
  namespace: '',
  name: 'up-ext',
};

async function passOnce() {
  resetCounters(ctx);
  const result = await ctx.countedHandler(changeEvent({ ...ecKey }), localLambdaContext('wired', 60_000));
  if (result.status !== 'Handled') throw new Error(`event rejected: ${result.reason}`);
  const writes = ctx.kubeLog.mutating().filter((r) => r.path.includes('extensionconfigs'));
  return { passes: result.passes.map((p) => [p.key.kind, p.status, p.result]), writes };
}

describe('ExtensionConfig discovery left to upstream (EXTENSION_CONFIG_DISCOVERY=upstream)', () => {
  test('before upstream discovered it: an Error pass, nothing written', async () => {
    await applyObject(
      ctx.mgmt.kube,
      {
        apiVersion: ecKey.apiVersion,
        kind: 'ExtensionConfig',
        metadata: { name: ecKey.name },
        // NOTE: an unreachable URL: a pass that ran discovery would record Discovered=False.
        spec: { clientConfig: { url: 'https://127.0.0.1:1', caBundle: Buffer.from('ca').toString('base64') } },
      },
      { fieldManager: harnessFieldManager, force: true },
    );
    const { passes, writes } = await passOnce();
    assert.deepEqual(passes, [['ExtensionConfig', 'Ran', 'Error']]);
    assert.deepEqual(writes, []);
    const ec = await getObject(ctx.mgmt.kube, ecKey);
    assert.equal((ec['status'] as { conditions?: unknown[] } | undefined)?.conditions, undefined);
  });

  test("once upstream's status says Discovered at its generation: a Success pass, nothing written", async () => {
    const ec = await getObject(ctx.mgmt.kube, ecKey);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await applyStatus(
      ctx.mgmt.kube,
      {
        apiVersion: ecKey.apiVersion,
        kind: 'ExtensionConfig',
        metadata: { name: ecKey.name },
        status: {
          handlers: [],
          conditions: [
            {
              type: 'Discovered',
              status: 'True',
              observedGeneration: ec.metadata.generation,
              lastTransitionTime: now,
              reason: 'Discovered',
              message: '',
            },
          ],
        },
      },
      { fieldManager: 'capi-manager', force: true },
    );
    // NOTE: a status write does not change the generation: the event is what brings the pass here.
    ctx.clock.now += 60_000;
    const { passes, writes } = await passOnce();
    assert.deepEqual(passes, [['ExtensionConfig', 'Ran', 'Success']]);
    assert.deepEqual(writes, []);
  });
});
