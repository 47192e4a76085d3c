// The providers pass warns on the core provider when its manager's feature gates cannot work beside capi-serverless
// (docs/beside-upstream.md, in-place updates): `InPlaceUpdates` without `RuntimeSDK` (upstream's core manager exits,
// test/integration/harness/upstream-inplace-gates.test.ts), `RuntimeSDK` on while capi-serverless also discovers
// ExtensionConfigs (two writers), and EXTENSION_CONFIG_DISCOVERY=upstream with `RuntimeSDK` off (no writer). The
// condition is `FeatureGatesCompatible` False with the reason; a provider without a conflict carries none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import type { ExtensionConfigDiscovery } from '#shared/providers/desired/compute-feature-gate-conflict.ts';
import { reconcileProvider } from '#shared/providers/reconcile-provider.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  containerOf,
  getDeployment,
  installCore,
  markAvailable,
  operatorManager,
  readProvider,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const core = { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' } as const;
const spec = (featureGates?: Record<string, boolean>): ProviderSpec => ({
  version: 'v1.0.0',
  fetchConfig: { selector: { matchLabels: { 'provider-components': 'fake-core' } } },
  ...(featureGates ? { manager: { featureGates } } : {}),
});

/** Passes (marking the Deployment available as its controller would) until the core provider's pass succeeds. */
async function passCore(mgmt: TestCluster, discovery?: ExtensionConfigDiscovery): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const outcome = await reconcileProvider(
      {
        kube: mgmt.kube,
        fetch: (url) => Promise.reject(new Error(`unexpected network access to ${url}`)),
        now: () => new Date('2025-01-01T00:00:00Z'),
        fieldManager: operatorManager,
        ...(discovery ? { extensionConfigDiscovery: discovery } : {}),
      },
      core,
    );
    await markAvailable(mgmt.kube, core.namespace, 'capi-controller-manager');
    if (outcome.result === 'Success') return;
    assert.notEqual(outcome.result, 'Error', outcome.error);
  }
  assert.fail('the core provider pass did not succeed in 3 passes');
}

async function featureGatesCondition(mgmt: TestCluster) {
  const provider = await readProvider(mgmt.kube, core.kind, core.namespace, core.name);
  return conditionOf(provider, 'FeatureGatesCompatible');
}

async function managerGates(mgmt: TestCluster): Promise<string | undefined> {
  const d = await getDeployment(mgmt.kube, core.namespace, 'capi-controller-manager');
  return containerOf(d).args?.find((a) => a.startsWith('--feature-gates='));
}

describe('the providers pass warns on feature gates that cannot work beside capi-serverless', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-gates' });
    await waitForProviderKinds(mgmt.kube);
    await installCore(mgmt.kube);
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('the default gates: no condition', async () => {
    assert.equal(await featureGatesCondition(mgmt), undefined);
  });

  test('InPlaceUpdates on, RuntimeSDK off: False, InPlaceUpdatesRequiresRuntimeSDK (installed as asked)', async () => {
    await applyProvider(mgmt.kube, core.kind, core.namespace, core.name, spec({ InPlaceUpdates: true }));
    await passCore(mgmt);
    assert.match((await managerGates(mgmt)) ?? '', /InPlaceUpdates=true/);
    const condition = await featureGatesCondition(mgmt);
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'InPlaceUpdatesRequiresRuntimeSDK');
    assert.match(condition?.message ?? '', /MachineDeployment and Machine controllers refuse to start/);
  });

  test('RuntimeSDK on too while capi-serverless discovers ExtensionConfigs: False, TwoExtensionConfigWriters', async () => {
    await applyProvider(
      mgmt.kube,
      core.kind,
      core.namespace,
      core.name,
      spec({ InPlaceUpdates: true, RuntimeSDK: true }),
    );
    await passCore(mgmt);
    assert.match((await managerGates(mgmt)) ?? '', /RuntimeSDK=true/);
    const condition = await featureGatesCondition(mgmt);
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'TwoExtensionConfigWriters');
  });

  test('EXTENSION_CONFIG_DISCOVERY=upstream with RuntimeSDK on: the condition goes', async () => {
    await passCore(mgmt, 'upstream');
    assert.equal(await featureGatesCondition(mgmt), undefined);
  });

  test('EXTENSION_CONFIG_DISCOVERY=upstream with RuntimeSDK off: False, NoExtensionConfigWriter', async () => {
    await applyProvider(mgmt.kube, core.kind, core.namespace, core.name, spec());
    await passCore(mgmt, 'upstream');
    const condition = await featureGatesCondition(mgmt);
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'NoExtensionConfigWriter');
  });
});
