// Adoption from the Cluster API Operator on a real API server: a core provider installed the way the operator leaves
// it (components applied by `capi-operator`, its components cache Secret, the bare-hex applied-spec hash on both,
// its status) is taken over with zero mutating requests; a later upgrade proceeds as usual and leaves a cache and
// hash the operator would accept; and with the source gone, a provider restored without status is re-applied from
// the cache alone.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import {
  applyObject,
  deleteObject,
  findObject,
  getObject,
  listObjects,
  patchObject,
  refOf,
  updateStatus,
} from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { handoffAnnotation } from '#shared/providers/desired/compute-handoff.ts';
import { computeProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import { defaultFetchPolicy } from '#shared/providers/fetch/fetch-policy.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  createSecret,
  ensureNamespace,
  getDeployment,
  markAvailable,
  pass,
  readComponents,
  readMetadata,
  readProvider,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const hashAnnotation = 'operator.cluster.x-k8s.io/applied-spec-hash';
const operatorManager = 'capi-operator';
const selector = { matchLabels: { 'provider-components': 'operator-core' } };
const at = '2025-01-01T00:00:00Z';

// Go's encoding/json of a value decoded into maps: sorted keys, `<`, `>`, `&` escaped (written here independently of
// shared/, so the test checks the implementation against a second reading of the operator's code).
function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${goJson(k)}:${goJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

// The spec bytes Go produced for this provider (test/support/golden/operator-hash).
const golden = JSON.parse(
  readFileSync(new URL('../../support/fixtures/golden/operator-hash-golden.json', import.meta.url), 'utf8'),
) as { name: string; specJson: string }[];
const goldenSpec = (name: string) => golden.find((g) => g.name === name)?.specJson ?? '';
const specJson = goldenSpec("the adoption test's core provider");

/** The operator's `setCacheHash`: sha256 over spec, selected ConfigMap data and binaryData, cache data, no config file. */
function operatorHash(cm: KubeObject, cacheData: Record<string, string>, spec = specJson): string {
  const parts = [spec, goJson(cm['data']), goJson(cm['binaryData']), goJson(cacheData), '""'];
  return createHash('sha256').update(parts.join('')).digest('hex');
}

/** Installs cluster-api v1.0.0 the way the Cluster API Operator leaves it. */
async function installAsOperator(kube: KubeClient): Promise<void> {
  await ensureNamespace(kube, 'capi-system');
  await seedReleaseConfigMap(kube, {
    namespace: 'capi-system',
    provider: 'core',
    version: 'v1.0.0',
    labels: selector.matchLabels,
    versionIn: 'name',
  });
  await applyObject(
    kube,
    {
      apiVersion: operatorApiVersion,
      kind: 'CoreProvider',
      // NOTE: opted out of the handoff: this operator install does not carry it, so taking it over would be a real
      // change (handoff-upstream-components.test.ts); operator-upstream-components.test.ts adopts one that does.
      metadata: {
        namespace: 'capi-system',
        name: 'cluster-api',
        finalizers: ['provider.cluster.x-k8s.io'],
        annotations: { [handoffAnnotation]: 'disabled' },
      },
      spec: { version: 'v1.0.0', fetchConfig: { selector } },
    },
    { fieldManager: 'gitops' },
  );
  const provider = await readProvider(kube, 'CoreProvider', 'capi-system', 'cluster-api');
  const components = computeProviderComponents({
    provider,
    version: 'v1.0.0',
    componentsYaml: readComponents('core', 'v1.0.0'),
    configVariables: {},
  });
  for (const obj of components.objects) {
    await applyObject(kube, obj as KubeObject, { fieldManager: operatorManager, force: true });
  }
  const cacheData = { cache: Buffer.from(goJson(components.objects)).toString('base64') };
  const cm = await getObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'capi-system', name: 'v1.0.0' });
  const hash = operatorHash(cm, cacheData);
  await applyObject(
    kube,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        namespace: 'capi-system',
        name: 'core-cluster-api-v1.0.0-cache',
        annotations: { [hashAnnotation]: hash },
        ownerReferences: [
          {
            apiVersion: operatorApiVersion,
            kind: 'CoreProvider',
            name: 'cluster-api',
            uid: provider.metadata.uid ?? '',
          },
        ],
      },
      data: cacheData,
    },
    { fieldManager: operatorManager, force: true },
  );
  const ref = { apiVersion: operatorApiVersion, kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' };
  await patchObject(
    kube,
    ref,
    { metadata: { annotations: { [hashAnnotation]: hash } } },
    { fieldManager: operatorManager },
  );
  await markAvailable(kube, 'capi-system', 'capi-controller-manager');
  const annotated = await getObject(kube, ref);
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    observedGeneration: annotated.metadata.generation,
    lastTransitionTime: at,
    reason,
    message,
  });
  await updateStatus(
    kube,
    {
      ...annotated,
      status: {
        contract: 'v1beta1',
        installedVersion: 'v1.0.0',
        observedGeneration: annotated.metadata.generation,
        // In the order Cluster API's `conditions.Set` sorts them: Ready first, then alphabetical.
        conditions: [
          condition('Ready', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
          condition('PreflightCheckPassed', 'PreflightChecksPassed', 'All preflight checks passed'),
          condition('ProviderInstalled', 'ProviderInstalled', 'Provider installed successfully'),
        ],
      },
    },
    { fieldManager: operatorManager },
  );
}

