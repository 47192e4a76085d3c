// Version discovery and hub reads/writes against a real kube-apiserver: `cluster.x-k8s.io` served only in v1beta1
// (the project's v1beta1 CRDs, like upstream up to v1.10) and `addons.cluster.x-k8s.io` served in v1beta1 and v1beta2.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  applyHubObject,
  applyObject,
  createKubeClient,
  installCrds,
  type KubeClient,
  type RequestRecord,
  findHubObject,
  getContractApiVersionGetter,
  getEdgeVersion,
  getObject,
  getServedVersions,
  listHubObjects,
  UnsupportedApiVersionError,
  type KubeObject,
} from '#shared/kube/index.ts';
import { createKubeReader, getCluster } from '#shared/topology/current/kube-reader.ts';
import { genericCrd, ourCrds } from '#test/support/harness/clusters.ts';
import { startControlPlane, type ControlPlane } from '#test/support/harness/control-plane.ts';

const ns = 'default';

/** The ClusterResourceSet CRD again, now serving v1beta1 and v1beta2 (storage v1beta2), as upstream v1.11+ does. */
function bothVersionsCrd(): KubeObject {
  const crd = genericCrd('addons.cluster.x-k8s.io', 'v1beta2', 'ClusterResourceSet');
  const spec = crd['spec'] as { versions: Record<string, unknown>[] };
  const v1beta2 = spec.versions[0] ?? {};
  return { ...crd, spec: { ...spec, versions: [{ ...v1beta2, name: 'v1beta1', storage: false }, v1beta2] } };
}

/** The project's core CRDs cut down to their v1beta1 version, stored: a server as upstream up to v1.10 serves them. */
function v1beta1OnlyCrds(): KubeObject[] {
  return ourCrds().map((crd) => {
    const spec = crd['spec'] as { group: string; versions: Record<string, unknown>[] };
    if (spec.group !== 'cluster.x-k8s.io') return crd;
    const v1beta1 = spec.versions.find((v) => v['name'] === 'v1beta1');
    return v1beta1 === undefined ? crd : { ...crd, spec: { ...spec, versions: [{ ...v1beta1, storage: true }] } };
  });
}

/** A provider CRD carrying the contract label upstream reads to find a kind's apiVersion. */
function providerCrd(): KubeObject {
  const crd = genericCrd('controlplane.cluster.x-k8s.io', 'v1beta1', 'KubeadmControlPlane');
  return { ...crd, metadata: { ...crd.metadata, labels: { 'cluster.x-k8s.io/v1beta1': 'v1alpha4_v1beta1' } } };
}

describe('version discovery on a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  type RequestLog = { records: RequestRecord[] };
  let mgmt: { kube: KubeClient; newClient(): Promise<{ kube: KubeClient; log: RequestLog }> };
  before(async () => {
    controlPlane = await startControlPlane({ name: 'versions' });
    const newClient = async () => {
      const log: RequestLog = { records: [] };
      const kube = await createKubeClient(
        { kubeconfig: controlPlane.kubeconfig },
        { onRequest: (r) => void log.records.push(r) },
      );
      return { kube, log };
    };
    const { kube } = await newClient();
    mgmt = { kube, newClient };
    await installCrds(kube, [...v1beta1OnlyCrds(), bothVersionsCrd(), providerCrd()], {
      fieldManager: 'versions-test',
    });
  });
  after(async () => {
    mgmt?.kube.close();
    await controlPlane?.stop();
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

    const read = await findHubObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: ns,
      name: 'c-hub',
    });
    assert.equal(read?.apiVersion, 'cluster.x-k8s.io/v1beta2');
    const readSpec = read?.['spec'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(readSpec['topology']?.['classRef'], { name: 'quick-start' });
    assert.deepEqual(readSpec['controlPlaneRef'], {
      apiGroup: 'controlplane.cluster.x-k8s.io',
      kind: 'KubeadmControlPlane',
      name: 'c-hub-cp',
    });
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
    const listed = await listHubObjects(kube, {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      namespace: ns,
    });
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

  test('the topology reader reads v1beta1 objects of a v1beta1-only server as v1beta2', async () => {
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'MachineDeployment',
        metadata: { namespace: ns, name: 'md-v1beta1', labels: { 'cluster.x-k8s.io/cluster-name': 'c-hub' } },
        spec: {
          clusterName: 'c-hub',
          selector: { matchLabels: { a: 'b' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, deletePolicy: 'Oldest' } },
          template: {
            metadata: { labels: { a: 'b' } },
            spec: {
              clusterName: 'c-hub',
              bootstrap: { dataSecretName: 'boot' },
              infrastructureRef: {
                apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
                kind: 'DockerMachineTemplate',
                name: 'm',
              },
              nodeDrainTimeout: '2m0s',
            },
          },
        },
      },
      { fieldManager: 'versions-test' },
    );
    const reader = createKubeReader(mgmt.kube);
    const [md] = await reader.list({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      namespace: ns,
      matchLabels: { 'cluster.x-k8s.io/cluster-name': 'c-hub' },
    });
    const spec = md?.['spec'] as Record<string, unknown>;
    assert.equal(md?.apiVersion, 'cluster.x-k8s.io/v1beta2');
    assert.deepEqual(spec['rollout'], { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } });
    assert.deepEqual(spec['deletion'], { order: 'Oldest' });
    const template = (spec['template'] as Record<string, Record<string, unknown>>)['spec'];
    assert.deepEqual(template?.['infrastructureRef'], {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'DockerMachineTemplate',
      name: 'm',
    });
    assert.deepEqual(template?.['deletion'], { nodeDrainTimeoutSeconds: 120 });

    const read = await getCluster(mgmt.kube, { namespace: ns, name: 'c-hub' });
    assert.equal(read?.cluster.spec?.topology?.classRef.name, 'quick-start');
  });
});
