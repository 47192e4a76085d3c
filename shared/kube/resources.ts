// Maps apiVersion + kind to the REST resource (plural, scope): the kinds we know statically, everything else
// (provider templates and objects) through discovery, cached per client.
import type { KubeClient } from '#shared/kube/client.ts';
import { CapiError } from '#shared/errors/index.ts';

export type ResourceInfo = {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
};

const builtin: Readonly<Record<string, { plural: string; namespaced: boolean }>> = {
  'v1/Namespace': { plural: 'namespaces', namespaced: false },
  'v1/ConfigMap': { plural: 'configmaps', namespaced: true },
  'v1/Secret': { plural: 'secrets', namespaced: true },
  'v1/Service': { plural: 'services', namespaced: true },
  'v1/ServiceAccount': { plural: 'serviceaccounts', namespaced: true },
  'v1/Pod': { plural: 'pods', namespaced: true },
  'v1/Event': { plural: 'events', namespaced: true },
  'apps/v1/Deployment': { plural: 'deployments', namespaced: true },
  'apps/v1/DaemonSet': { plural: 'daemonsets', namespaced: true },
  'apiextensions.k8s.io/v1/CustomResourceDefinition': { plural: 'customresourcedefinitions', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRole': { plural: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { plural: 'clusterrolebindings', namespaced: false },
  'rbac.authorization.k8s.io/v1/Role': { plural: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { plural: 'rolebindings', namespaced: true },
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': {
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  },
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': {
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
  },
  'coordination.k8s.io/v1/Lease': { plural: 'leases', namespaced: true },
};

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

type DiscoveryList = { resources?: { name: string; kind: string; namespaced: boolean }[] };

export class UnknownKindError extends CapiError {}

function discover(kube: KubeClient, apiVersion: string, refresh: boolean): Promise<DiscoveryList> {
  const cached = kube.discovery.get(apiVersion);
  if (cached && !refresh) return cached as Promise<DiscoveryList>;
  const { group } = splitApiVersion(apiVersion);
  const path = group ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const pending = kube.request<DiscoveryList>({ method: 'GET', path, target: { verb: 'discover', kind: apiVersion } });
  kube.discovery.set(apiVersion, pending);
  pending.catch(() => kube.discovery.delete(apiVersion));
  return pending;
}

/**
 * Resolves the REST resource of a kind.
 *
 * @example
 * await resolveResource(kube, 'cluster.x-k8s.io/v1beta1', 'Cluster'); // { plural: 'clusters', namespaced: true, ... }
 */
export async function resolveResource(kube: KubeClient, apiVersion: string, kind: string): Promise<ResourceInfo> {
  const { group, version } = splitApiVersion(apiVersion);
  // NOTE: the kinds' schemas are loaded on first use: building them takes about 5 MiB of a process's memory, which the
  // forwarder (it reads and writes only built-in kinds through here) never needs.
  const known = builtin[`${apiVersion}/${kind}`] ?? (await import('#shared/api/kinds.ts')).findKind(apiVersion, kind);
  if (known) return { group, version, plural: known.plural, namespaced: known.namespaced };
  for (const refresh of [false, true]) {
    const list = await discover(kube, apiVersion, refresh).catch(() => undefined);
    const found = list?.resources?.find((r) => r.kind === kind && !r.name.includes('/'));
    if (found) return { group, version, plural: found.name, namespaced: found.namespaced };
  }
  throw new UnknownKindError(`the server does not serve ${kind} in ${apiVersion}`, { kind, reason: 'UnknownKind' });
}

/** The REST path of a resource collection or object, optionally a subresource. */
export function resourcePath(
  info: ResourceInfo,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  let path = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  if (info.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${info.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}
