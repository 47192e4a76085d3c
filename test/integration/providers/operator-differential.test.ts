// The Cluster API Operator itself as the oracle (built from its Go module, test/support/harness/capi-operator.ts), on two twin
// management clusters with the operator's own CRDs: the operator installs the same core provider and infrastructure
// provider (gzip release, config Secret variables) from air-gapped ConfigMap releases on both. On A the operator is then stopped and the providers pass takes over: its first pass
// must send no mutating request to the components; then both sides upgrade by a patch release (A: the providers pass,
// B: the operator) and the results are compared object by object.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { deleteObject, findObject, KubeConflictError, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { handoffAnnotation } from '#shared/providers/desired/compute-handoff.ts';
import { startCapiOperator, type CapiOperator } from '#test/support/harness/capi-operator.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  createSecret,
  ensureNamespace,
  infraSelector,
  markAvailable,
  pass,
  readProvider,
  seedReleaseConfigMap,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const selector = { matchLabels: { 'provider-components': 'operator-core' } };
const spec = (version: string) => ({ version, fetchConfig: { selector } });
const deployment = { namespace: 'capi-system', name: 'capi-controller-manager' };
// NOTE: the providers opt out of the handoff, which the operator knows nothing of: this test compares the processing
// itself (operator-upstream-components.test.ts compares with the handoff in place on both sides).
const optOut = { [handoffAnnotation]: 'disabled' };
const componentNamespaces = ['capi-system', 'capf-system'];

/** Everything the fake core provider's components consist of, by kind (test/support/fixtures/providers-release/core). */
const componentKinds = [
  { apiVersion: 'v1', kind: 'Namespace' },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
] as const;

async function seed(kube: KubeClient): Promise<void> {
  await waitForProviderKinds(kube);
  await ensureNamespace(kube, 'capi-system');
  await seedRelease(kube, 'v2.0.0');
  // The infrastructure provider: a gzip-compressed release with the version in a label, and a config Secret whose
  // variables are substituted into the components.
  await ensureNamespace(kube, 'capf-system');
  await seedReleaseConfigMap(kube, {
    namespace: 'capf-system',
    provider: 'infrastructure',
    version: 'v2.0.0',
    labels: infraSelector.selector.matchLabels,
    versionIn: 'label',
    compressed: true,
  });
  await createSecret(kube, 'capf-system', 'capf-variables', { FAKE_REGION: 'eu-1', FAKE_TOKEN: 't0k3n' });
}

const infraSpec = {
  version: 'v2.0.0',
  fetchConfig: infraSelector,
  configSecret: { name: 'capf-variables', namespace: 'capf-system' },
};

// NOTE: the operator (v0.29.0) hashes the one ConfigMap its selector matches and fails with
// FailedToUpdateProvidersHash when several match, so a release is replaced rather than added beside the old one.
async function seedRelease(kube: KubeClient, version: string): Promise<void> {
  await seedReleaseConfigMap(kube, {
    namespace: 'capi-system',
    provider: 'core',
    version,
    labels: selector.matchLabels,
    versionIn: 'name',
  });
}

async function replaceRelease(kube: KubeClient, from: string, to: string): Promise<void> {
  await deleteObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'capi-system', name: from });
  await seedRelease(kube, to);
}

async function poll<T>(what: string, get: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Installed = {
  readonly kind: 'CoreProvider' | 'InfrastructureProvider';
  readonly namespace: string;
  readonly name: string;
  readonly deployment: string;
};
const coreProvider: Installed = {
  kind: 'CoreProvider',
  namespace: 'capi-system',
  name: 'cluster-api',
  deployment: 'capi-controller-manager',
};
const infraProvider: Installed = {
  kind: 'InfrastructureProvider',
  namespace: 'capf-system',
  name: 'fake',
  deployment: 'capf-controller-manager',
};

/** Waits until the operator reports `version` installed, marking the Deployment available as a kubelet would. */
async function waitForOperatorInstall(
  kube: KubeClient,
  version: string,
  operator?: CapiOperator,
  provider: Installed = coreProvider,
): Promise<Provider> {
  let last: unknown;
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: provider.namespace, name: provider.deployment };
  try {
    return await poll(`the operator to install ${provider.kind} ${version}`, async () => {
      const d = await findObject(kube, ref);
      const image = JSON.stringify(d?.['spec'] ?? {}).includes(`:${version}`);
      const available = JSON.stringify(d?.['status'] ?? {}).includes('"Available"');
      if (d && image && !available) {
        // NOTE: the operator may write the Deployment at the same moment; a conflict is retried on the next poll.
        await markAvailable(kube, provider.namespace, provider.deployment).catch((err: unknown) => {
          if (!(err instanceof KubeConflictError)) throw err;
        });
      }
      const p = await readProvider(kube, provider.kind, provider.namespace, provider.name);
      last = { deployment: d === undefined ? 'absent' : d['status'], provider: p.status };
      const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      return p.status?.installedVersion === version && ready ? p : undefined;
    });
  } catch (err) {
    throw new Error(`${String(err)}; last seen ${JSON.stringify(last)}\n${operator?.process.tail(40) ?? ''}`, {
      cause: err,
    });
  }
}

