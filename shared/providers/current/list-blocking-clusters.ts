// Which workload Clusters use a provider (the proposal's delete guard): every Cluster uses the core provider; a
// Cluster uses another provider when one of its references (or one of its Machines' references) points into an
// API group served by the provider's CRDs.
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { listHubObjects, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { computeInventorySelector } from '#shared/providers/current/list-provider-objects.ts';

// NOTE: read in the v1beta2 hub shape (a v1beta1-only server's objects are converted at the edge).
const clusterApiVersion = 'cluster.x-k8s.io/v1beta2';

/** The API group of a reference: v1beta2's `apiGroup`, or the group of a v1beta1-style `apiVersion`. */
function groupOf(ref: unknown): string | undefined {
  const apiGroup = (ref as { apiGroup?: unknown } | undefined)?.apiGroup;
  if (typeof apiGroup === 'string') return apiGroup;
  const apiVersion = (ref as { apiVersion?: unknown } | undefined)?.apiVersion;
  if (typeof apiVersion !== 'string') return undefined;
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** API groups of the CRDs the provider installed. */
async function listProviderGroups(kube: KubeClient, provider: Provider): Promise<Set<string>> {
  const crds = await listObjects(kube, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    labelSelector: computeInventorySelector(provider),
  });
  return new Set(crds.items.map((crd) => String((crd['spec'] as { group?: string } | undefined)?.group ?? '')));
}

async function listOrEmpty(kube: KubeClient, kind: string): Promise<KubeObject[]> {
  try {
    return (await listHubObjects(kube, { apiVersion: clusterApiVersion, kind })).items;
  } catch {
    // NOTE: no Cluster API CRDs (yet): nothing can use the provider.
    return [];
  }
}

/** `namespace/name` of the Clusters that use `provider`, sorted. */
export async function listBlockingClusters(kube: KubeClient, provider: Provider): Promise<string[]> {
  const clusters = await listOrEmpty(kube, 'Cluster');
  if (clusters.length === 0) return [];
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  if (provider.kind === 'CoreProvider') return clusters.map(key).sort();
  const groups = await listProviderGroups(kube, provider);
  if (groups.size === 0) return [];
  const uses = (refs: unknown[]) => refs.some((r) => groups.has(groupOf(r) ?? '\0'));
  const blocking = new Set<string>();
  for (const c of clusters) {
    const spec = (c['spec'] ?? {}) as Record<string, unknown>;
    if (uses([spec['infrastructureRef'], spec['controlPlaneRef']])) blocking.add(key(c));
  }
  const machines = await listOrEmpty(kube, 'Machine');
  for (const m of machines) {
    const spec = (m['spec'] ?? {}) as {
      clusterName?: string;
      infrastructureRef?: unknown;
      bootstrap?: { configRef?: unknown };
    };
    if (spec.clusterName && uses([spec.infrastructureRef, spec.bootstrap?.configRef])) {
      blocking.add(`${m.metadata.namespace ?? ''}/${spec.clusterName}`);
    }
  }
  return [...blocking].sort();
}
