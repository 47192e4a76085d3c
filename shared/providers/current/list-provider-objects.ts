// Finds what a provider installed: its Deployments, and every object carrying its clusterctl inventory labels (for
// upgrade and delete), found through discovery as clusterctl's `ListResources` does.
import { computeManifestLabel } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { clusterctlLabel, providerNameLabel } from '#shared/providers/desired/compute-provider-components.ts';

/** The inventory label selector of a provider (`clusterctl.cluster.x-k8s.io,cluster.x-k8s.io/provider=…`). */
export function computeInventorySelector(provider: Provider): string {
  return `${clusterctlLabel},${providerNameLabel}=${computeManifestLabel(provider.kind, provider.metadata.name ?? '')}`;
}

/** The provider's Deployments in its namespace, sorted by name. */
export async function listProviderDeployments(kube: KubeClient, provider: Provider): Promise<KubeObject[]> {
  const list = await listObjects(kube, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: provider.metadata.namespace,
    labelSelector: computeInventorySelector(provider),
  });
  return list.items.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
}

type ApiResource = { name: string; kind: string; namespaced: boolean; verbs?: string[] };
type ResourceList = { groupVersion?: string; resources?: ApiResource[] };
type GroupList = { groups?: { preferredVersion?: { groupVersion?: string } }[] };

/** Every listable and deletable resource the API server serves (preferred versions). */
async function discoverResources(
  kube: KubeClient,
): Promise<{ apiVersion: string; kind: string; namespaced: boolean }[]> {
  const groups = await kube.request<GroupList>({ method: 'GET', path: '/apis', target: { verb: 'discover' } });
  const versions = ['v1', ...(groups.groups ?? []).map((g) => g.preferredVersion?.groupVersion ?? '').filter(Boolean)];
  const lists = await Promise.all(
    versions.map((gv) =>
      kube
        .request<ResourceList>({
          method: 'GET',
          path: gv === 'v1' ? '/api/v1' : `/apis/${gv}`,
          target: { verb: 'discover', kind: gv },
        })
        .catch(() => ({ resources: [] }) as ResourceList)
        .then((list) => ({ gv, list })),
    ),
  );
  const out: { apiVersion: string; kind: string; namespaced: boolean }[] = [];
  for (const { gv, list } of lists) {
    for (const r of list.resources ?? []) {
      if (r.name.includes('/')) continue;
      const verbs = r.verbs ?? [];
      if (!verbs.includes('list') || !verbs.includes('delete')) continue;
      // NOTE: Events and the like never carry inventory labels; skipping them saves requests.
      if (['Event', 'Pod', 'ReplicaSet', 'EndpointSlice', 'Endpoints', 'Lease'].includes(r.kind)) continue;
      out.push({ apiVersion: gv, kind: r.kind, namespaced: r.namespaced });
    }
  }
  return out;
}

/**
 * Every object labelled as the provider's inventory: namespaced ones in the provider's namespace, cluster-scoped
 * ones anywhere.
 */
export async function listInventoryObjects(kube: KubeClient, provider: Provider): Promise<KubeObject[]> {
  const labelSelector = computeInventorySelector(provider);
  const resources = await discoverResources(kube);
  const lists = await Promise.all(
    resources.map((r) =>
      listObjects(kube, {
        apiVersion: r.apiVersion,
        kind: r.kind,
        namespace: r.namespaced ? provider.metadata.namespace : undefined,
        labelSelector,
      })
        .then((l) => l.items)
        .catch(() => [] as KubeObject[]),
    ),
  );
  return lists.flat();
}
