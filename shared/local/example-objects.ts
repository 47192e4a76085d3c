// The objects `npm start` applies: examples/docker (a ClusterClass and its Cluster), a ClusterResourceSet with a
// ConfigMap selecting that Cluster, and a core provider served from release ConfigMaps (test/support/fixtures/providers-release).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { AddonsApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { KubeObject } from '#shared/kube/index.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import { computeInMemoryObjects } from '#test/e2e/in-memory-class.ts';

const root = new URL('../../', import.meta.url);
const capi = 'cluster.x-k8s.io/v1beta2';

export const exampleCluster = { apiVersion: capi, kind: 'Cluster', namespace: 'default', name: 'docker-1' } as const;
/** The label the example ClusterResourceSet selects. */
export const exampleAddonLabel = { 'addons.example.com/cni': 'demo' } as const;
/** The object the example ClusterResourceSet puts into the workload cluster. */
export const exampleAddonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'kube-system',
  name: 'demo-cni-settings',
} as const;
/** The data of the object the example ClusterResourceSet applies (`data.mode`). */
export const exampleAddonMode = 'vxlan';
export const exampleProvider = {
  apiVersion: operatorApiVersion,
  kind: 'CoreProvider',
  namespace: 'capi-system',
  name: 'cluster-api',
} as const;

function readYaml(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(new URL(path, root), 'utf8')).map((d) => d.toJS() as KubeObject);
}

/** Generic CRDs for the provider kinds the Docker example's ClusterClass references (no provider runs locally). */
export function exampleCrds(): KubeObject[] {
  return [
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
    genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
    genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
  ];
}

/** examples/docker: the ClusterClass with its templates, then the Cluster (labelled for the add-ons example). */
export function topologyExample(): KubeObject[] {
  const clusters = readYaml('examples/docker/cluster.yaml').map((c) => ({
    ...c,
    metadata: { ...c.metadata, labels: { ...c.metadata.labels, ...exampleAddonLabel } },
  }));
  return [...readYaml('examples/docker/clusterclass.yaml'), ...clusters];
}

/** A ConfigMap holding one object, and the ClusterResourceSet applying it to the labelled Clusters. */
export function addonsExample(): KubeObject[] {
  const addon = [
    `apiVersion: ${exampleAddonObject.apiVersion}`,
    `kind: ${exampleAddonObject.kind}`,
    'metadata:',
    `  name: ${exampleAddonObject.name}`,
    `  namespace: ${exampleAddonObject.namespace}`,
    'data:',
    `  mode: ${exampleAddonMode}`,
    '',
  ].join('\n');
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'demo-cni-resources' },
      data: { 'cni.yaml': addon },
    },
    {
      apiVersion: AddonsApiVersion,
      kind: 'ClusterResourceSet',
      metadata: { namespace: 'default', name: 'demo-cni' },
      spec: {
        clusterSelector: { matchLabels: { ...exampleAddonLabel } },
        resources: [{ kind: 'ConfigMap', name: 'demo-cni-resources' }],
        strategy: 'Reconcile',
      },
    },
  ];
}

/** The fake core provider's v1.0.0 release in a ConfigMap, and the CoreProvider selecting it. */
export function providersExample(): KubeObject[] {
  const release = 'test/support/fixtures/providers-release/core/';
  const components = readFileSync(new URL(`${release}components-template.yaml`, root), 'utf8').replaceAll(
    '@VERSION@',
    'v1.0.0',
  );
  const labels = { 'provider-components': 'local-core' };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: exampleProvider.namespace } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: exampleProvider.namespace, name: 'v1.0.0', labels },
      data: { metadata: readFileSync(new URL(`${release}metadata.yaml`, root), 'utf8'), components },
    },
    {
      apiVersion: exampleProvider.apiVersion,
      kind: exampleProvider.kind,
      metadata: { namespace: exampleProvider.namespace, name: exampleProvider.name },
      spec: { version: 'v1.0.0', fetchConfig: { selector: { matchLabels: labels } } },
    },
  ];
}

/** The Cluster of the full plane's example: upstream's own in-memory topology Cluster. */
export const upstreamExampleCluster = {
  apiVersion: capi,
  kind: 'Cluster',
  namespace: 'default',
  name: 'in-memory-1',
} as const;

/**
 * With upstream's managers running: upstream's own in-memory ClusterClass (its e2e data, inline-patch copy, see
 * test/e2e/in-memory-class.ts) with its templates, then its topology Cluster, labelled for the add-ons example.
 */
export function upstreamTopologyExample(): KubeObject[] {
  const { clusterClass, cluster } = computeInMemoryObjects({
    namespace: upstreamExampleCluster.namespace,
    clusterName: upstreamExampleCluster.name,
    kubernetesVersion: 'v1.36.4',
  });
  return [
    ...clusterClass,
    { ...cluster, metadata: { ...cluster.metadata, labels: { ...cluster.metadata.labels, ...exampleAddonLabel } } },
  ];
}

/**
 * The add-ons example for the in-memory workload cluster: strategy ApplyOnce, because the Docker provider's in-memory
 * workload API server has no server-side apply (which strategy Reconcile uses); it serves creation.
 */
export function upstreamAddonsExample(): KubeObject[] {
  return addonsExample().map((o) =>
    o.kind === 'ClusterResourceSet' ? { ...o, spec: { ...(o['spec'] as object), strategy: 'ApplyOnce' } } : o,
  );
}
