// What the forwarder watches: the controllers' kinds, their ConfigMaps/Secrets, the provider objects, every
// provider template kind the cluster serves, and the control planes and workers topologies own (status changes).
import type { KubeClient } from '#shared/kube/client.ts';
import type { providerKinds } from '#shared/runtime/routes.ts';
import type { WatchTarget } from '#functions/forwarder/watch-kind.ts';
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

/** The kinds every deployment watches (kinds the cluster does not serve are logged and skipped). */
export function defaultTargets(secretLabelSelector?: string): WatchTarget[] {
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
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'v1', kind: 'Secret', ...(secretLabelSelector ? { labelSelector: secretLabelSelector } : {}) },
    ...operatorProviderKinds.map((kind) => ({ apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind })),
    { apiVersion: 'management.cluster.x-k8s.io/v1alpha1', kind: 'ClusterRollout' },
  ];
}

/** Objects a topology owns carry this label (upstream's `ClusterTopologyOwnedLabel`). */
const topologyOwnedLabel = 'topology.cluster.x-k8s.io/owned';

type CrdSpec = { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };

/**
 * Every served `*Template` kind of a `*.cluster.x-k8s.io` group (the templates ClusterClasses reference), and every
 * control-plane kind (`controlplane.cluster.x-k8s.io`, not a template), watched for the topology-owned ones' status.
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
          else if (spec.group.startsWith('controlplane.'))
            targets.push({ apiVersion, kind, labelSelector: topologyOwnedLabel, changesOf: 'topologyOwned' });
        }
      },
      onRestart: () => void targets.splice(0),
    },
  );
  return targets;
}
