// The two refusals a user switching from the Cluster API Operator (v0.29.0) relies on, on a real API server: the same
// provider (kind and name) declared in two namespaces is refused on both, whichever came first, until one is
// removed; and a release whose metadata declares an older contract than the operator supports is refused in the
// operator's words and installs nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import { deleteObject, findObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  createSecret,
  ensureNamespace,
  infraSelector,
  installCore,
  markAvailable,
  pass,
  readProvider,
  seedInfrastructure,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const oldContractMetadata = `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
  - major: 0
    minor: 4
    contract: v1alpha4
`;

describe('preflight refusals the operator makes', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-preflight-gaps' });
    await waitForProviderKinds(mgmt.kube);
    await installCore(mgmt.kube, 'v1.0.0');
    for (const ns of ['boot-a', 'boot-b']) {
      await seedInfrastructure(mgmt.kube, ns);
      await createSecret(mgmt.kube, ns, 'vars', { FAKE_REGION: 'r', FAKE_TOKEN: 't' });
    }
  });
  after(async () => {
    await mgmt?.stop();
  });

  const spec = (ns: string) => ({
    version: 'v1.0.0',
    fetchConfig: infraSelector,
    configSecret: { name: 'vars', namespace: ns },
  });

  test('the same provider in two namespaces is refused on both, the first one too', async () => {
    await applyProvider(mgmt.kube, 'BootstrapProvider', 'boot-a', 'fakeboot', spec('boot-a'));
    await applyProvider(mgmt.kube, 'BootstrapProvider', 'boot-b', 'fakeboot', spec('boot-b'));
    for (const [ns, other] of [
      ['boot-a', 'boot-b'],
      ['boot-b', 'boot-a'],
    ] as const) {
      const outcome = await pass(mgmt.kube, 'BootstrapProvider', ns, 'fakeboot');
      assert.equal(outcome.result, 'Error', `${ns}: ${JSON.stringify(outcome)}`);
      const p = await readProvider(mgmt.kube, 'BootstrapProvider', ns, 'fakeboot');
      const c = conditionOf(p, 'PreflightCheckPassed');
      assert.equal(c?.status, 'False', ns);
      assert.equal(c?.reason, 'MoreThanOneExists', ns);
      assert.equal(c?.message, `There is already a fakeboot with name ${other} in the cluster. Only one is allowed.`);
      assert.equal(p.status?.installedVersion, undefined, ns);
    }
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'capf-controller-manager' };
    assert.equal(await findObject(mgmt.kube, { ...deployment, namespace: 'boot-a' }), undefined);
  });

  test('removing the duplicate lets the other one install', async () => {
    const ref = { apiVersion: operatorApiVersion, kind: 'BootstrapProvider', namespace: 'boot-b', name: 'fakeboot' };
    await deleteObject(mgmt.kube, ref);
    // NOTE: the deleted provider's finalizer is removed by its own (delete) pass.
    await pass(mgmt.kube, 'BootstrapProvider', 'boot-b', 'fakeboot');
    assert.equal(await findObject(mgmt.kube, ref), undefined);
    await pass(mgmt.kube, 'BootstrapProvider', 'boot-a', 'fakeboot');
    await markAvailable(mgmt.kube, 'boot-a', 'capf-controller-manager');
    const outcome = await pass(mgmt.kube, 'BootstrapProvider', 'boot-a', 'fakeboot');
    assert.equal(outcome.result, 'Success', outcome.error);
    const p = await readProvider(mgmt.kube, 'BootstrapProvider', 'boot-a', 'fakeboot');
    assert.equal(conditionOf(p, 'PreflightCheckPassed')?.status, 'True');
    assert.equal(p.status?.installedVersion, 'v1.0.0');
  });

  test('an installed provider keeps running when a duplicate appears; the duplicate is refused', async () => {
    await applyProvider(mgmt.kube, 'BootstrapProvider', 'boot-b', 'fakeboot', spec('boot-b'));
    const dup = await pass(mgmt.kube, 'BootstrapProvider', 'boot-b', 'fakeboot');
    assert.equal(dup.result, 'Error');
    const installed = await pass(mgmt.kube, 'BootstrapProvider', 'boot-a', 'fakeboot');
    assert.equal(installed.result, 'Success', installed.error);
    await deleteObject(mgmt.kube, {
      apiVersion: operatorApiVersion,
      kind: 'BootstrapProvider',
      namespace: 'boot-b',
      name: 'fakeboot',
    });
    await pass(mgmt.kube, 'BootstrapProvider', 'boot-b', 'fakeboot');
  });

  test("a release on an older contract than the operator supports is refused in the operator's words", async () => {
    await ensureNamespace(mgmt.kube, 'capo-system');
    await seedReleaseConfigMap(mgmt.kube, {
      namespace: 'capo-system',
      provider: 'infrastructure',
      version: 'v0.4.7',
      labels: { 'provider-components': 'old-infra' },
      versionIn: 'label',
      metadata: oldContractMetadata,
    });
    await createSecret(mgmt.kube, 'capo-system', 'vars', { FAKE_REGION: 'r', FAKE_TOKEN: 't' });
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capo-system', 'old', {
      version: 'v0.4.7',
      fetchConfig: { selector: { matchLabels: { 'provider-components': 'old-infra' } } },
      configSecret: { name: 'vars', namespace: 'capo-system' },
    });
    const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capo-system', 'old');
    assert.equal(outcome.result, 'Error', JSON.stringify(outcome));
    const p = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capo-system', 'old');
    const c = conditionOf(p, 'ProviderInstalled');
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'CAPIVersionIncompatibility');
    assert.ok(
      c?.message?.startsWith(
        'CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider old.',
      ),
      c?.message,
    );
    assert.equal(p.status?.installedVersion, undefined);
    assert.equal(p.status?.contract, undefined);
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'capo-system', name: 'capf-controller-manager' };
    assert.equal(await findObject(mgmt.kube, d), undefined);
  });
});
