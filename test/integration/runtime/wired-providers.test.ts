// functions/providers.ts as deployed, driven with EventBridge events against a real management cluster and DynamoDB
// Local: a CoreProvider event installs the core provider from release ConfigMaps, a later pass finds it Ready, an
// unchanged provider costs no writes, and a new release ConfigMap reaches the provider that selects it.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import {
  applyProvider,
  conditionOf,
  ensureNamespace,
  getDeployment,
  markAvailable,
  readProvider,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';
import { changeEvent, ddbWrites, invoke, resetCounters, useWiredFunction } from './wired-setup.ts';

const ctx = useWiredFunction('providers');
const core = { apiVersion: operatorApiVersion, kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' };
const coreKey = {
  controller: 'providers' as const,
  kind: 'CoreProvider',
  namespace: 'capi-system',
  name: 'cluster-api',
};
const selector = { matchLabels: { 'provider-components': 'fake-core' } };

async function seed(version: string) {
  await seedReleaseConfigMap(ctx.mgmt.kube, {
    namespace: 'capi-system',
    provider: 'core',
    version,
    labels: selector.matchLabels,
    versionIn: 'name',
  });
}

describe('the wired providers function', () => {
  before(async () => {
    await waitForProviderKinds(ctx.mgmt.kube);
    await ensureNamespace(ctx.mgmt.kube, 'capi-system');
    await seed('v1.0.0');
    await applyProvider(ctx.mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.0.0',
      fetchConfig: { selector },
    });
  });

  test('a CoreProvider event installs the core provider from its release ConfigMaps and records the checkpoint', async () => {
    const passes = await invoke(ctx.functionHandler, changeEvent({ ...core, type: 'ADDED' }));
    assert.equal(passes.length, 1);
    assert.equal(passes[0]?.status, 'Ran');
    assert.equal(passes[0]?.result, 'Requeue', 'installed, waiting for its Deployment to become available');
    const deployment = await getDeployment(ctx.mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.match(JSON.stringify(deployment['spec']), /cluster-api-controller:v1\.0\.0/);
    const provider = await readProvider(ctx.mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(conditionOf(provider, 'ProviderInstalled')?.status, 'True');
    const checkpoint = await getCheckpoint(ctx.store, coreKey);
    assert.equal(checkpoint?.result, 'Requeue');
    assert.ok((checkpoint?.nextAttemptAt ?? 0) > Date.now() - 1_000, 'a requeue is scheduled');
  });

  test('once its Deployment is available, the requeued pass finds the provider Ready', async () => {
    await markAvailable(ctx.mgmt.kube, 'capi-system', 'capi-controller-manager');
    const checkpoint = await getCheckpoint(ctx.store, coreKey);
    ctx.clock.now = (checkpoint?.nextAttemptAt ?? Date.now()) + 1;
    const passes = await invoke(ctx.countedHandler, changeEvent(core));
    assert.deepEqual(
      passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    const provider = await readProvider(ctx.mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(provider.status?.installedVersion, 'v1.0.0');
    assert.equal(conditionOf(provider, 'Ready')?.status, 'True');
  });

  test('a second identical event is skipped with zero mutating requests and zero DynamoDB writes', async () => {
    resetCounters(ctx);
    const passes = await invoke(ctx.countedHandler, changeEvent(core));
    assert.deepEqual(
      passes.map((p) => [p.status, p.reason]),
      [['Skipped', 'UpToDate']],
    );
    assert.deepEqual(ctx.kubeLog.mutating(), []);
    assert.deepEqual(ddbWrites(ctx), []);
  });

  test('a new release ConfigMap maps to the provider selecting it, and its inputs changed', async () => {
    await seed('v1.1.0');
    resetCounters(ctx);
    const passes = await invoke(
      ctx.countedHandler,
      changeEvent({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'capi-system', name: 'v1.1.0', type: 'ADDED' }),
    );
    assert.deepEqual(
      passes.map((p) => [p.key.kind, p.key.name, p.status, p.result]),
      [['CoreProvider', 'cluster-api', 'Ran', 'Success']],
    );
    const unrelated = await invoke(
      ctx.countedHandler,
      changeEvent({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'kube-root-ca.crt' }),
    );
    assert.deepEqual(unrelated, [], 'a ConfigMap no provider reads maps to nothing');
  });
});
