// Reads and writes of Cluster API objects in the v1beta2 hub shape whatever the server serves: in v1beta2 when it
// does, else in v1beta1 converted at the edge (reads up to the hub, writes down from it). Other kinds pass through.
import {
  convertFromHub,
  convertToHub,
  HubVersion,
  isConvertible,
  type Unstructured,
} from '#shared/api/conversion/index.ts';
import type { KubeClient } from '#shared/kube/client.ts';
import {
  applyObject,
  applyStatus,
  findObject,
  listObjects,
  type ApplyOptions,
  type KubeObject,
  type ListResult,
  type ObjectRef,
} from '#shared/kube/objects.ts';
import { listPages } from '#shared/kube/list-pages.ts';
import { resolveResource, resourcePath } from '#shared/kube/resources.ts';
import { getContractApiVersionGetter, getEdgeVersion } from '#shared/kube/versions.ts';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const [group = '', version = ''] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group, version };
}

/**
 * The apiVersion to use on this server for a hub apiVersion and kind (unchanged for kinds not converted), e.g. for
 * owner references and metadata-only patches.
 *
 * @example
 * await servedApiVersion(kube, 'addons.cluster.x-k8s.io/v1beta2', 'ClusterResourceSet'); // '…/v1beta1' up to v1.10
 */
export async function servedApiVersion(kube: KubeClient, apiVersion: string, kind: string): Promise<string> {
  const { group, version } = splitApiVersion(apiVersion);
  if (version !== HubVersion || !isConvertible(group, kind)) return apiVersion;
  return `${group}/${await getEdgeVersion(kube, group)}`;
}

function toHub(object: KubeObject): KubeObject {
  const { group } = splitApiVersion(object.apiVersion);
  return isConvertible(group, object.kind) ? (convertToHub(object as Unstructured) as KubeObject) : object;
}

/**
 * Reads one object given its v1beta2 apiVersion, as v1beta2, or undefined when it does not exist.
 *
 * @example
 * await findHubObject(kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: 'c1' });
 */
export async function findHubObject(kube: KubeClient, ref: ObjectRef): Promise<KubeObject | undefined> {
  const found = await findObject(kube, { ...ref, apiVersion: await servedApiVersion(kube, ref.apiVersion, ref.kind) });
  return found === undefined ? undefined : toHub(found);
}

/** Lists objects given their v1beta2 apiVersion, as v1beta2. */
export async function listHubObjects(kube: KubeClient, q: Parameters<typeof listObjects>[1]): Promise<ListResult> {
  const list = await listObjects(kube, { ...q, apiVersion: await servedApiVersion(kube, q.apiVersion, q.kind) });
  return { ...list, items: list.items.map(toHub) };
}

/**
 * Lists objects given their v1beta2 apiVersion page by page (`pageSize` a request), each page handed to `onPage` as
 * v1beta2 and dropped: memory stays one page deep however many objects the kind has. `onRestart` is called when an
 * expired continue token starts the list again from its first page (forget what the earlier pages gave).
 * `shouldStop` (asked after each page but the last) ends it early with the `continue` to go on `from`.
 *
 * @example
 * const names: string[] = [];
 * await listHubObjectPages(kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }, {
 *   onPage: (items) => names.push(...items.map((c) => c.metadata.name ?? '')),
 *   onRestart: () => (names.length = 0),
 * });
 */
export async function listHubObjectPages(
  kube: KubeClient,
  q: { apiVersion: string; kind: string; namespace?: string | undefined },
  handlers: {
    onPage: (items: readonly KubeObject[]) => void | Promise<void>;
    onRestart: () => void;
    shouldStop?: () => boolean;
  },
  pageSize = 500,
  from?: string,
): Promise<{ pages: number; continue?: string }> {
  const apiVersion = await servedApiVersion(kube, q.apiVersion, q.kind);
  const info = await resolveResource(kube, apiVersion, q.kind);
  const result = await listPages(
    kube,
    {
      path: resourcePath(info, q.namespace, undefined),
      kind: q.kind,
      ...(q.namespace === undefined ? {} : { namespace: q.namespace }),
      limit: pageSize,
      ...(from === undefined ? {} : { continue: from }),
    },
    {
      // NOTE: list items come without apiVersion/kind; put them back so every object is self-describing.
      onPage: (items) => handlers.onPage(items.map((item) => toHub({ ...item, apiVersion, kind: q.kind }))),
      onRestart: () => handlers.onRestart(),
      ...(handlers.shouldStop ? { shouldStop: handlers.shouldStop } : {}),
    },
  );
  return { pages: result.pages, ...(result.continue === undefined ? {} : { continue: result.continue }) };
}

/** A v1beta2 object in the version the server serves (v1beta1 through the edge conversion). */
export async function computeServedObject(kube: KubeClient, hub: KubeObject): Promise<KubeObject> {
  const apiVersion = await servedApiVersion(kube, hub.apiVersion, hub.kind);
  if (apiVersion === hub.apiVersion) return hub;
  const apiVersionFor = await getContractApiVersionGetter(kube, splitApiVersion(apiVersion).version);
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
