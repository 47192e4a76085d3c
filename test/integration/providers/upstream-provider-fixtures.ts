// Upstream Cluster API's own providers (core, kubeadm bootstrap, kubeadm control plane, Docker) as the provider tests
// install them: their namespaces and names, air-gapped gzip ConfigMap releases, and their installed components listed
// and normalised for comparison object by object.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { parseAllDocuments } from 'yaml';
import type { ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import { applyObject, findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { computeHarnessHandoffPolicy } from '#test/support/harness/upstream-capi.ts';
import type { UpstreamProvider, UpstreamRelease } from '#test/support/harness/upstream-provider-components.ts';

export type Installed = {
  readonly kind: ProviderKind;
  readonly namespace: string;
  readonly name: string;
  readonly provider: UpstreamProvider;
  readonly deployment: string;
};
export const core: Installed = {
  kind: 'CoreProvider',
  namespace: 'capi-system',
  name: 'cluster-api',
  provider: 'core',
  deployment: 'capi-controller-manager',
};
export const others: readonly Installed[] = [
  {
    kind: 'BootstrapProvider',
    namespace: 'capi-kubeadm-bootstrap-system',
    name: 'kubeadm',
    provider: 'bootstrap-kubeadm',
    deployment: 'capi-kubeadm-bootstrap-controller-manager',
  },
  {
    kind: 'ControlPlaneProvider',
    namespace: 'capi-kubeadm-control-plane-system',
    name: 'kubeadm',
    provider: 'control-plane-kubeadm',
    deployment: 'capi-kubeadm-control-plane-controller-manager',
  },
  {
    kind: 'InfrastructureProvider',
    namespace: 'capd-system',
    name: 'docker',
    provider: 'infrastructure-docker',
    deployment: 'capd-controller-manager',
  },
];
export const all = [core, ...others];

export const selectorOf = (p: Installed) => ({ matchLabels: { 'provider-components': `upstream-${p.provider}` } });
export const specOf = (p: Installed, version: string) => ({ version, fetchConfig: { selector: selectorOf(p) } });
export const releaseName = (p: Installed, version: string) => `${p.provider}-${version.replaceAll('.', '-')}`;

/** A release mirrored as the operator's air-gapped path takes it: gzip components, the version in a label. */
export async function seedRelease(kube: KubeClient, p: Installed, release: UpstreamRelease): Promise<void> {
  await applyObject(
    kube,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        namespace: p.namespace,
        name: releaseName(p, release.version),
        labels: { ...selectorOf(p).matchLabels, 'provider.cluster.x-k8s.io/version': release.version },
        annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
      },
      data: { metadata: release.metadata },
      binaryData: { components: gzipSync(release.components(p.provider)).toString('base64') },
    },
    { fieldManager: 'platform-team' },
  );
}

/** The kinds upstream's components consist of, read from the release itself. */
export function componentKinds(release: UpstreamRelease): { apiVersion: string; kind: string }[] {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const p of all) {
    for (const doc of parseAllDocuments(release.components(p.provider))) {
      const o = doc.toJS() as { apiVersion?: string; kind?: string } | null;
      if (o?.apiVersion && o.kind) kinds.set(`${o.apiVersion} ${o.kind}`, { apiVersion: o.apiVersion, kind: o.kind });
    }
  }
  return [...kinds.values()];
}

/**
 * A component without what is legitimately per-cluster (uids, versions, timestamps, managedFields, status, a Service's
 * cluster IPs).
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
  const out = { ...rest, metadata: { ...meta, ...(owners ? { ownerReferences: owners } : {}) } };
  if (o.kind !== 'Service') return out;
  // NOTE: the API server allocates a Service's cluster IP at random.
  const { clusterIP: _ip, clusterIPs: _ips, ...spec } = o['spec'] as Record<string, unknown>;
  return { ...out, spec };
}

/** Every object clusterctl's labels mark as a provider component, normalised, by kind and name. */
export async function listComponents(
  kube: KubeClient,
  kinds: readonly { apiVersion: string; kind: string }[],
): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const k of kinds) {
    for (const o of (await listObjects(kube, k)).items) {
      if (o.metadata.labels?.['clusterctl.cluster.x-k8s.io'] === undefined) continue;
      out.set(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, normalise(o));
    }
  }
  return out;
}

export function assertSameComponents(actual: Map<string, unknown>, expected: Map<string, unknown>): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
  for (const [key, want] of expected) assert.deepEqual(actual.get(key), want, key);
}

const coreWebhookConfiguration = 'capi-validating-webhook-configuration';
const handoffPolicies = [
  'capi-system-capi-serverless-clusterresourceset-handoff',
  'capi-system-capi-serverless-before-cluster-delete-handoff',
] as const;

/** The `--feature-gates` argument of a provider's manager container. */
export async function readFeatureGates(kube: KubeClient, p: Installed): Promise<string | undefined> {
  const d = await findObject(kube, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: p.namespace,
    name: p.deployment,
  });
  const spec = d?.['spec'] as { template: { spec: { containers: { name: string; args?: string[] }[] } } } | undefined;
  const manager = spec?.template.spec.containers.find((c) => c.name === 'manager');
  return manager?.args?.find((a) => a.startsWith('--feature-gates='));
}

