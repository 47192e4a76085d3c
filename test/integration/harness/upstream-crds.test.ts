// Upstream Cluster API's own CRDs (from the published Go modules) install into the harness kube-apiserver with the
// labels upstream's kustomize adds, serve v1beta2 objects, and get a loopback conversion stanza when asked.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { applyObject, getObject, type KubeObject } from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  computeUpstreamCrds,
  computeUpstreamWebhookConfigurations,
  resolveUpstreamManifests,
} from '#test/support/harness/upstream-crds.ts';

type Crd = KubeObject & {
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; storage: boolean }[];
    conversion?: { strategy: string; webhook?: { clientConfig: { url: string; caBundle: string } } };
  };
};

describe('upstream CRDs in the harness', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({ name: 'upstream-crds', crds: 'upstream' });
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('every component installs and carries the labels of its kustomizations', async () => {
    const crds = computeUpstreamCrds() as Crd[];
    const byName = new Map(crds.map((c) => [c.metadata.name, c]));
    const expected: [string, Record<string, string | undefined>][] = [
      [
        'clusters.cluster.x-k8s.io',
        { 'cluster.x-k8s.io/provider': 'cluster-api', 'cluster.x-k8s.io/v1beta2': undefined },
      ],
      ['clusterresourcesets.addons.cluster.x-k8s.io', { 'cluster.x-k8s.io/provider': 'cluster-api' }],
      ['extensionconfigs.runtime.cluster.x-k8s.io', { 'cluster.x-k8s.io/provider': 'cluster-api' }],
      [
        'kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io',
        {
          'cluster.x-k8s.io/provider': 'bootstrap-kubeadm',
          'cluster.x-k8s.io/v1beta1': 'v1beta1',
          'cluster.x-k8s.io/v1beta2': 'v1beta2',
        },
      ],
      [
        'kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io',
        { 'cluster.x-k8s.io/provider': 'control-plane-kubeadm', 'cluster.x-k8s.io/v1beta2': 'v1beta2' },
      ],
      ...['devclusters', 'devmachines', 'devclustertemplates', 'devmachinetemplates'].map(
        (plural) =>
          [
            `${plural}.infrastructure.cluster.x-k8s.io`,
            {
              'cluster.x-k8s.io/provider': 'infrastructure-docker',
              'cluster.x-k8s.io/v1beta1': 'v1beta1',
              'cluster.x-k8s.io/v1beta2': 'v1beta2',
            },
          ] as [string, Record<string, string>],
      ),
      ['coreproviders.operator.cluster.x-k8s.io', { 'clusterctl.cluster.x-k8s.io/core': 'capi-operator' }],
    ];
    for (const [name, labels] of expected) {
      assert.ok(byName.has(name), `${name} is among upstream's CRDs`);
      const served = await getObject(mgmt.kube, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name,
      });
      for (const [key, value] of Object.entries(labels)) {
        assert.equal(served.metadata.labels?.[key], value, `${name} label ${key}`);
      }
      const conditions = (served['status'] as { conditions: { type: string; status: string }[] }).conditions;
      assert.ok(
        conditions.some((c) => c.type === 'Established' && c.status === 'True'),
        `${name} established`,
      );
    }
  });

  test('a v1beta2 Cluster and a DevCluster are accepted by upstream schemas', async () => {
    const cluster = await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: 'default', name: 'plain' },
        spec: {
          clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevCluster', name: 'plain' },
        },
      },
      { fieldManager: 'test' },
    );
    assert.equal(cluster.apiVersion, 'cluster.x-k8s.io/v1beta2');
    const dev = await applyObject(
      mgmt.kube,
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
        kind: 'DevCluster',
        metadata: { namespace: 'default', name: 'plain' },
        spec: { backend: { inMemory: {} } },
      },
      { fieldManager: 'test' },
    );
    assert.deepEqual((dev['spec'] as { backend: unknown }).backend, { inMemory: {} });
    // Upstream's schema rejects what it does not know (the project's own CRDs would keep it).
    await assert.rejects(
      applyObject(
        mgmt.kube,
        {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: { namespace: 'default', name: 'bad' },
          spec: { clusterNetwork: { pods: { cidrBlocks: 'not-a-list' } } },
        },
        { fieldManager: 'test' },
      ),
      /cidrBlocks/,
    );
  });

  test('conversion stanzas and webhook configurations point at the given loopback endpoint', () => {
    const endpoint = { url: 'https://127.0.0.1:9443', caBundle: '-----BEGIN CERTIFICATE-----\nx\n' };
    const crds = computeUpstreamCrds({ components: ['core'], conversion: { core: endpoint } }) as Crd[];
    const clusters = crds.find((c) => c.metadata.name === 'clusters.cluster.x-k8s.io');
    assert.equal(clusters?.spec.conversion?.strategy, 'Webhook');
    assert.equal(clusters?.spec.conversion?.webhook?.clientConfig.url, 'https://127.0.0.1:9443/convert');
    assert.equal(
      Buffer.from(clusters?.spec.conversion?.webhook?.clientConfig.caBundle ?? '', 'base64').toString(),
      endpoint.caBundle,
    );
    const configs = computeUpstreamWebhookConfigurations('core', endpoint);
    assert.deepEqual(configs.map((c) => c.metadata.name).sort(), [
      'capi-mutating-webhook-configuration',
      'capi-validating-webhook-configuration',
    ]);
    const urls = configs.flatMap((c) =>
      (c['webhooks'] as { clientConfig: { url: string } }[]).map((w) => w.clientConfig.url),
    );
    assert.ok(urls.includes('https://127.0.0.1:9443/validate-cluster-x-k8s-io-v1beta2-cluster'));
    assert.ok(urls.every((u) => u.startsWith('https://127.0.0.1:9443/')));
  });

  test("upstream's in-memory e2e data is available", () => {
    const { e2e } = resolveUpstreamManifests();
    assert.ok(existsSync(e2e.clusterClassInMemory), e2e.clusterClassInMemory);
    assert.ok(existsSync(e2e.clusterTemplateInMemoryTopology), e2e.clusterTemplateInMemoryTopology);
  });
});
