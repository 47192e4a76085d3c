// Version discovery and hub reads/writes against a real kube-apiserver: `cluster.x-k8s.io` served only in v1beta1
// (the project's own CRDs, like upstream up to v1.10) and `addons.cluster.x-k8s.io` served in v1beta1 and v1beta2.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  applyHubObject,
  findHubObject,
  getContractApiVersionGetter,
  getEdgeVersion,
  getObject,
  getServedVersions,
  listHubObjects,
  UnsupportedApiVersionError,
  type KubeObject,
} from '#shared/kube/index.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/harness/clusters.ts';

const ns = 'default';

/** The ClusterResourceSet CRD again, now serving v1beta1 and v1beta2 (storage v1beta2), as upstream v1.11+ does. */
function bothVersionsCrd(): KubeObject {
  const crd = genericCrd('addons.cluster.x-k8s.io', 'v1beta2', 'ClusterResourceSet');
  const spec = crd['spec'] as { versions: Record<string, unknown>[] };
  const v1beta2 = spec.versions[0] ?? {};
  return { ...crd, spec: { ...spec, versions: [{ ...v1beta2, name: 'v1beta1', storage: false }, v1beta2] } };
}

/** A provider CRD carrying the contract label upstream reads to find a kind's apiVersion. */
function providerCrd(): KubeObject {
  const crd = genericCrd('controlplane.cluster.x-k8s.io', 'v1beta1', 'KubeadmControlPlane');
  return { ...crd, metadata: { ...crd.metadata, labels: { 'cluster.x-k8s.io/v1beta1': 'v1alpha4_v1beta1' } } };
}

describe('version discovery on a real kube-apiserver', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'versions', extraCrds: [bothVersionsCrd(), providerCrd()] });
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('discovers v1beta1 only for cluster.x-k8s.io and v1beta1 + v1beta2 for addons', async () => {
    assert.deepEqual([...(await getServedVersions(mgmt.kube, 'cluster.x-k8s.io'))], ['v1beta1']);
    assert.deepEqual([...(await getServedVersions(mgmt.kube, 'addons.cluster.x-k8s.io'))].sort(), [
      'v1beta1',
      'v1beta2',
    ]);
    assert.equal(await getEdgeVersion(mgmt.kube, 'cluster.x-k8s.io'), 'v1beta1');
    assert.equal(await getEdgeVersion(mgmt.kube, 'addons.cluster.x-k8s.io'), 'v1beta2');
  });

  test('asks the server once per client: a second lookup sends no request', async () => {
    const { kube, log } = await mgmt.newClient();
    await getEdgeVersion(kube, 'cluster.x-k8s.io');
    const after1 = log.records.length;
    await getEdgeVersion(kube, 'cluster.x-k8s.io');
    assert.equal(after1, 1);
    assert.equal(log.records.length, 1);
    kube.close();
  });

  test('fails with UnsupportedApiVersionError for a group the server does not serve', async () => {
    await assert.rejects(getEdgeVersion(mgmt.kube, 'nope.example.com'), UnsupportedApiVersionError);
  });

  test('reads the apiVersion of a provider kind from its CRD contract label (newest listed)', async () => {
    const apiVersionFor = await getContractApiVersionGetter(mgmt.kube, 'v1beta1');
    assert.equal(
      apiVersionFor('controlplane.cluster.x-k8s.io', 'KubeadmControlPlane'),
      'controlplane.cluster.x-k8s.io/v1beta1',
    );
    assert.equal(apiVersionFor('controlplane.cluster.x-k8s.io', 'Unknown'), undefined);
  });

  test('a v1beta2 Cluster applied to a v1beta1-only server is stored as v1beta1 and reads back as v1beta2', async () => {
    const hub: KubeObject = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: ns, name: 'c-hub' },
      spec: {
        controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c-hub-cp' },
        topology: {
          classRef: { name: 'quick-start' },
          version: 'v1.34.0',
          controlPlane: { replicas: 1, deletion: { nodeDrainTimeoutSeconds: 300 } },
        },
      },
    };
    await applyHubObject(mgmt.kube, hub, { fieldManager: 'versions-test' });

    const stored = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      namespace: ns,
      name: 'c-hub',
    });
    const spec = stored['spec'] as Record<string, Record<string, unknown>>;
    assert.equal(spec['topology']?.['class'], 'quick-start');
    assert.deepEqual((spec['topology']?.['controlPlane'] as Record<string, unknown>)['nodeDrainTimeout'], '5m0s');
    assert.deepEqual(spec['controlPlaneRef'], {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
      kind: 'KubeadmControlPlane',
      namespace: ns,
      name: 'c-hub-cp',
    });
    assert.equal(stored.metadata.annotations?.['cluster.x-k8s.io/conversion-data'], undefined);

    const read = await findHubObject(
      mgmt.kube,
      { group: 'cluster.x-k8s.io', kind: 'Cluster' },
      { namespace: ns, name: 'c-hub' },
    );
    assert.equal(read?.apiVersion, 'cluster.x-k8s.io/v1beta2');
    const readSpec = read?.['spec'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(readSpec['topology']?.['classRef'], { name: 'quick-start' });
    assert.deepEqual(
      readSpec['controlPlaneRef'],
      hub['spec'] && (hub['spec'] as Record<string, unknown>)['controlPlaneRef'],
    );
    assert.deepEqual((readSpec['topology']?.['controlPlane'] as Record<string, unknown>)['deletion'], {
      nodeDrainTimeoutSeconds: 300,
    });
  });

  test('a ClusterResourceSet is written and listed in v1beta2 where the server serves it', async () => {
    const { kube, log } = await mgmt.newClient();
    await applyHubObject(
      kube,
      {
        apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
        kind: 'ClusterResourceSet',
        metadata: { namespace: ns, name: 'crs-hub' },
        spec: { clusterSelector: { matchLabels: { cni: 'x' } }, resources: [{ name: 'cm', kind: 'ConfigMap' }] },
      },
      { fieldManager: 'versions-test' },
    );
    const listed = await listHubObjects(
      kube,
      { group: 'addons.cluster.x-k8s.io', kind: 'ClusterResourceSet' },
      { namespace: ns },
    );
    assert.deepEqual(
      listed.items.map((i) => [i.apiVersion, i.metadata.name]),
      [['addons.cluster.x-k8s.io/v1beta2', 'crs-hub']],
    );
    const paths = log.records
      .filter((r) => r.method !== 'GET' || r.path.includes('clusterresourcesets'))
      .map((r) => r.path);
    assert.ok(
      paths.length > 0 && paths.every((p) => p.startsWith('/apis/addons.cluster.x-k8s.io/v1beta2/')),
      paths.join(' '),
    );
    kube.close();
  });
});
