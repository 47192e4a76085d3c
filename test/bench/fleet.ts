// The benchmark fleet: examples/variables-and-patches (a ClusterClass with two MachineDeployment classes, variables
// and patches) in its own namespace, N Clusters using it with two MachineDeployments each, every Cluster's
// kubeconfig Secret pointing at one shared workload cluster, two ClusterResourceSets, and a core and an
// infrastructure provider served from release ConfigMaps.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { AddonsApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { applyObject, applyStatus, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { genericCrd } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  createSecret,
  ensureNamespace,
  infraSelector,
  seedInfrastructure,
  seedReleaseConfigMap,
} from '#test/integration/providers/provider-fixtures.ts';
import { providerVersion } from '#test/support/builders/topology.ts';

export const fleetNamespace = 'fleet';
export const fleetManager = 'bench-user';
const capi = 'cluster.x-k8s.io/v1beta2';
const root = new URL('../../', import.meta.url);

/** The add-on ClusterResourceSets select Clusters by these labels. */
export const addonLabels = { cni: { 'addons.bench/cni': 'calico' }, monitoring: { 'addons.bench/monitoring': 'on' } };

export const providerKeys = {
  core: { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' },
  infrastructure: { kind: 'InfrastructureProvider', namespace: 'capf-system', name: 'fake' },
} as const;

/** Generic CRDs for the provider kinds the ClusterClass references (no provider controllers run). */
export function fleetCrds(): KubeObject[] {
  return [
    genericCrd('infrastructure.cluster.x-k8s.io', providerVersion, 'DockerClusterTemplate'),
    genericCrd('infrastructure.cluster.x-k8s.io', providerVersion, 'DockerCluster'),
    genericCrd('infrastructure.cluster.x-k8s.io', providerVersion, 'DockerMachineTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', providerVersion, 'KubeadmControlPlaneTemplate'),
    genericCrd('controlplane.cluster.x-k8s.io', providerVersion, 'KubeadmControlPlane'),
    genericCrd('bootstrap.cluster.x-k8s.io', providerVersion, 'KubeadmConfigTemplate'),
  ];
}

/**
 * The example's objects in the fleet namespace. Its provider templates (and the patch selectors naming them) are
 * v1beta1; the fleet serves them as v1beta2, the version upstream v1.14's providers serve.
 */
function readExample(file: string): KubeObject[] {
  const text = readFileSync(new URL(`examples/variables-and-patches/${file}`, root), 'utf8').replace(
    /\b((?:infrastructure|controlplane|bootstrap)\.cluster\.x-k8s\.io)\/v1beta1\b/g,
    `$1/${providerVersion}`,
  );
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null)
    .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: fleetNamespace } }));
}

/** `fleet-0001`, `fleet-0002`, ... */
export function clusterName(i: number): string {
  return `fleet-${String(i + 1).padStart(4, '0')}`;
}

/** The example's Cluster, the template of every fleet Cluster. */
export function fleetClusterTemplate(): KubeObject {
  const [template] = readExample('cluster.yaml');
  if (!template) throw new Error('examples/variables-and-patches/cluster.yaml has no Cluster');
  return template;
}

/** Cluster i of the example: every Cluster gets both add-ons' labels; the worker image tag varies a little. */
export function fleetCluster(template: KubeObject, i: number): KubeObject {
  const spec = structuredClone(template['spec']) as {
    topology: { variables: { name: string; value: unknown }[] };
  };
  spec.topology.variables = spec.topology.variables.map((v) =>
    v.name === 'workerImageTag' ? { ...v, value: `v1.30.${i % 5}` } : v,
  );
  return {
    apiVersion: capi,
    kind: 'Cluster',
    metadata: {
      namespace: fleetNamespace,
      name: clusterName(i),
      labels: { ...addonLabels.cni, ...addonLabels.monitoring },
    },
    spec,
  };
}