/**
 * A component with what is legitimately per-cluster removed (uids, versions, timestamps, managedFields, status; owner
 * references keep everything but the uid).
 */
function normalise(o: KubeObject): unknown {
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    managedFields: _m,
    generation: _g,
    ownerReferences,
    ...meta
  } = o.metadata;
  const owners = ownerReferences?.map(({ uid: _uid, ...ref }) => ref);
  const { status: _s, ...rest } = o as KubeObject & { status?: unknown };
  return { ...rest, metadata: { ...meta, ...(owners ? { ownerReferences: owners } : {}) } };
}

const appliedHashAnnotation = 'operator.cluster.x-k8s.io/applied-spec-hash';

/** Removes what Go's typed structs add (zero-value structs, nulls, `status`) and owner uids, recursively. */
function withoutGoZeroValues(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutGoZeroValues);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'status' || k === 'uid' || x === null) continue;
    const y = withoutGoZeroValues(x);
    if (y !== null && typeof y === 'object' && !Array.isArray(y) && Object.keys(y).length === 0) continue;
    out[k] = y;
  }
  return out;
}

/** The objects of a provider version's components cache Secret, decoded and normalised. */
async function readCache(kube: KubeClient, version: string): Promise<unknown> {
  const secret = await findObject(kube, {
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: 'capi-system',
    name: `core-cluster-api-${version}-cache`,
  });
  const data = (secret?.['data'] as Record<string, string> | undefined)?.['cache'];
  if (data === undefined) return undefined;
  return withoutGoZeroValues(JSON.parse(Buffer.from(data, 'base64').toString('utf8')));
}

async function listComponents(kube: KubeClient): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const k of componentKinds) {
    const items = await listObjects(kube, { apiVersion: k.apiVersion, kind: k.kind });
    for (const o of items.items) {
      const labels = o.metadata.labels ?? {};
      // NOTE: the components carry clusterctl's labels; anything else in the namespace (kube-root-ca.crt, the
      // release ConfigMaps, cache Secrets) is not a component.
      if (labels['clusterctl.cluster.x-k8s.io'] === undefined && o.kind !== 'Namespace') continue;
      if (o.kind === 'Namespace' && !componentNamespaces.includes(o.metadata.name ?? '')) continue;
      out.set(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, normalise(o));
    }
  }
  return out;
}

