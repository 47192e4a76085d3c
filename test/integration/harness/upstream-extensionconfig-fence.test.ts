// Why in-place updates beside capi-serverless leave ExtensionConfig discovery to upstream instead of fencing upstream's
// ExtensionConfig writes the way its ClusterResourceSet writes are fenced (docs/beside-upstream.md): upstream v1.14.2's
// real core manager, with RuntimeSDK and InPlaceUpdates on, under a ValidatingAdmissionPolicy that refuses its writes to
// ExtensionConfigs, while capi-serverless discovers them. Its writable ExtensionConfig controller cannot be made
// read-only. At start its registry warm-up discovers every ExtensionConfig and patches only what differs: here
// capi-serverless's status is what upstream computes, so it writes nothing and the warm-up registers them (a status
// that differed would be refused, and after 60 s of failed warm-ups upstream's manager exits). After that, each
// reconcile writes the Paused condition first (capi-serverless does not write it), is refused, and returns before
// registering: an ExtensionConfig created or changed after the start never reaches the registry its MachineDeployment
// and Machine controllers call CanUpdateMachineSet/UpdateMachine through.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, type KubeObject } from '#shared/kube/index.ts';
import { reconcileExtensionConfig } from '#shared/runtime-sdk/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import {
  inPlaceUpdatesFeatureGates,
  startUpstreamCapi,
  upstreamManagerUsers,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { installUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

const policyName = 'capi-serverless-extensionconfig-fence';

/** The fence the rejected story needs: the core manager may not write ExtensionConfigs or their status. */
function fencePolicy(user: string): KubeObject[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policyName },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['runtime.cluster.x-k8s.io'],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE', 'DELETE'],
              resources: ['extensionconfigs', 'extensionconfigs/status'],
            },
          ],
        },
        matchConditions: [{ name: 'core-manager', expression: `request.userInfo.username == '${user}'` }],
        validations: [{ expression: 'false', message: 'ExtensionConfigs are discovered by capi-serverless' }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policyName },
      spec: { policyName, validationActions: ['Deny'] },
    },
  ];
}

async function discoverAsCapiServerless(mgmt: TestCluster, ext: TestExtension, name: string): Promise<void> {
  await applyObject(
    mgmt.kube,
    {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name },
      spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle }, settings: { extensionConfigName: name } },
    },
    { fieldManager: 'test-user', force: true },
  );
  const outcome = await reconcileExtensionConfig(
    { kube: mgmt.kube, fieldManager: 'capi-serverless', now: () => Date.now() },
    name,
  );
  assert.ok(outcome.discovered, outcome.error);
}

describe('fencing upstream ExtensionConfig writes instead (the rejected story)', { timeout: 600_000 }, () => {
  let mgmt: TestCluster;
  let ext: TestExtension;
  let capi: UpstreamCapi | undefined;

  before(async () => {
    mgmt = await startManagementCluster({ name: 'ec-fence', crds: 'none' });
    await installUpstreamCrds(mgmt.kube, { components: ['core'] });
    ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
    for (const o of fencePolicy(upstreamManagerUsers.core)) {
      await applyObject(mgmt.kube, o, { fieldManager: 'test-user', force: true });
    }
  });
  after(async () => {
    await capi?.stop();
    await ext?.stop();
    await mgmt?.stop();
  });

  test('the warm-up registers what exists at start; every reconcile after it stops at a refused write', async () => {
    await discoverAsCapiServerless(mgmt, ext, 'early-ext');
    capi = await startUpstreamCapi(mgmt, { managers: ['core'], featureGates: inPlaceUpdatesFeatureGates });
    await discoverAsCapiServerless(mgmt, ext, 'late-ext');
    const logs = capi.logs;
    const deadline = Date.now() + 90_000;
    const refused = (name: string) =>
      new RegExp(`ExtensionConfigs are discovered by capi-serverless[^\\n]*ExtensionConfig="?${name}`);
    while (Date.now() < deadline && !(refused('early-ext').test(logs()) && refused('late-ext').test(logs()))) {
      await new Promise((r) => setTimeout(r, 1000));
    }
    const out = logs();
    assert.match(out, /The extension registry is warmed up/, out.slice(-6000));
    assert.match(out, refused('early-ext'), out.slice(-6000));
    assert.match(out, refused('late-ext'), out.slice(-6000));
  });
});
