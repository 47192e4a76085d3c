// Upstream Cluster API's own providers through the Cluster API Operator itself: the core, kubeadm bootstrap, kubeadm
// control-plane and Docker providers' components as a release publishes them (built by kustomize from the pinned
// upstream Go modules, test/harness/upstream-provider-components.ts), mirrored into gzip ConfigMaps (the air-gapped
// path). On twin management clusters the operator installs all four; on A it is then stopped and the providers pass
// takes over without a single write to the components; then the core provider is upgraded by a patch release on both
// sides (A: the providers pass, B: the operator) and the results are compared object by object. No kubelet runs and
// no cert-manager: what each writes is compared, not whether pods start.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { operatorApiVersion } from '#shared/api/operator.ts';
import type { Provider, ProviderKind } from '#shared/api/operator.ts';
import { applyObject, deleteObject, findObject, KubeConflictError, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { startCapiOperator, type CapiOperator } from '#test/harness/capi-operator.ts';
import { startManagementCluster, type TestCluster } from '#test/harness/clusters.ts';
import {
  certManagerCrds,
  resolveUpstreamRelease,
  type UpstreamProvider,
  type UpstreamRelease,
} from '#test/harness/upstream-provider-components.ts';
import {
  applyProvider,
  ensureNamespace,
  markAvailable,
  pass,
  readProvider,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const from = 'v1.14.1';
const to = 'v1.14.2';

type Installed = {
  readonly kind: ProviderKind;
  readonly namespace: string;
  readonly name: string;
  readonly provider: UpstreamProvider;
  readonly deployment: string;
};
const core: Installed = {
  kind: 'CoreProvider',
  namespace: 'capi-system',
  name: 'cluster-api',
  provider: 'core',
  deployment: 'capi-controller-manager',
};
const others: readonly Installed[] = [
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
const all = [core, ...others];

const selectorOf = (p: Installed) => ({ matchLabels: { 'provider-components': `upstream-${p.provider}` } });
const specOf = (p: Installed, version: string) => ({ version, fetchConfig: { selector: selectorOf(p) } });
const releaseName = (p: Installed, version: string) => `${p.provider}-${version.replaceAll('.', '-')}`;

/** A release mirrored as the operator's air-gapped path takes it: gzip components, the version in a label. */
async function seedRelease(kube: KubeClient, p: Installed, release: UpstreamRelease): Promise<void> {
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

async function poll<T>(what: string, get: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until the operator reports `version` installed, marking the Deployment available as a kubelet would. */
async function waitForOperatorInstall(
  kube: KubeClient,
  p: Installed,
  version: string,
  operator: CapiOperator | undefined,
): Promise<Provider> {
  let last: unknown;
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: p.namespace, name: p.deployment };
  try {
    return await poll(`the operator to install ${p.kind} ${version}`, async () => {
      const d = await findObject(kube, ref);
      const image = JSON.stringify(d?.['spec'] ?? {}).includes(`:${version}`);
      const available = JSON.stringify(d?.['status'] ?? {}).includes('"Available"');
      if (d && image && !available) {
        await markAvailable(kube, p.namespace, p.deployment).catch((err: unknown) => {
          if (!(err instanceof KubeConflictError)) throw err;
        });
      }
      const provider = await readProvider(kube, p.kind, p.namespace, p.name);
      last = { deployment: d === undefined ? 'absent' : d['status'], provider: provider.status };
      const ready = provider.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      return provider.status?.installedVersion === version && ready ? provider : undefined;
    });
  } catch (err) {
    throw new Error(`${String(err)}; last seen ${JSON.stringify(last)}\n${operator?.process.tail(40) ?? ''}`, {
      cause: err,
    });
  }
}

/** The kinds upstream's components consist of, read from the release itself. */
function componentKinds(release: UpstreamRelease): { apiVersion: string; kind: string }[] {
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
async function listComponents(
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

function assertSameComponents(actual: Map<string, unknown>, expected: Map<string, unknown>): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
  for (const [key, want] of expected) assert.deepEqual(actual.get(key), want, key);
}

describe("upstream's own providers, installed by the Cluster API Operator and taken over", { timeout: 900_000 }, () => {
  let a: TestCluster;
  let b: TestCluster;
  let operatorA: CapiOperator | undefined;
  let operatorB: CapiOperator | undefined;
  let kinds: { apiVersion: string; kind: string }[];
  let releases: { from: UpstreamRelease; to: UpstreamRelease };

  before(async () => {
    releases = { from: resolveUpstreamRelease(from), to: resolveUpstreamRelease(to) };
    kinds = componentKinds(releases.to);
    [a, b] = await Promise.all([
      startManagementCluster({ name: 'operator-upstream-a', extraCrds: certManagerCrds() }),
      startManagementCluster({ name: 'operator-upstream-b', extraCrds: certManagerCrds() }),
    ]);
    for (const m of [a, b]) {
      await waitForProviderKinds(m.kube);
      for (const p of all) await ensureNamespace(m.kube, p.namespace);
      // NOTE: the operator fails when more than one ConfigMap matches a selector, so the core provider has one
      // release at a time (replaced for the upgrade below).
      await seedRelease(m.kube, core, releases.from);
      for (const p of others) await seedRelease(m.kube, p, releases.to);
    }
    [operatorA, operatorB] = await Promise.all([startCapiOperator(a), startCapiOperator(b)]);
    await Promise.all(
      [a, b].map((m) => applyProvider(m.kube, core.kind, core.namespace, core.name, specOf(core, from))),
    );
    await Promise.all([
      waitForOperatorInstall(a.kube, core, from, operatorA),
      waitForOperatorInstall(b.kube, core, from, operatorB),
    ]);
    for (const m of [a, b])
      for (const p of others) await applyProvider(m.kube, p.kind, p.namespace, p.name, specOf(p, to));
    await Promise.all(
      others.flatMap((p) => [
        waitForOperatorInstall(a.kube, p, to, operatorA),
        waitForOperatorInstall(b.kube, p, to, operatorB),
      ]),
    );
  });
  after(async () => {
    await Promise.all([operatorA?.stop(), operatorB?.stop()]);
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('the operator installed the same components of the four providers on both twins', async () => {
    const [componentsA, componentsB] = [await listComponents(a.kube, kinds), await listComponents(b.kube, kinds)];
    assertSameComponents(componentsA, componentsB);
    for (const p of all) {
      const deployment = componentsA.get(`Deployment ${p.namespace}/${p.deployment}`);
      assert.ok(deployment, `${p.kind} ${p.namespace}/${p.name} installed its Deployment`);
    }
    assert.ok(
      componentsA.has('CustomResourceDefinition /clusters.cluster.x-k8s.io'),
      "the core provider's CRDs are upstream's own",
    );
  });

  test("the providers pass adopts the operator's install of all four without a mutating request to the components", async () => {
    await operatorA?.stop();
    operatorA = undefined;
    const { kube, log } = await a.newClient();
    const before = await listComponents(a.kube, kinds);
    for (const p of all) {
      const outcome = await pass(kube, p.kind, p.namespace, p.name);
      assert.equal(outcome.result, 'Success', `${p.kind}: ${outcome.error ?? ''}`);
    }
    const toComponents = log
      .mutating()
      .filter((r) => !r.path.includes(`/apis/${operatorApiVersion}/`))
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(toComponents, []);
    assertSameComponents(await listComponents(a.kube, kinds), before);
  });

  test("a patch upgrade of the core provider by the providers pass leaves what the operator's own upgrade leaves", async () => {
    for (const m of [a, b]) {
      await deleteObject(m.kube, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: core.namespace,
        name: releaseName(core, from),
      });
      await seedRelease(m.kube, core, releases.to);
      await applyProvider(m.kube, core.kind, core.namespace, core.name, specOf(core, to));
    }
    // A: the providers pass (upgrade, then the Deployment comes up, then Ready).
    const first = await pass(a.kube, core.kind, core.namespace, core.name);
    assert.notEqual(first.result, 'Error', first.error);
    await markAvailable(a.kube, core.namespace, core.deployment);
    const second = await pass(a.kube, core.kind, core.namespace, core.name);
    assert.equal(second.result, 'Success', second.error);
    // B: the operator.
    const oracle = await waitForOperatorInstall(b.kube, core, to, operatorB);
    const ours = await readProvider(a.kube, core.kind, core.namespace, core.name);

    assertSameComponents(await listComponents(a.kube, kinds), await listComponents(b.kube, kinds));
    const summary = (p: Provider) => ({
      installedVersion: p.status?.installedVersion,
      contract: p.status?.contract,
      conditions: (p.status?.conditions ?? [])
        .map((c) => ({ type: c.type, status: c.status, reason: c.reason }))
        .sort((x, y) => x.type.localeCompare(y.type)),
    });
    assert.deepEqual(summary(ours), summary(oracle));
    assert.equal(ours.status?.contract, 'v1beta2', "upstream v1.14's metadata.yaml: release series 1.14, v1beta2");
  });
});
