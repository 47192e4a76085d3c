// The REST collection path of a watched kind, found through API discovery (the forwarder's only way to map kinds
// to resources, so its image does not load the zod schema of every kind the way `resolveResource` does).
import { CapiError } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/client.ts';
import { KubeNotFoundError } from '#shared/kube/errors.ts';
import type { KindRef } from '#shared/runtime/types.ts';

type DiscoveryList = { resources?: { name: string; kind: string; namespaced: boolean }[] };

/** A kind the API server does not serve (its CRD is not installed). */
export class UnservedKindError extends CapiError {}

function discover(kube: KubeClient, apiVersion: string, refresh: boolean): Promise<DiscoveryList> {
  // NOTE: the same cache entries (and shape) as `resolveResource` in shared/kube/resources.ts, so a client shared
  // with the controllers asks the server once per group version.
  const cached = kube.discovery.get(apiVersion);
  if (cached && !refresh) return cached as Promise<DiscoveryList>;
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const pending = kube.request<DiscoveryList>({ method: 'GET', path, target: { verb: 'discover', kind: apiVersion } });
  kube.discovery.set(apiVersion, pending);
  pending.catch(() => kube.discovery.delete(apiVersion));
  return pending;
}

/**
 * The collection path of `target`, in `namespace` or across all namespaces: in `target.apiVersion`, else in the
 * first of `target.fallbackApiVersions` the server serves; throws UnservedKindError when it serves none (after
 * refreshing discovery once).
 *
 * @example
 * await getCollectionPath(kube, { apiVersion: 'v1', kind: 'ConfigMap' }); // '/api/v1/configmaps'
 */
export async function getCollectionPath(
  kube: KubeClient,
  target: KindRef & { readonly fallbackApiVersions?: readonly string[] },
  namespace?: string,
): Promise<string> {
  const apiVersions = [target.apiVersion, ...(target.fallbackApiVersions ?? [])];
  for (const refresh of [false, true]) {
    for (const apiVersion of apiVersions) {
      // NOTE: 404 is a group version the server does not serve; any other failure (unreachable, 5xx) is thrown.
      const list = await discover(kube, apiVersion, refresh).catch((err: unknown) => {
        if (err instanceof KubeNotFoundError) return undefined;
        throw err;
      });
      const found = list?.resources?.find((r) => r.kind === target.kind && !r.name.includes('/'));
      if (!found) continue;
      const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      const scope = found.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
      return `${base}${scope}/${found.name}`;
    }
  }
  throw new UnservedKindError(`the server does not serve ${target.kind} in ${apiVersions.join(' or ')}`, {
    kind: target.kind,
    reason: 'UnknownKind',
  });
}