describe('beside the Cluster API Operator itself', { timeout: 600_000 }, () => {
  let a: TestCluster;
  let b: TestCluster;
  let operatorA: CapiOperator | undefined;
  let operatorB: CapiOperator | undefined;

  before(async () => {
    [a, b] = await Promise.all([
      startManagementCluster({ name: 'operator-diff-a' }),
      startManagementCluster({ name: 'operator-diff-b' }),
    ]);
    await Promise.all([seed(a.kube), seed(b.kube)]);
    [operatorA, operatorB] = await Promise.all([startCapiOperator(a), startCapiOperator(b)]);
    await Promise.all(
      [a, b].map((m) => applyProvider(m.kube, 'CoreProvider', 'capi-system', 'cluster-api', spec('v2.0.0'), optOut)),
    );
    await Promise.all([
      waitForOperatorInstall(a.kube, 'v2.0.0', operatorA),
      waitForOperatorInstall(b.kube, 'v2.0.0', operatorB),
    ]);
    await Promise.all(
      [a, b].map((m) => applyProvider(m.kube, 'InfrastructureProvider', 'capf-system', 'fake', infraSpec, optOut)),
    );
    await Promise.all([
      waitForOperatorInstall(a.kube, 'v2.0.0', operatorA, infraProvider),
      waitForOperatorInstall(b.kube, 'v2.0.0', operatorB, infraProvider),
    ]);
  });
  after(async () => {
    await Promise.all([operatorA?.stop(), operatorB?.stop()]);
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('the operator installed the same components on both twins', async () => {
    assert.deepEqual(await listComponents(a.kube), await listComponents(b.kube));
  });

  test("the providers pass adopts the operator's install without a single mutating request to the components", async () => {
    await operatorA?.stop();
    operatorA = undefined;
    const { kube, log } = await a.newClient();
    const before = await listComponents(a.kube);
    const outcome = await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(outcome.result, 'Success', outcome.error);
    const infra = await pass(kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(infra.result, 'Success', infra.error);
    const toComponents = log
      .mutating()
      .filter((r) => !r.path.includes(`/apis/${operatorApiVersion}/`))
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(toComponents, []);
    assert.deepEqual(await listComponents(a.kube), before);
  });

  test("a patch upgrade by the providers pass leaves what the operator's own upgrade leaves", async () => {
    for (const m of [a, b]) {
      await replaceRelease(m.kube, 'v2.0.0', 'v2.0.1');
      await applyProvider(m.kube, 'CoreProvider', 'capi-system', 'cluster-api', spec('v2.0.1'), optOut);
    }
    // A: the providers pass (upgrade, then the Deployment comes up, then Ready).
    const first = await pass(a.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.notEqual(first.result, 'Error', first.error);
    await markAvailable(a.kube, deployment.namespace, deployment.name);
    const second = await pass(a.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(second.result, 'Success', second.error);
    // B: the operator.
    const oracle = await waitForOperatorInstall(b.kube, 'v2.0.1', operatorB);
    const ours = await readProvider(a.kube, 'CoreProvider', 'capi-system', 'cluster-api');

    const [componentsA, componentsB] = [await listComponents(a.kube), await listComponents(b.kube)];
    assert.deepEqual([...componentsA.keys()].sort(), [...componentsB.keys()].sort());
    for (const [key, want] of componentsB) assert.deepEqual(componentsA.get(key), want, key);

    // The provider object: installed version, contract and condition types/status/reasons.
    const summary = (p: Provider) => ({
      installedVersion: p.status?.installedVersion,
      contract: p.status?.contract,
      conditions: (p.status?.conditions ?? [])
        .map((c) => ({ type: c.type, status: c.status, reason: c.reason }))
        .sort((x, y) => x.type.localeCompare(y.type)),
    });
    assert.deepEqual(summary(ours), summary(oracle));

    // The components cache the operator re-applies from holds the same objects. NOTE: not the same bytes: the
    // operator's objects went through Go's typed structs (a CRD gains `status`, a Deployment `strategy: {}`,
    // `resources: {}` and `status: {}`), which the providers pass does not reproduce; so the applied-spec hashes,
    // taken over those bytes, differ too. The next test shows the operator accepts ours on the way back.
    const [cacheA, cacheB] = [await readCache(a.kube, 'v2.0.1'), await readCache(b.kube, 'v2.0.1')];
    assert.deepEqual(cacheA, cacheB);
  });

  test('the way back: the operator started again accepts the hash and cache the providers pass wrote', async () => {
    const before = await listComponents(a.kube);
    const hash = (await readProvider(a.kube, 'CoreProvider', 'capi-system', 'cluster-api')).metadata.annotations?.[
      appliedHashAnnotation
    ];
    operatorA = await startCapiOperator(a);
    const started = operatorA;
    // NOTE: with a matching hash the operator re-applies the components from the cache Secret (server-side apply,
    // force, its own field manager; it does so after every start); with a mismatch it says the state changed and
    // installs again from the source.
    await poll('the operator to reconcile both providers', async () =>
      started.process.logs().split('Applied all objects from cache').length > 2 ||
      started.process.logs().includes('Provider or cache state has changed')
        ? true
        : undefined,
    );
    assert.equal(
      started.process.logs().includes('Provider or cache state has changed'),
      false,
      started.process.tail(20),
    );
    const p = await readProvider(a.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(p.metadata.annotations?.[appliedHashAnnotation], hash);
    assert.deepEqual(await listComponents(a.kube), before);
  });
});
