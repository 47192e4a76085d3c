// Reads and writes of Cluster API objects in the v1beta2 hub shape whatever the server serves: in v1beta2 when it
// does, else in v1beta1 converted at the edge (reads up to the hub, writes down from it).
import { convertFromHub, convertToHub, isConvertible, type Unstructured } from '#shared/api/conversion/index.ts';
import type { KubeClient } from '#shared/kube/client.ts';
import {
  applyObject,
  applyStatus,
  findObject,
  listObjects,
  type ApplyOptions,
  type KubeObject,
  type ListResult,
} from '#shared/kube/objects.ts';
import { getContractApiVersionGetter, getEdgeVersion } from '#shared/kube/versions.ts';

export type HubKind = { readonly group: string; readonly kind: string };

function toHub(object: KubeObject): KubeObject {
  return convertToHub(object as Unstructured) as KubeObject;
}

/**
 * Reads one object as v1beta2, or undefined when it does not exist.
 *
 * @example
 * await findHubObject(kube, { group: 'cluster.x-k8s.io', kind: 'Cluster' }, { namespace: 'ns', name: 'c1' });
 */
export async function findHubObject(
  kube: KubeClient,
  { group, kind }: HubKind,
  key: { readonly namespace?: string | undefined; readonly name: string },
): Promise<KubeObject | undefined> {
  const version = await getEdgeVersion(kube, group);
  const found = await findObject(kube, { apiVersion: `${group}/${version}`, kind, ...key });
  return found === undefined ? undefined : toHub(found);
}

/** Lists objects as v1beta2. */
export async function listHubObjects(
  kube: KubeClient,
  { group, kind }: HubKind,
  query: { namespace?: string | undefined; labelSelector?: string | undefined } = {},
): Promise<ListResult> {
  const version = await getEdgeVersion(kube, group);
  const list = await listObjects(kube, { apiVersion: `${group}/${version}`, kind, ...query });
  return { ...list, items: list.items.map(toHub) };
}

/** A v1beta2 object in the version the server serves (v1beta1 through the edge conversion). */
export async function computeServedObject(kube: KubeClient, hub: KubeObject): Promise<KubeObject> {
  const group = hub.apiVersion.split('/')[0] ?? '';
  if (!isConvertible(group, hub.kind)) return hub;
  const version = await getEdgeVersion(kube, group);
  if (hub.apiVersion === `${group}/${version}`) return hub;
  const apiVersionFor = await getContractApiVersionGetter(kube, version);
  return convertFromHub(hub as Unstructured, apiVersionFor, { conversionData: false }) as KubeObject;
}

/** Server-side apply of a v1beta2 object, in the version the server serves; returns the result as v1beta2. */
export async function applyHubObject(kube: KubeClient, hub: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  return toHub(await applyObject(kube, await computeServedObject(kube, hub), opts));
}

/** Server-side apply of a v1beta2 object's status, in the version the server serves; returns it as v1beta2. */
export async function applyHubStatus(kube: KubeClient, hub: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  return toHub(await applyStatus(kube, await computeServedObject(kube, hub), opts));
}
