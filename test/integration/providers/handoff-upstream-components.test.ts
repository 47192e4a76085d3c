// The providers pass applies the handoff configuration (docs/beside-upstream.md) by default, on
// upstream's own core, kubeadm bootstrap, kubeadm control plane and Docker components (v1.14.2, gzip ConfigMap
// releases). Twin management clusters: on A the four are installed with the default, on B with the opt-out annotation
// (nothing of the handoff). Removing the opt-out on B applies the handoff on top of its components cache (the path an
// adopted operator install takes) and ends object by object where A's fresh install is; opting out again renders the
// components without it; deleting the providers leaves no policy behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import { deleteObject, findObject } from '#shared/kube/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { handoffAnnotation } from '#shared/providers/desired/compute-handoff.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  certManagerCrds,
  resolveUpstreamRelease,
  type UpstreamRelease,
} from '#test/support/harness/upstream-provider-components.ts';
import {
  applyProvider,
  ensureNamespace,
  markAvailable,
  pass,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';
import {
  all,
  assertHandoffInstalled,
  assertNoHandoff,
  assertSameComponents,
  componentKinds,
  listComponents,
  seedRelease,
  specOf,
  type Installed,
} from '#test/integration/providers/upstream-provider-fixtures.ts';

const version = 'v1.14.2';
const optOut = { [handoffAnnotation]: 'disabled' };

/** Passes until the provider is installed and Ready (marking its Deployment available as a kubelet would). */
async function install(kube: KubeClient, p: Installed): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const outcome = await pass(kube, p.kind, p.namespace, p.name);
    if (outcome.result === 'Error') throw new Error(`${p.kind}: ${outcome.error ?? ''}`);
    const d = await findObject(kube, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: p.namespace,
      name: p.deployment,
    });
    if (d) await markAvailable(kube, p.namespace, p.deployment);
    if (outcome.result === 'Success' && d) return;
  }
  throw new Error(`${p.kind} ${p.namespace}/${p.name} not installed after 4 passes`);
}

async function passAll(kube: KubeClient): Promise<void> {
  for (const p of all) {
    const outcome = await pass(kube, p.kind, p.namespace, p.name);
    assert.notEqual(outcome.result, 'Error', `${p.kind}: ${outcome.error ?? ''}`);
  }
}

async function setOptOut(kube: KubeClient, on: boolean): Promise<void> {
  for (const p of all) {
    await applyProvider(kube, p.kind, p.namespace, p.name, specOf(p, version), on ? optOut : {});
  }
}

describe(
  'the providers pass installs the handoff by default (upstream v1.14.2 components)',
  { timeout: 600_000 },
  () => {
    let a: TestCluster;
    let b: TestCluster;
    let release: UpstreamRelease;
    let kinds: { apiVersion: string; kind: string }[];

    before(async () => {
      release = resolveUpstreamRelease(version);
      kinds = [
        ...componentKinds(release),
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy' },
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding' },
      ];
      [a, b] = await Promise.all([
        startManagementCluster({ name: 'handoff-a', extraCrds: certManagerCrds() }),
        startManagementCluster({ name: 'handoff-b', extraCrds: certManagerCrds() }),
      ]);
      await Promise.all(
        [a, b].map(async (m) => {
          await waitForProviderKinds(m.kube);
          for (const p of all) {
            await ensureNamespace(m.kube, p.namespace);
            await seedRelease(m.kube, p, release);
          }
          await setOptOut(m.kube, m === b);
          for (const p of all) await install(m.kube, p);
        }),
      );
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
    });

    test('a default install carries the handoff: matchConditions, policy and binding, feature gates', async () => {
      await assertHandoffInstalled(a.kube);
    });

    test('a second pass of each provider writes nothing', async () => {
      const { kube, log } = await a.newClient();
      await passAll(kube);
      assert.deepEqual(
        log.mutating().map((r) => `${r.method} ${r.path}`),
        [],
      );
    });

    test('with the opt-out annotation, none of it', async () => {
      await assertNoHandoff(b.kube);
    });

    test('removing the opt-out applies the handoff on top of the cache, as a fresh install would have it', async () => {
      await setOptOut(b.kube, false);
      const { kube, log } = await b.newClient();
      await passAll(kube);
      const components = log
        .mutating()
        .filter((r) => !r.path.includes(`/apis/${operatorApiVersion}/`) && !r.path.includes('/secrets/'))
        .map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`)
        .sort();
      assert.deepEqual(components, [
        'PATCH /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/capi-system-capi-serverless-before-cluster-delete-handoff',
        'PATCH /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/capi-system-capi-serverless-clusterresourceset-handoff',
        'PATCH /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/capi-system-capi-serverless-before-cluster-delete-handoff',
        'PATCH /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/capi-system-capi-serverless-clusterresourceset-handoff',
        'PATCH /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/capi-validating-webhook-configuration',
        'PATCH /apis/apps/v1/namespaces/capd-system/deployments/capd-controller-manager',
        'PATCH /apis/apps/v1/namespaces/capi-kubeadm-control-plane-system/deployments/capi-kubeadm-control-plane-controller-manager',
      ]);
      await assertHandoffInstalled(b.kube);
      assertSameComponents(await listComponents(b.kube, kinds), await listComponents(a.kube, kinds));
      const { kube: again, log: second } = await b.newClient();
      await passAll(again);
      assert.deepEqual(
        second.mutating().map((r) => `${r.method} ${r.path}`),
        [],
        'the cache now holds the handoff',
      );
    });

    test('opting out re-renders the components without the handoff', async () => {
      await setOptOut(a.kube, true);
      await passAll(a.kube);
      for (const p of all) await markAvailable(a.kube, p.namespace, p.deployment);
      await passAll(a.kube);
      await assertNoHandoff(a.kube);
    });

    test('deleting the providers leaves no policy behind', async () => {
      const kinds: ProviderKind[] = [
        'InfrastructureProvider',
        'ControlPlaneProvider',
        'BootstrapProvider',
        'CoreProvider',
      ];
      for (const kind of kinds) {
        const p = all.find((x) => x.kind === kind);
        if (!p) continue;
        await deleteObject(b.kube, { apiVersion: operatorApiVersion, kind, namespace: p.namespace, name: p.name });
        const outcome = await pass(b.kube, kind, p.namespace, p.name);
        assert.equal(outcome.result, 'Success', `${kind}: ${outcome.error ?? ''}`);
      }
      for (const kind of ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
        for (const name of [
          'capi-system-capi-serverless-clusterresourceset-handoff',
          'capi-system-capi-serverless-before-cluster-delete-handoff',
        ]) {
          const left = await findObject(b.kube, { apiVersion: 'admissionregistration.k8s.io/v1', kind, name });
          assert.equal(left, undefined, `${kind} ${name}`);
        }
      }
    });
  },
);
