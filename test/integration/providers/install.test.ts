// The provider operator installs from ConfigMaps on a real API server: the core provider first, infrastructure
// waiting for it; components with substituted variables, overridden images and rendered manager args; preflight
// failures reported as conditions naming the conflicting object; an unchanged pass writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  containerOf,
  createSecret,
  ensureNamespace,
  getDeployment,
  infraSelector,
  markAvailable,
  pass,
  readProvider,
  seedInfrastructure,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

describe('provider install from ConfigMaps', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-install' });
    await waitForProviderKinds(mgmt.kube);
    await ensureNamespace(mgmt.kube, 'capi-system');
    for (const version of ['v1.0.0', 'v1.1.0']) {
      await seedReleaseConfigMap(mgmt.kube, {
        namespace: 'capi-system',
        provider: 'core',
        version,
        labels: { 'provider-components': 'fake-core' },
        versionIn: 'name',
      });
    }
    await seedInfrastructure(mgmt.kube, 'capf-system');
    await createSecret(mgmt.kube, 'capf-system', 'capf-variables', { FAKE_REGION: 'eu-west-1', FAKE_TOKEN: 's3cr3t' });
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('infrastructure waits with a condition until the core provider is installed and ready', async () => {
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', {
      version: 'v1.0.0',
      fetchConfig: infraSelector,
      configSecret: { name: 'capf-variables' },
      manager: { verbosity: 5, featureGates: { MachinePool: true, Ignition: true } },
      deployment: {
        containers: [
          {
            name: 'manager',
            imageUrl: 'mirror.example.com/fake/capf-controller:v1.0.0-patched',
            args: { '--sync-period': '5m' },
          },
        ],
      },
    });
    const waiting = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(waiting.result, 'Requeue');
    const infra = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(conditionOf(infra, 'PreflightCheckPassed')?.status, 'False');
    assert.equal(conditionOf(infra, 'PreflightCheckPassed')?.reason, 'WaitingForCoreProviderReady');
    assert.equal(conditionOf(infra, 'PreflightCheckPassed')?.message, 'Waiting for the CoreProvider to be installed.');
    assert.equal(infra.status?.installedVersion, undefined);

    // The core provider: no version given, the latest ConfigMap version is chosen and written back.
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      fetchConfig: { selector: { matchLabels: { 'provider-components': 'fake-core' } } },
    });
    const installing = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(installing.result, 'Requeue', 'installed but not yet available');
    let core = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(core.spec?.version, 'v1.1.0');
    assert.equal(conditionOf(core, 'ProviderInstalled')?.status, 'True');
    assert.equal(conditionOf(core, 'Ready')?.status, 'False');
    assert.equal(conditionOf(core, 'Ready')?.reason, 'NoDeploymentAvailableConditionReason');
    assert.equal(
      conditionOf(core, 'Ready')?.message,
      'No minimum availability condition found on the provider deployment',
    );
    assert.deepEqual(core.metadata.finalizers, ['provider.cluster.x-k8s.io']);

    // Still waiting: the core provider is installed, not Ready.
    assert.equal((await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake')).result, 'Requeue');

    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal((await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api')).result, 'Success');
    core = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(core.status?.installedVersion, 'v1.1.0');
    assert.equal(core.status?.contract, 'v1beta1');
    assert.equal(core.status?.observedGeneration, core.metadata.generation);
    assert.equal(conditionOf(core, 'PreflightCheckPassed')?.reason, 'PreflightChecksPassed');
    assert.equal(conditionOf(core, 'Ready')?.status, 'True');
    assert.equal(conditionOf(core, 'Ready')?.reason, 'MinimumReplicasAvailable');

    const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(outcome.result, 'Requeue', outcome.error);
    await markAvailable(mgmt.kube, 'capf-system', 'capf-controller-manager');
    assert.equal((await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake')).result, 'Success');
    const ready = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(ready.status?.installedVersion, 'v1.0.0');
    assert.equal(ready.status?.contract, 'v1beta1');
    assert.equal(conditionOf(ready, 'ProviderInstalled')?.reason, 'ProviderInstalled');
    assert.equal(conditionOf(ready, 'Ready')?.status, 'True');
  });

  test('installed objects carry substituted variables, the overridden image and rendered manager args', async () => {
    const creds = await getObject(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'capf-system',
      name: 'capf-credentials',
    });
    assert.deepEqual(creds['data'], { release: 'v1.0.0', region: 'eu-west-1', token: 's3cr3t' });
    assert.equal(creds.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-fake');

    const manager = containerOf(await getDeployment(mgmt.kube, 'capf-system', 'capf-controller-manager'));
    assert.equal(manager.image, 'mirror.example.com/fake/capf-controller:v1.0.0-patched');
    const args = manager.args ?? [];
    assert.ok(args.includes('--leader-elect'));
    assert.ok(args.includes('--v=5'), `verbosity from the manager spec wins: ${args.join(' ')}`);
    assert.ok(args.includes('--sync-period=5m'), `container args are rendered: ${args.join(' ')}`);
    const gates = args.find((a) => a.startsWith('--feature-gates='));
    assert.equal(gates, '--feature-gates=Ignition=true,MachinePool=true');

    const core = containerOf(await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager'));
    assert.ok(core.args?.includes('--diagnostics-address=:8443'), 'defaults fill unset variables');
    assert.equal(core.image, 'registry.k8s.io/cluster-api/cluster-api-controller:v1.1.0');
    const binding = await getObject(mgmt.kube, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: 'capi-system-capi-manager-rolebinding',
    });
    assert.deepEqual(
      (binding['subjects'] as { namespace: string }[]).map((s) => s.namespace),
      ['capi-system'],
    );
  });

  test('a second pass with nothing changed performs zero mutating requests', async () => {
    const { kube, log } = await mgmt.newClient();
    try {
      for (const [kind, ns, name] of [
        ['CoreProvider', 'capi-system', 'cluster-api'],
        ['InfrastructureProvider', 'capf-system', 'fake'],
      ] as const) {
        const outcome = await pass(kube, kind, ns, name);
        assert.equal(outcome.result, 'Success', outcome.error);
        assert.deepEqual(outcome.changed, []);
      }
      assert.deepEqual(log.mutating(), []);
      assert.ok(log.records.length > 0);
    } finally {
      kube.close();
    }
  });

  const failures = [
    {
      name: "a second infrastructure provider with the same name is refused in the operator's words",
      kind: 'InfrastructureProvider',
      namespace: 'zz-duplicate',
      provider: 'fake',
      spec: { version: 'v1.0.0', fetchConfig: infraSelector },
      condition: 'PreflightCheckPassed',
      reason: 'MoreThanOneExists',
      message: /^There is already a fake with name capf-system in the cluster\. Only one is allowed\.$/,
    },
    {
      name: 'a core provider not named cluster-api is refused',
      kind: 'CoreProvider',
      namespace: 'other-core',
      provider: 'my-core',
      spec: { version: 'v1.0.0', fetchConfig: infraSelector },
      condition: 'PreflightCheckPassed',
      reason: 'IncorrectCoreProviderNameReason',
      message: /Incorrect CoreProvider name: my-core\. It should be cluster-api/,
    },
    {
      name: "a second core provider is refused in the operator's words",
      kind: 'CoreProvider',
      namespace: 'zz-core',
      provider: 'cluster-api',
      spec: { version: 'v1.0.0', fetchConfig: infraSelector },
      condition: 'PreflightCheckPassed',
      reason: 'MoreThanOneExists',
      message: /^CoreProvider already exists in the cluster\. Only one is allowed\.$/,
    },
    {
      name: 'a provider on another contract than the core provider is refused, naming the core provider',
      kind: 'BootstrapProvider',
      namespace: 'boot-v2',
      provider: 'fakeboot',
      spec: { version: 'v2.0.0', fetchConfig: infraSelector },
      condition: 'PreflightCheckPassed',
      reason: 'CAPIVersionIncompatibility',
      message:
        /implements the v1beta2 contract version, while CoreProvider capi-system\/cluster-api is compatible with v1beta1 contract versions/,
    },
    {
      name: 'missing variables are all reported at once, sorted',
      kind: 'BootstrapProvider',
      namespace: 'boot-missing',
      provider: 'fakeboot2',
      spec: { version: 'v1.0.0', fetchConfig: infraSelector },
      condition: 'ProviderInstalled',
      reason: 'ComponentsFetchError',
      message: /FAKE_REGION, FAKE_TOKEN/,
    },
    {
      name: 'a version that is not semantic is refused',
      kind: 'ControlPlaneProvider',
      namespace: 'cp-bad-version',
      provider: 'fakecp',
      spec: { version: 'latest-and-greatest', fetchConfig: infraSelector },
      condition: 'PreflightCheckPassed',
      reason: 'IncorrectVersionFormat',
      message: /^could not parse "latest-and-greatest" as version$/,
    },
  ] as const;

  for (const c of failures) {
    test(c.name, async () => {
      await seedInfrastructure(mgmt.kube, c.namespace);
      await applyProvider(mgmt.kube, c.kind, c.namespace, c.provider, c.spec);
      const outcome = await pass(mgmt.kube, c.kind, c.namespace, c.provider);
      assert.notEqual(outcome.result, 'Success');
      const p = await readProvider(mgmt.kube, c.kind, c.namespace, c.provider);
      const cond = conditionOf(p, c.condition);
      assert.equal(cond?.status, 'False', JSON.stringify(p.status));
      assert.equal(cond?.reason, c.reason);
      assert.match(cond?.message ?? '', c.message);
      assert.equal(p.status?.installedVersion, undefined);
    });
  }

  test('the original infrastructure provider is unaffected by the duplicate', async () => {
    const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(outcome.result, 'Success', outcome.error);
  });
});