function addonObjects(): KubeObject[] {
  const manifest = (name: string, data: Record<string, string>) =>
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: ${name}`,
      '  namespace: kube-system',
      'data:',
      ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
      '',
    ].join('\n');
  const set = (name: string, selector: Record<string, string>, strategy: 'ApplyOnce' | 'Reconcile') => ({
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSet',
    metadata: { namespace: fleetNamespace, name },
    spec: { strategy, clusterSelector: { matchLabels: selector }, resources: [{ kind: 'ConfigMap', name }] },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: fleetNamespace, name: 'cni' },
      data: { 'cni.yaml': manifest('bench-cni', { mode: 'vxlan', mtu: '1450' }) },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: fleetNamespace, name: 'monitoring' },
      data: { 'monitoring.yaml': manifest('bench-monitoring', { scrapeInterval: '30s' }) },
    },
    set('cni', addonLabels.cni, 'ApplyOnce'),
    set('monitoring', addonLabels.monitoring, 'Reconcile'),
  ];
}

export type FleetOptions = {
  readonly clusters: number;
  /** The workload cluster every Cluster's kubeconfig Secret points at. */
  readonly workloadKubeconfig: string;
  readonly concurrency: number;
  readonly progress: (done: number, total: number) => void;
};

/**
 * Creates the fleet through the admin client: ClusterClass and templates, add-ons, providers, then the Clusters
 * with their kubeconfig Secrets and `status.initialization.infrastructureProvisioned` (what an infrastructure provider would report,
 * so the ClusterResourceSets apply).
 */
export async function createFleet(kube: KubeClient, opts: FleetOptions): Promise<void> {
  const write = (obj: KubeObject) => applyObject(kube, obj, { fieldManager: fleetManager, force: true });
  await ensureNamespace(kube, fleetNamespace);
  for (const obj of [...readExample('templates.yaml'), ...readExample('clusterclass.yaml'), ...addonObjects()]) {
    await write(obj);
  }
  await ensureNamespace(kube, providerKeys.core.namespace);
  for (const version of ['v1.0.0', 'v1.1.0']) {
    await seedReleaseConfigMap(kube, {
      namespace: providerKeys.core.namespace,
      provider: 'core',
      version,
      labels: { 'provider-components': 'fake-core' },
      versionIn: 'name',
    });
  }
  await applyProvider(kube, 'CoreProvider', providerKeys.core.namespace, providerKeys.core.name, {
    version: 'v1.0.0',
    fetchConfig: { selector: { matchLabels: { 'provider-components': 'fake-core' } } },
  });
  await seedInfrastructure(kube, providerKeys.infrastructure.namespace);
  await createSecret(kube, providerKeys.infrastructure.namespace, 'capf-variables', {
    FAKE_REGION: 'eu-west-1',
    FAKE_TOKEN: 'bench',
  });
  await applyProvider(
    kube,
    'InfrastructureProvider',
    providerKeys.infrastructure.namespace,
    providerKeys.infrastructure.name,
    { version: 'v1.0.0', fetchConfig: infraSelector, configSecret: { name: 'capf-variables' } },
  );

  const template = fleetClusterTemplate();
  const value = Buffer.from(opts.workloadKubeconfig).toString('base64');
  let done = 0;
  await mapLimit(
    Array.from({ length: opts.clusters }, (_, i) => i),
    opts.concurrency,
    async (i) => {
      const name = clusterName(i);
      await write({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          namespace: fleetNamespace,
          name: `${name}-kubeconfig`,
          labels: { 'cluster.x-k8s.io/cluster-name': name },
        },
        type: 'cluster.x-k8s.io/secret',
        data: { value },
      });
      await write(fleetCluster(template, i));
      await applyStatus(
        kube,
        {
          apiVersion: capi,
          kind: 'Cluster',
          metadata: { namespace: fleetNamespace, name },
          status: { initialization: { infrastructureProvisioned: true } },
        },
        { fieldManager: 'bench-infrastructure-provider', force: true },
      );
      done++;
      if (done % 50 === 0 || done === opts.clusters) opts.progress(done, opts.clusters);
    },
  );
}
