// What the forwarder watches: the controllers' kinds, their ConfigMaps/Secrets, the provider objects, every
// provider template kind the cluster serves (the class's templates and the clones topologies own), and the control
// planes and workers topologies own (status changes).
import type { KubeClient } from '#shared/kube/client.ts';
import type { providerKinds } from '#shared/runtime/routes.ts';
import { topologyOwnedLabel, type WatchTarget } from '#functions/forwarder/watch-kind.ts';
import { listPages } from '#shared/kube/list-pages.ts';

type ProviderKind = (typeof providerKinds)[number];

// NOTE: spelled out rather than imported: routes.ts loads zod and (through events.ts) the DynamoDB client, about
// a third of the forwarder's memory. `satisfies` makes `tsc` fail when this list and `providerKinds` drift apart.
const operatorProviderKinds = Object.keys({
  CoreProvider: true,
  BootstrapProvider: true,
  ControlPlaneProvider: true,
  InfrastructureProvider: true,
  AddonProvider: true,
  IPAMProvider: true,
  RuntimeExtensionProvider: true,
} satisfies Record<ProviderKind, true>) as ProviderKind[];

/** The one Secret type a ClusterResourceSet may reference (upstream's `ClusterResourceSetSecretType`, v1beta1 on). */
export const clusterResourceSetSecretType = 'addons.cluster.x-k8s.io/resource-set';

/** Which Secrets the forwarder watches (metadata only either way). */
export type SecretWatch = {
  /**
   * `resource-set` (default): only Secrets of {@link clusterResourceSetSecretType}, the only ones a ClusterResourceSet
   * applies, selected by the API server (`fieldSelector=type=...`), so the cluster's other Secret churn (bootstrap
   * tokens, kubeconfigs, certificates) costs the forwarder neither memory nor events. `all`: every Secret (a provider's
   * `configSecret` change then wakes its pass at once instead of at the next sweep).
   */
  readonly scope?: 'resource-set' | 'all';
  /** A label selector on top (e.g. `addons.example.com/crs=true`). */
  readonly labelSelector?: string;
};

/** The kinds every deployment watches (kinds the cluster does not serve are logged and skipped). */
export function defaultTargets(secrets: SecretWatch = {}): WatchTarget[] {
  return [
    // NOTE: in full, for the few status fields the passes read; the core manager's other status writes (conditions,
    // replica counters: dozens per rollout) send nothing.
    { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', changesOf: 'cluster' },
    { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'ClusterClass' },
    // NOTE: the workers a topology owns, for the status changes its upgrade and creation wait on (as upstream's
    // topology controller watches them); the control-plane kinds are found among the CRDs.
    ...['MachineDeployment', 'MachinePool'].map((kind) => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind,
      labelSelector: topologyOwnedLabel,
      changesOf: 'topologyOwned' as const,
    })),
    { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig' },
    // NOTE: upstream up to v1.10 serves the add-on kinds in v1beta1 only; the add-on pass converts at the edge.
    ...['ClusterResourceSet', 'ClusterResourceSetBinding'].map((kind) => ({
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind,
      fallbackApiVersions: ['addons.cluster.x-k8s.io/v1beta1'],
    })),
    // NOTE: metadata only (name, labels, resourceVersion are all a ClusterResourceSet or provider mapping reads), but
    // not narrowed: a ClusterResourceSet or a provider's fetchConfig may name any ConfigMap, of any type.
    { apiVersion: 'v1', kind: 'ConfigMap' },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      ...(secrets.scope === 'all' ? {} : { fieldSelector: `type=${clusterResourceSetSecretType}` }),
      ...(secrets.labelSelector ? { labelSelector: secrets.labelSelector } : {}),
    },
    ...operatorProviderKinds.map((kind) => ({ apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind })),
    { apiVersion: 'management.cluster.x-k8s.io/v1alpha1', kind: 'ClusterRollout' },
  ];
}

type CrdSpec = { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };

/**
 * An InfrastructureCluster kind: `*Cluster` of an `infrastructure.*cluster.x-k8s.io` group (DockerCluster, DevCluster,
 * AWSCluster, AWSManagedCluster, ...). Only the topology-owned objects are watched, so a kind of that name that no
 * topology creates costs a watch and nothing else.
 */
const isInfrastructureClusterKind = (group: string, kind: string) =>
  group.startsWith('infrastructure.') && kind.endsWith('Cluster') && kind !== 'Cluster';

/**
 * Every served `*Template` kind of a `*.cluster.x-k8s.io` group (the templates ClusterClasses reference, and the
 * clones topologies own, whose spec or metadata edits run their Cluster's pass; metadata only), and every
 * control-plane kind (`controlplane.cluster.x-k8s.io`, not a template) and InfrastructureCluster kind, watched for the
 * topology-owned ones (their spec, metadata and the status the pass waits on; upstream's topology controller watches
 * the Cluster's InfrastructureCluster and control plane for every change).
 *
 * @example
 * const targets = [...defaultTargets(), ...(await discoverProviderTargets(kube))];
 */
export async function discoverProviderTargets(kube: KubeClient): Promise<WatchTarget[]> {
  const targets: WatchTarget[] = [];
  // NOTE: CRDs carry their whole OpenAPI schema; small pages keep the parsed JSON small.
  await listPages(
    kube,
    { path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', kind: 'CustomResourceDefinition', limit: 20 },
    {
      onPage(crds) {
        for (const crd of crds) {
          const spec = crd['spec'] as CrdSpec | undefined;
          const kind = spec?.names?.kind ?? '';
          const version = spec?.versions?.find((v) => v.storage)?.name;
          if (!spec?.group?.endsWith('cluster.x-k8s.io') || !version) continue;
          const apiVersion = `${spec.group}/${version}`;
          if (kind.endsWith('Template')) targets.push({ apiVersion, kind });
          else if (spec.group.startsWith('controlplane.') || isInfrastructureClusterKind(spec.group, kind))
            targets.push({ apiVersion, kind, labelSelector: topologyOwnedLabel, changesOf: 'topologyOwned' });
        }
      },
      onRestart: () => void targets.splice(0),
    },
  );
  return targets;
}
