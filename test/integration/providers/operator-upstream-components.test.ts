// Upstream Cluster API's own providers through the Cluster API Operator itself: the core, kubeadm bootstrap, kubeadm
// control-plane and Docker providers' components as a release publishes them (built by kustomize from the pinned
// upstream Go modules, test/support/harness/upstream-provider-components.ts), mirrored into gzip ConfigMaps (the air-gapped
// path). The handoff configuration (docs/beside-upstream.md) is in place from the start, expressed
// in the providers' specs as an operator user would: a config Secret variable `CLUSTER_TOPOLOGY: "true"` for the kubeadm
// control plane and Docker providers, an additional manifest (the ClusterResourceSet policy and binding) and a
// manifest patch (the webhooks' matchConditions) for the core provider. On twin management clusters the operator
// installs all four; on A it is then stopped and the providers pass, which applies the handoff by default, takes over
// without a single write to the components; then the core provider is upgraded by a patch release on both sides (A: the
// providers pass, B: the operator) and the results are compared object by object. No kubelet runs and no cert-manager:
// what each writes is compared, not whether pods start.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import { applyObject, deleteObject, findObject, KubeConflictError } from '#shared/kube/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import {
  computeBeforeClusterDeletePolicyName,
  computeClusterResourceSetHandoffPolicy,
  computeHandoffPolicyName,
  computeHandoffWebhooks,
  computeServiceAccountUser,
} from '#shared/providers/desired/compute-handoff.ts';
import { computeProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import { computeBeforeClusterDeletePolicy } from '#shared/providers/desired/compute-before-cluster-delete-policy.ts';
import { startCapiOperator, type CapiOperator } from '#test/support/harness/capi-operator.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  certManagerCrds,
  resolveUpstreamRelease,
  type UpstreamRelease,
} from '#test/support/harness/upstream-provider-components.ts';
import {
  applyProvider,
  createSecret,
  ensureNamespace,
  markAvailable,
  pass,
  readProvider,
  userManager,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';
import {
  all,
  assertSameComponents,
  componentKinds,
  core,
  listComponents,
  others,
  releaseName,
  seedRelease,
  specOf,
  type Installed,
  assertHandoffInstalled,
} from '#test/integration/providers/upstream-provider-fixtures.ts';

const from = 'v1.14.1';
const to = 'v1.14.2';
const handoffName = 'capi-serverless-handoff';

/**
 * The handoff as the operator's own inputs express it: the core provider's additional manifests (policy and binding)
 * and the webhook configuration with its matchConditions as a manifest patch; `CLUSTER_TOPOLOGY` for the others.
 */
async function seedHandoff(kube: KubeClient, release: UpstreamRelease): Promise<void> {
  const namespace = core.namespace;
  const user = computeServiceAccountUser(namespace, 'capi-manager');
  const policy = [
    ...computeClusterResourceSetHandoffPolicy({ name: computeHandoffPolicyName(namespace), user }),
    ...computeBeforeClusterDeletePolicy({ name: computeBeforeClusterDeletePolicyName(namespace), user }),
  ];
  await applyObject(
    kube,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name: handoffName },
      data: { manifests: policy.map((o) => stringify(o)).join('---\n') },
    },
    { fieldManager: userManager },
  );
  for (const p of others) await createSecret(kube, p.namespace, handoffName, { CLUSTER_TOPOLOGY: 'true' });
  webhookPatch ??= computeWebhookPatch(release);
}

let webhookPatch: string | undefined;

/** A merge patch giving the core validating webhooks their matchConditions (the whole list: merge patches replace lists). */
function computeWebhookPatch(release: UpstreamRelease): string {
  const { objects } = computeProviderComponents({
    provider: {
      apiVersion: operatorApiVersion,
      kind: core.kind,
      metadata: { namespace: core.namespace, name: core.name },
    },
    version: release.version,
    componentsYaml: release.components(core.provider),
    configVariables: {},
  });
  const config = objects.find((o) => o.kind === 'ValidatingWebhookConfiguration');
  if (!config) throw new Error('the core components have no ValidatingWebhookConfiguration');
  const { apiVersion, kind, webhooks } = computeHandoffWebhooks(config);
  return JSON.stringify({ apiVersion, kind, metadata: { name: config.metadata.name }, webhooks });
}

function handoffSpecOf(p: Installed, version: string): ProviderSpec {
  // NOTE: the operator v0.29.0 needs the namespace of a referenced ConfigMap ("failed to get ConfigMap /name").
  if (p.kind !== core.kind)
    return { ...specOf(p, version), configSecret: { namespace: p.namespace, name: handoffName } };
  return {
    ...specOf(p, version),
    additionalManifests: { namespace: p.namespace, name: handoffName },
    manifestPatches: [webhookPatch ?? ''],
  };
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
      await seedHandoff(m.kube, releases.from);
    }
    [operatorA, operatorB] = await Promise.all([startCapiOperator(a), startCapiOperator(b)]);
    await Promise.all(
      [a, b].map((m) => applyProvider(m.kube, core.kind, core.namespace, core.name, handoffSpecOf(core, from))),
    );
    await Promise.all([
      waitForOperatorInstall(a.kube, core, from, operatorA),
      waitForOperatorInstall(b.kube, core, from, operatorB),
    ]);
    for (const m of [a, b])
      for (const p of others) await applyProvider(m.kube, p.kind, p.namespace, p.name, handoffSpecOf(p, to));
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

  test('the handoff the operator installed is the one the providers pass applies', async () => {
    await assertHandoffInstalled(a.kube);
  });

  test("the providers pass adopts the operator's install of all four (handoff in place) without a mutating request to the components", async () => {
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
      await applyProvider(m.kube, core.kind, core.namespace, core.name, handoffSpecOf(core, to));
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
