// Shared helpers of the provider operator's integration tests: the fake release (test/support/fixtures/providers-release),
// ConfigMap repositories, provider objects, a pass runner, and setting Deployment availability the way the
// Deployment controller would (the harness runs no controller-manager).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderKind, ProviderSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import { applyObject, getObject, updateStatus } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { reconcileProvider } from '#shared/providers/reconcile-provider.ts';
import type { ProviderPassOutcome } from '#shared/providers/reconcile-provider.ts';
import type { FetchPolicy } from '#shared/providers/fetch/fetch-policy.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import { getProvider, listAllProviders } from '#shared/providers/current/get-provider.ts';

export const userManager = 'test-user';
export const operatorManager = 'capi-serverless-providers';
const root = new URL('../../support/fixtures/providers-release/', import.meta.url);

export type FakeProvider = 'core' | 'infrastructure';

/** metadata.yaml of a fake provider. */
export function readMetadata(p: FakeProvider): string {
  return readFileSync(new URL(`${p}/metadata.yaml`, root), 'utf8');
}

/** Components YAML of a fake provider version. */
export function readComponents(p: FakeProvider, version: string): string {
  return readFileSync(new URL(`${p}/components-template.yaml`, root), 'utf8').replaceAll('@VERSION@', version);
}

export async function ensureNamespace(kube: KubeClient, name: string): Promise<void> {
  await applyObject(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager: userManager });
}

/**
 * An air-gapped release ConfigMap: version in the name, or in the version label; gzip-compressed components when
 * `compressed`.
 */
export async function seedReleaseConfigMap(
  kube: KubeClient,
  opts: {
    namespace: string;
    provider: FakeProvider;
    version: string;
    labels: Record<string, string>;
    versionIn: 'name' | 'label';
    compressed?: boolean;
    /** metadata.yaml in place of the fake provider's own. */
    metadata?: string;
  },
): Promise<void> {
  const components = readComponents(opts.provider, opts.version);
  const name = opts.versionIn === 'name' ? opts.version : `${opts.provider}-${opts.version.replaceAll('.', '-')}`;
  const labels = {
    ...opts.labels,
    ...(opts.versionIn === 'label' ? { 'provider.cluster.x-k8s.io/version': opts.version } : {}),
  };
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace: opts.namespace,
      name,
      labels,
      ...(opts.compressed ? { annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' } } : {}),
    },
    data: { metadata: opts.metadata ?? readMetadata(opts.provider), ...(opts.compressed ? {} : { components }) },
    ...(opts.compressed ? { binaryData: { components: gzipSync(components).toString('base64') } } : {}),
  };
  await applyObject(kube, cm, { fieldManager: userManager });
}

export async function createSecret(
  kube: KubeClient,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<void> {
  await applyObject(
    kube,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace, name },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    },
    { fieldManager: userManager },
  );
}

/** Creates or updates a provider object the way a user would (server-side apply of the spec). */
export async function applyProvider(
  kube: KubeClient,
  kind: ProviderKind,
  namespace: string,
  name: string,
  spec: ProviderSpec,
  annotations?: Record<string, string>,
): Promise<void> {
  await applyObject(
    kube,
    {
      apiVersion: operatorApiVersion,
      kind,
      metadata: { namespace, name, ...(annotations === undefined ? {} : { annotations }) },
      spec,
    },
    { fieldManager: userManager },
  );
}

export async function readProvider(kube: KubeClient, kind: ProviderKind, namespace: string, name: string) {
  const p = await getProvider(kube, { kind, namespace, name });
  if (!p) throw new Error(`${kind} ${namespace}/${name} not found`);
  return p;
}

export function conditionOf(p: Provider, type: string) {
  return p.status?.conditions?.find((c) => c.type === type);
}

const fixedNow = () => new Date('2025-01-01T00:00:00Z');

/**
 * One pass with the operator's field manager; `fetch` defaults to one that fails every request, `fetchPolicy` to the
 * deployed default (HTTPS to public addresses only).
 */