describe('adopting providers the Cluster API Operator installed', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'providers-adoption' });
    await waitForProviderKinds(mgmt.kube);
    await installAsOperator(mgmt.kube);
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('the first pass after the switch sends no mutating request', async () => {
    assert.ok(specJson, 'golden spec missing; run test/support/golden/operator-hash/regenerate.sh');
    const { kube, log } = await mgmt.newClient();
    try {
      const outcome = await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
      assert.equal(outcome.result, 'Success', outcome.error);
      assert.deepEqual(outcome.changed, []);
      assert.deepEqual(log.mutating(), []);
    } finally {
      kube.close();
    }
  });

  test('an upgrade by a patch release proceeds and leaves a cache and hash the operator accepts', async () => {
    await seedReleaseConfigMap(mgmt.kube, {
      namespace: 'capi-system',
      provider: 'core',
      version: 'v1.0.1',
      labels: { 'provider-components': 'operator-core-next' },
      versionIn: 'name',
    });
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.0.1',
      fetchConfig: { selector: { matchLabels: { 'provider-components': 'operator-core-next' } } },
    });
    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.notEqual(outcome.result, 'Error', outcome.error);
    const p = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(p.status?.installedVersion, 'v1.0.1');
    assert.equal(conditionOf(p, 'ProviderUpgraded')?.status, 'True');
    const image = (
      (await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager'))['spec'] as {
        template: { spec: { containers: { image: string }[] } };
      }
    ).template.spec.containers[0]?.image;
    assert.match(image ?? '', /v1\.0\.1/);
    const secret = await getObject(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'capi-system',
      name: 'core-cluster-api-v1.0.1-cache',
    });
    const hash = p.metadata.annotations?.[hashAnnotation];
    assert.match(hash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(secret.metadata.annotations?.[hashAnnotation], hash);
    // The hash the operator would compute over the same objects: it would apply from this cache, not reinstall.
    const nextSpec = goldenSpec("the adoption test's upgraded core provider");
    assert.ok(nextSpec, 'golden spec missing; run test/support/golden/operator-hash/regenerate.sh');
    const cm = await getObject(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'capi-system',
      name: 'v1.0.1',
    });
    assert.equal(hash, operatorHash(cm, secret['data'] as Record<string, string>, nextSpec));
    assert.deepEqual(
      secret.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`),
      ['CoreProvider/cluster-api'],
    );
    const objects = JSON.parse(
      Buffer.from((secret['data'] as Record<string, string>)['cache'] ?? '', 'base64').toString('utf8'),
    ) as KubeObject[];
    assert.ok(objects.some((o) => o.kind === 'Deployment' && o.metadata.name === 'capi-controller-manager'));
    // The old version's cache stays, owned by the provider, as the operator leaves it.
    const caches = await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'Secret', namespace: 'capi-system' });
    assert.ok(caches.items.some((s) => s.metadata.name === 'core-cluster-api-v1.0.0-cache'));
    // A second pass is unchanged and writes nothing.
    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    const { kube, log } = await mgmt.newClient();
    try {
      const again = await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
      assert.equal(again.result, 'Success', again.error);
      assert.deepEqual(log.mutating(), []);
    } finally {
      kube.close();
    }
  });

  test('with the source gone, a provider restored without status is re-applied from the cache', async () => {
    await ensureNamespace(mgmt.kube, 'capf-system');
    await createSecret(mgmt.kube, 'capf-system', 'capf-variables', { FAKE_REGION: 'eu-west-1', FAKE_TOKEN: 't' });
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', {
      version: 'v1.0.0',
      configSecret: { name: 'capf-variables' },
      fetchConfig: { url: 'https://github.com/acme/fake/releases/latest/infrastructure-components.yaml' },
    });
    const files: Record<string, string> = {
      'metadata.yaml': readMetadata('infrastructure'),
      'infrastructure-components.yaml': readComponents('infrastructure', 'v1.0.0'),
    };
    const online: FetchFn = (url) => {
      const file = /^https:\/\/github\.com\/acme\/fake\/releases\/download\/v1\.0\.0\/(.+)$/.exec(url)?.[1] ?? '';
      const body = files[file];
      return Promise.resolve(new Response(body ?? 'Not Found', { status: body === undefined ? 404 : 200 }));
    };
    // NOTE: the deployed policy with a resolver that answers github.com's public address without a DNS query.
    const offlineDns = { ...defaultFetchPolicy, resolve: () => Promise.resolve(['140.82.112.3']) };
    const first = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', online, offlineDns);
    assert.notEqual(first.result, 'Error', first.error);
    assert.equal(
      (await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake')).status?.installedVersion,
      'v1.0.0',
    );

    // Air-gapped from now on: the download cache is gone, the network too; the provider comes back from a backup
    // without status and its Deployment is missing.
    for (const cm of (await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'capf-system' }))
      .items) {
      if (cm.metadata.labels?.['managed-by.operator.cluster.x-k8s.io'] === 'true') {
        await deleteObject(mgmt.kube, refOf(cm));
      }
    }
    const deployments = await listObjects(mgmt.kube, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'capf-system',
    });
    assert.ok(deployments.items.length > 0);
    for (const d of deployments.items) await deleteObject(mgmt.kube, refOf(d));
    const ref = {
      apiVersion: operatorApiVersion,
      kind: 'InfrastructureProvider',
      namespace: 'capf-system',
      name: 'fake',
    };
    const current = await getObject(mgmt.kube, ref);
    await updateStatus(mgmt.kube, { ...current, status: {} }, { fieldManager: 'velero' });

    const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.notEqual(outcome.result, 'Error', outcome.error);
    const p = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(p.status?.installedVersion, 'v1.0.0');
    assert.equal(p.status?.contract, 'v1beta1');
    assert.equal(conditionOf(p, 'ProviderInstalled')?.status, 'True');
    for (const d of deployments.items) assert.ok(await findObject(mgmt.kube, refOf(d)), d.metadata.name);
  });
});