async function readMatchConditions(kube: KubeClient): Promise<Record<string, unknown>> {
  const config = await findObject(kube, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    name: coreWebhookConfiguration,
  });
  assert.ok(config, `ValidatingWebhookConfiguration ${coreWebhookConfiguration} installed`);
  const webhooks = config['webhooks'] as { name: string; matchConditions?: unknown }[];
  return Object.fromEntries(webhooks.filter((w) => w.matchConditions).map((w) => [w.name, w.matchConditions]));
}

const findPolicy = (kube: KubeClient, kind: string, name: string) =>
  findObject(kube, { apiVersion: 'admissionregistration.k8s.io/v1', kind, name });

/**
 * Asserts the handoff the harness proved on upstream's binaries (test/support/harness/upstream-capi.ts) is installed: the
 * matchConditions on the three core webhooks, the ClusterResourceSet and BeforeClusterDelete policies and bindings for
 * the core manager's ServiceAccount in capi-system (the harness's policy specs, with the names the providers pass gives
 * them), the core
 * manager's ClusterTopology gate off, the kubeadm control plane's and Docker's on, the bootstrap manager's arguments
 * without the gate (it has none).
 */
export async function assertHandoffInstalled(kube: KubeClient): Promise<void> {
  assert.deepEqual(await readMatchConditions(kube), {
    'validation.cluster.cluster.x-k8s.io': [
      {
        name: 'capi-serverless-owns-topology',
        expression: "request.operation == 'DELETE' || !has(object.spec.topology)",
      },
    ],
    'validation.clusterclass.cluster.x-k8s.io': [{ name: 'capi-serverless-owns-clusterclass', expression: 'false' }],
    'validation.extensionconfig.runtime.cluster.x-k8s.io': [
      { name: 'capi-serverless-owns-extensionconfig', expression: "request.operation == 'DELETE'" },
    ],
  });
  const harness = computeHarnessHandoffPolicy('system:serviceaccount:capi-system:capi-manager');
  for (const [i, handoffPolicy] of handoffPolicies.entries()) {
    const [harnessPolicy, harnessBinding] = harness.slice(2 * i, 2 * i + 2);
    const policy = await findPolicy(kube, 'ValidatingAdmissionPolicy', handoffPolicy);
    const binding = await findPolicy(kube, 'ValidatingAdmissionPolicyBinding', handoffPolicy);
    assert.ok(policy && binding, `ValidatingAdmissionPolicy and binding ${handoffPolicy} installed`);
    type PolicySpec = {
      failurePolicy?: string;
      paramKind?: unknown;
      matchConditions?: { name: string; expression: string }[];
      validations?: unknown;
      matchConstraints: { resourceRules: Record<string, unknown>[] };
    };
    const got = policy['spec'] as PolicySpec;
    const want = harnessPolicy?.['spec'] as PolicySpec;
    assert.deepEqual(got.matchConditions?.[0], {
      name: 'core-manager',
      expression: "request.userInfo.username == 'system:serviceaccount:capi-system:capi-manager'",
    });
    assert.deepEqual(got.matchConditions, want.matchConditions);
    assert.deepEqual(got.validations, want.validations);
    assert.deepEqual(got.paramKind, want.paramKind);
    assert.equal(got.failurePolicy, want.failurePolicy);
    // NOTE: the API server defaults a rule's scope to '*'.
    assert.deepEqual(
      got.matchConstraints.resourceRules,
      want.matchConstraints.resourceRules.map((r) => ({ scope: '*', ...r })),
    );
    assert.deepEqual(binding['spec'], {
      ...(harnessBinding?.['spec'] as Record<string, unknown>),
      policyName: handoffPolicy,
    });
    assert.equal(
      policy.metadata.labels?.['cluster.x-k8s.io/provider'],
      'cluster-api',
      'the policy is a core component',
    );
  }
  const gates = async (p: Installed) => (await readFeatureGates(kube, p)) ?? '';
  assert.match(await gates(core), /(^|[=,])ClusterTopology=false(,|$)/);
  for (const p of others) {
    if (p.provider === 'bootstrap-kubeadm') assert.doesNotMatch(await gates(p), /ClusterTopology/);
    else assert.match(await gates(p), /(^|[=,])ClusterTopology=true(,|$)/, p.kind);
  }
}

/** Asserts none of the handoff is installed (the opt-out): no matchConditions, no policy, every gate at its default. */
export async function assertNoHandoff(kube: KubeClient): Promise<void> {
  assert.deepEqual(await readMatchConditions(kube), {});
  for (const name of handoffPolicies) {
    assert.equal(await findPolicy(kube, 'ValidatingAdmissionPolicy', name), undefined, name);
    assert.equal(await findPolicy(kube, 'ValidatingAdmissionPolicyBinding', name), undefined, name);
  }
  for (const p of all) assert.doesNotMatch((await readFeatureGates(kube, p)) ?? '', /ClusterTopology=true/, p.kind);
}
