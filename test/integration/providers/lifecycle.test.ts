// Upgrades, contract changes with pausing, and guarded deletion on a real API server: an upgrade within a contract
// keeps CRDs and user objects; a change of the core provider's contract waits until every provider is paused; paused
// providers scale to 0 and come back to their recorded replicas, beside providers on a contract still accepted; deleting a provider waits until no workload Cluster uses it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import { providerPausedAnnotation } from '#shared/providers/desired/is-provider-paused.ts';
import { applyObject, deleteObject, findObject, getObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  containerOf,
  createSecret,
  getDeployment,
  infraSelector,
  installCore,
  markAvailable,
  pass,
  readProvider,
  replicasOf,
  seedInfrastructure,
  userManager,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const coreSelector = { selector: { matchLabels: { 'provider-components': 'fake-core' } } };
const paused = 'management.cluster.x-k8s.io/original-controller-replicas';

describe('provider lifecycle', () => {
  let mgmt: TestCluster;
  const core = () => pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
  const infra = () => pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
  const infraSpec = (version: string, extra: Record<string, unknown> = {}) => ({
    version,
    fetchConfig: infraSelector,
    configSecret: { name: 'capf-variables' },
    deployment: { replicas: 2 },
    ...extra,
  });

  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-lifecycle' });
    await waitForProviderKinds(mgmt.kube);
    await installCore(mgmt.kube, 'v1.0.0');
    await seedInfrastructure(mgmt.kube, 'capf-system');
    await createSecret(mgmt.kube, 'capf-system', 'capf-variables', { FAKE_REGION: 'r1', FAKE_TOKEN: 't1' });
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', infraSpec('v1.0.0'));
    await infra();
    await markAvailable(mgmt.kube, 'capf-system', 'capf-controller-manager');
    assert.equal((await infra()).result, 'Success');
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('an upgrade within a contract keeps CRDs and user objects', async () => {
    const widget = {
      apiVersion: 'core.fake.example.com/v1beta1',
      kind: 'Widget',
      metadata: { namespace: 'default', name: 'users-widget' },
      spec: { size: 3 },
    };
    await applyObject(mgmt.kube, widget, { fieldManager: userManager });
    const crdBefore = await getObject(mgmt.kube, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'widgets.core.fake.example.com',
    });

    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.1.0',
      fetchConfig: coreSelector,
    });
    const outcome = await core();
    assert.equal(outcome.result, 'Requeue', outcome.error);
    assert.ok(outcome.changed.some((c) => c.startsWith('deleted Deployment capi-system/capi-controller-manager')));
    const manager = containerOf(await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager'));
    assert.equal(manager.image, 'registry.k8s.io/cluster-api/cluster-api-controller:v1.1.0');

    const crdAfter = await getObject(mgmt.kube, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'widgets.core.fake.example.com',
    });
    assert.equal(crdAfter.metadata.uid, crdBefore.metadata.uid, 'the CRD was kept, not recreated');
    const survivor = await findObject(mgmt.kube, { ...widget, namespace: 'default', name: 'users-widget' });
    assert.deepEqual(survivor?.['spec'], { size: 3 });

    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal((await core()).result, 'Success');
    const p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(p.status?.installedVersion, 'v1.1.0');
    assert.equal(conditionOf(p, 'ProviderUpgraded')?.status, 'True');
    assert.equal(conditionOf(p, 'ProviderUpgraded')?.reason, 'ProviderUpgraded');
  });

  test('a downgrade is refused', async () => {
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.0.0',
      fetchConfig: coreSelector,
    });
    assert.equal((await core()).result, 'Error');
    const p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(conditionOf(p, 'PreflightCheckPassed')?.reason, 'UnsupportedProviderDowngradeReason');
    assert.match(conditionOf(p, 'PreflightCheckPassed')?.message ?? '', /CoreProvider capi-system\/cluster-api/);
    assert.equal(p.status?.installedVersion, 'v1.1.0');

    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.1.0',
      fetchConfig: coreSelector,
    });
    assert.equal((await core()).result, 'Success');
  });

  test('a contract change is refused until every provider is paused', async () => {
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v2.0.0',
      fetchConfig: coreSelector,
    });
    assert.equal((await core()).result, 'Requeue');
    let p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    const cond = conditionOf(p, 'PreflightCheckPassed');
    assert.equal(cond?.reason, 'ContractChangeRequiresPause');
    assert.match(
      cond?.message ?? '',
      /not paused: CoreProvider capi-system\/cluster-api, InfrastructureProvider capf-system\/fake/,
    );
    assert.equal(p.status?.installedVersion, 'v1.1.0');

    // The operator's own CRDs have no spec.paused: providers pause with Cluster API's pause annotation.
    const crd = await getObject(mgmt.kube, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'coreproviders.operator.cluster.x-k8s.io',
    });
    assert.equal(JSON.stringify(crd).includes('"paused"'), false);
    // Pausing the core provider alone scales it to 0 but is not enough.
    await applyProvider(
      mgmt.kube,
      'CoreProvider',
      'capi-system',
      'cluster-api',
      { version: 'v2.0.0', fetchConfig: coreSelector },
      { [providerPausedAnnotation]: '' },
    );
    assert.equal((await core()).result, 'Requeue');
    let d = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal(replicasOf(d), 0);
    assert.equal(d.metadata.annotations?.[paused], '1');
    p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.match(
      conditionOf(p, 'PreflightCheckPassed')?.message ?? '',
      /\(not paused: InfrastructureProvider capf-system\/fake\)$/,
    );

    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', infraSpec('v1.0.0'), {
      [providerPausedAnnotation]: 'true',
    });
    assert.equal((await infra()).result, 'Success');
    d = await getDeployment(mgmt.kube, 'capf-system', 'capf-controller-manager');
    assert.equal(replicasOf(d), 0);
    assert.equal(d.metadata.annotations?.[paused], '2');

    // Everyone is paused: the core provider upgrades, and stays at 0.
    const upgraded = await core();
    assert.notEqual(upgraded.result, 'Error', upgraded.error);
    p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(p.status?.installedVersion, 'v2.0.0');
    assert.equal(p.status?.contract, 'v1beta2');
    d = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal(containerOf(d).image, 'registry.k8s.io/cluster-api/cluster-api-controller:v2.0.0');
    assert.equal(replicasOf(d), 0);
    assert.equal(d.metadata.annotations?.[paused], '1');
  });

  test('a v1beta2 core provider unpauses beside a v1beta1 infrastructure provider, which runs and later upgrades unpaused', async () => {
    // clusterctl's window: a v1beta2 core provider accepts v1beta1 providers, so nothing holds the core at 0.
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v2.0.0',
      fetchConfig: coreSelector,
    });
    const unpaused = await core();
    assert.notEqual(unpaused.result, 'Error', unpaused.error);
    let d = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal(replicasOf(d), 1);
    assert.equal(d.metadata.annotations?.[paused], undefined);
    const p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(conditionOf(p, 'PreflightCheckPassed')?.status, 'True');

    // The infrastructure provider stays on v1.0.0 (v1beta1) and unpauses.
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', infraSpec('v1.0.0'));
    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    await core();
    const infraUnpaused = await infra();
    assert.notEqual(infraUnpaused.result, 'Error', infraUnpaused.error);
    d = await getDeployment(mgmt.kube, 'capf-system', 'capf-controller-manager');
    assert.equal(replicasOf(d), 2);
    assert.equal(d.metadata.annotations?.[paused], undefined);
    let i = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(conditionOf(i, 'PreflightCheckPassed')?.status, 'True');
    assert.equal(i.status?.contract, 'v1beta1');

    // Moving the infrastructure provider to v1beta2 stays inside the window: no pausing needed, never at 0.
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', infraSpec('v2.0.0'));
    const infraUpgrade = await infra();
    assert.notEqual(infraUpgrade.result, 'Error', infraUpgrade.error);
    d = await getDeployment(mgmt.kube, 'capf-system', 'capf-controller-manager');
    assert.equal(containerOf(d).image, 'registry.k8s.io/fake/capf-controller:v2.0.0');
    assert.equal(replicasOf(d), 2);
    i = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(i.status?.contract, 'v1beta2');
    assert.equal(i.status?.installedVersion, 'v2.0.0');
  });

  test('deleting a provider waits until no workload Cluster uses it, then removes its components', async () => {
    const cluster = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: 'default', name: 'workload-1' },
      spec: {
        infrastructureRef: {
          apiGroup: 'infrastructure.fake.example.com',
          kind: 'FakeCluster',
          name: 'workload-1',
        },
      },
    };
    await applyObject(mgmt.kube, cluster, { fieldManager: userManager });
    const infraRef = {
      apiVersion: operatorApiVersion,
      kind: 'InfrastructureProvider',
      namespace: 'capf-system',
      name: 'fake',
    };
    await deleteObject(mgmt.kube, infraRef);

    assert.equal((await infra()).result, 'Requeue');
    const p = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(conditionOf(p, 'Deleting')?.status, 'True');
    assert.equal(conditionOf(p, 'Deleting')?.reason, 'WaitingForClustersDeletion');
    assert.match(conditionOf(p, 'Deleting')?.message ?? '', /Cluster default\/workload-1/);
    assert.ok(
      await findObject(mgmt.kube, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'capf-system',
        name: 'capf-controller-manager',
      }),
    );

    // The core provider cannot go while the infrastructure provider exists.
    await deleteObject(mgmt.kube, { ...infraRef, kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' });
    assert.equal((await core()).result, 'Requeue');
    const c = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(conditionOf(c, 'Deleting')?.reason, 'WaitingForProvidersDeletion');
    assert.match(conditionOf(c, 'Deleting')?.message ?? '', /InfrastructureProvider capf-system\/fake/);

    await deleteObject(mgmt.kube, {
      apiVersion: cluster.apiVersion,
      kind: 'Cluster',
      namespace: 'default',
      name: 'workload-1',
    });
    const done = await infra();
    assert.equal(done.result, 'Success', done.error);
    assert.ok(done.changed.includes('removed finalizer'));
    assert.equal(await findObject(mgmt.kube, infraRef), undefined);
    assert.equal(
      await findObject(mgmt.kube, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'capf-system',
        name: 'capf-controller-manager',
      }),
      undefined,
    );
    assert.ok(
      await findObject(mgmt.kube, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: 'fakeclusters.infrastructure.fake.example.com',
      }),
      'CRDs are kept',
    );

    const coreDone = await core();
    assert.equal(coreDone.result, 'Success', coreDone.error);
    assert.equal(
      await findObject(mgmt.kube, { ...infraRef, kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' }),
      undefined,
    );
  });
});
