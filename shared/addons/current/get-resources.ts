// Reads the ConfigMaps and Secrets a ClusterResourceSet references, once per pass for all its Clusters.
import type { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { FetchedResource } from '#shared/addons/desired/resources-to-apply.ts';
import { resourceRefKey } from '#shared/addons/desired/resources-to-apply.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { getObject, KubeNotFoundError, type KubeClient, type KubeObject } from '#shared/kube/index.ts';

export type CurrentResources = {
  /** What was read per `Kind/name` (see resourceRefKey); a missing key was not referenced. */
  readonly fetched: ReadonlyMap<string, FetchedResource>;
  /** The objects found, as read (for their owner references and resourceVersion). */
  readonly objects: ReadonlyMap<string, KubeObject>;
};

function stringMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * Reads every resource of `crs` from its namespace: found (with kind, type and data), NotFound, or a read error.
 *
 * @example
 * const { fetched } = await getResources(kube, crs);
 * fetched.get('ConfigMap/calico')?.status; // 'found'
 */
export async function getResources(kube: KubeClient, crs: ClusterResourceSet): Promise<CurrentResources> {
  const namespace = crs.metadata.namespace ?? '';
  const fetched = new Map<string, FetchedResource>();
  const objects = new Map<string, KubeObject>();
  for (const ref of crs.spec.resources ?? []) {
    const key = resourceRefKey(ref);
    if (fetched.has(key)) continue;
    try {
      const obj = await getObject(kube, { apiVersion: 'v1', kind: ref.kind, namespace, name: ref.name });
      objects.set(key, obj);
      const type = typeof obj['type'] === 'string' ? obj['type'] : undefined;
      fetched.set(key, {
        status: 'found',
        content: { kind: ref.kind, namespace, name: ref.name, type, data: stringMap(obj['data']) },
      });
    } catch (err) {
      fetched.set(
        key,
        err instanceof KubeNotFoundError ? { status: 'notFound' } : { status: 'error', message: errorMessage(err) },
      );
    }
  }
  return { fetched, objects };
}