export function pass(
  kube: KubeClient,
  kind: ProviderKind,
  namespace: string,
  name: string,
  fetchFn?: FetchFn,
  fetchPolicy?: FetchPolicy,
): Promise<ProviderPassOutcome> {
  const noNetwork: FetchFn = (url) => Promise.reject(new Error(`unexpected network access to ${url}`));
  return reconcileProvider(
    {
      kube,
      fetch: fetchFn ?? noNetwork,
      ...(fetchPolicy ? { fetchPolicy } : {}),
      now: fixedNow,
      fieldManager: operatorManager,
    },
    { kind, namespace, name },
  );
}

export async function getDeployment(kube: KubeClient, namespace: string, name: string): Promise<KubeObject> {
  return getObject(kube, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });
}

/** Marks a Deployment Available through the status subresource, as the Deployment controller would. */
export async function markAvailable(kube: KubeClient, namespace: string, name: string): Promise<void> {
  const d = await getDeployment(kube, namespace, name);
  const now = '2025-01-01T00:00:00Z';
  await updateStatus(
    kube,
    {
      ...d,
      status: {
        observedGeneration: d.metadata.generation,
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'MinimumReplicasAvailable',
            message: 'Deployment has minimum availability.',
            lastUpdateTime: now,
            lastTransitionTime: now,
          },
        ],
      },
    },
    { fieldManager: 'kube-controller-manager' },
  );
}

export function containerOf(d: KubeObject, name = 'manager') {
  const spec = d['spec'] as {
    replicas?: number;
    template: { spec: { containers: { name: string; image: string; args?: string[] }[] } };
  };
  const c = spec.template.spec.containers.find((x) => x.name === name);
  if (!c) throw new Error(`container ${name} not found`);
  return c;
}

export function replicasOf(d: KubeObject): number | undefined {
  return (d['spec'] as { replicas?: number }).replicas;
}

/** Installs the fake core provider (cluster-api in capi-system, ConfigMaps by name) and makes it Ready. */
export async function installCore(kube: KubeClient, version = 'v1.0.0'): Promise<void> {
  await ensureNamespace(kube, 'capi-system');
  for (const v of ['v1.0.0', 'v1.1.0', 'v2.0.0']) {
    await seedReleaseConfigMap(kube, {
      namespace: 'capi-system',
      provider: 'core',
      version: v,
      labels: { 'provider-components': 'fake-core' },
      versionIn: 'name',
    });
  }
  await applyProvider(kube, 'CoreProvider', 'capi-system', 'cluster-api', {
    version,
    fetchConfig: { selector: { matchLabels: { 'provider-components': 'fake-core' } } },
  });
  await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
  await markAvailable(kube, 'capi-system', 'capi-controller-manager');
  const outcome = await pass(kube, 'CoreProvider', 'capi-system', 'cluster-api');
  if (outcome.result !== 'Success') throw new Error(`core install failed: ${JSON.stringify(outcome)}`);
}

/** Seeds the fake infrastructure release ConfigMaps (v1.0.0 plain, v2.0.0 gzip) in `namespace`. */
export async function seedInfrastructure(kube: KubeClient, namespace: string): Promise<void> {
  await ensureNamespace(kube, namespace);
  for (const [version, compressed] of [
    ['v1.0.0', false],
    ['v2.0.0', true],
  ] as const) {
    await seedReleaseConfigMap(kube, {
      namespace,
      provider: 'infrastructure',
      version,
      labels: { 'provider-components': 'fake-infra' },
      versionIn: 'label',
      compressed,
    });
  }
}

export const infraSelector = { selector: { matchLabels: { 'provider-components': 'fake-infra' } } };

/**
 * Waits until the API server serves every provider kind (freshly established CRDs answer "storage is
 * (re)initializing" for a moment).
 */
export async function waitForProviderKinds(kube: KubeClient): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await listAllProviders(kube);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
