// The TopologyReader of a pass against the management cluster. Reads cost O(one Cluster), never O(fleet): objects
// named by a reference are read with one GET, the topology's own objects with one label-selected LIST per kind (the
// Cluster's name is in the selector), and every later read of the same object or label set is answered from memory.
// The raw objects are kept so writes compare against exactly what the server holds.
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
// NOTE: Cluster API kinds are read in the version the server serves and converted to the v1beta2 hub at the edge.
import {
  findHubObject as findObject,
  listHubObjects as listObjects,
  UnknownKindError,
  type KubeClient,
} from '#shared/kube/index.ts';
import {
  formatMatchLabels,
  type ObjectIdentity,
  type ObjectQuery,
  type TopologyReader,
} from '#shared/topology/current/reader.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** A TopologyReader that also answers "what did the server return for this object". */
export type KubeTopologyReader = TopologyReader & {
  /** The object exactly as read in this pass (undefined when it was not read). */
  raw(ref: ObjectIdentity): Unstructured | undefined;
};

export type KubeReaderOptions = {
  /** Objects already read in this pass (e.g. the Cluster and ClusterClass the runtime read to decide the pass is due). */
  readonly prefetched?: readonly Unstructured[];
};

type Labels = Readonly<Record<string, string>>;
type SettledList = { readonly kindKey: string; readonly labels: Labels; readonly items: readonly Unstructured[] };

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const kindKeyOf = (apiVersion: string, kind: string, namespace: string) =>
  `${groupOf(apiVersion)}/${kind}/${namespace}`;
const objectKeyOf = (ref: { apiVersion: string; kind: string; namespace?: string | undefined; name?: string }) =>
  `${kindKeyOf(ref.apiVersion, ref.kind, ref.namespace ?? '')}/${ref.name ?? ''}`;
const hasLabels = (obj: Unstructured, labels: Labels) =>
  Object.entries(labels).every(([k, v]) => obj.metadata.labels?.[k] === v);
/** Every label of `narrow` is in `wide`, so a list selected by `narrow` holds everything `wide` selects. */
const isSubset = (narrow: Labels, wide: Labels) => Object.entries(narrow).every(([k, v]) => wide[k] === v);

/**
 * A reader for one pass. A GET or LIST is sent once; a LIST by labels also answers later lists by more labels and
 * gets of the objects it holds. NOTE: the cache lives as long as the reader: create one per pass, never share it.
 * NOTE: a kind the server does not serve (e.g. Machines in a management cluster without that CRD) reads as empty.
 *
 * @example
 * const reader = createKubeReader(kube, { prefetched: [rawCluster, rawClusterClass] });
 * const current = await getCurrentState(reader, cluster);
 */
export function createKubeReader(kube: KubeClient, options: KubeReaderOptions = {}): KubeTopologyReader {
  const objects = new Map<string, Promise<Unstructured | undefined>>();
  const settledObjects = new Map<string, Unstructured>();
  const lists = new Map<string, Promise<Unstructured[]>>();
  const settledLists: SettledList[] = [];
  for (const obj of options.prefetched ?? []) {
    const key = objectKeyOf({ ...obj, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });
    objects.set(key, Promise.resolve(obj));
    settledObjects.set(key, obj);
  }

  const fromLists = (kindKey: string, match: (o: Unstructured) => boolean, labels?: Labels) => {
    for (const list of settledLists) {
      if (list.kindKey !== kindKey || (labels && !isSubset(list.labels, labels))) continue;
      const found = list.items.filter(match);
      if (labels || found.length > 0) return found;
    }
    return undefined;
  };

  function listKind(q: ObjectQuery): Promise<Unstructured[]> {
    const kindKey = kindKeyOf(q.apiVersion, q.kind, q.namespace);
    const cached = fromLists(kindKey, (o) => hasLabels(o, q.matchLabels), q.matchLabels);
    if (cached) return Promise.resolve(cached);
    const selector = formatMatchLabels(q.matchLabels);
    const key = `${kindKey}?${selector}`;
    let pending = lists.get(key);
    if (!pending) {
      pending = listObjects(kube, { ...q, labelSelector: selector }).then(
        (list) => {
          const items = list.items as Unstructured[];
          settledLists.push({ kindKey, labels: q.matchLabels, items });
          return items;
        },
        (err: unknown) => {
          if (err instanceof UnknownKindError) {
            settledLists.push({ kindKey, labels: q.matchLabels, items: [] });
            return [];
          }
          lists.delete(key);
          throw err;
        },
      );
      lists.set(key, pending);
    }
    return pending;
  }

  function getByName(ref: ObjectIdentity): Promise<Unstructured | undefined> {
    const key = objectKeyOf(ref);
    let pending = objects.get(key);
    if (!pending) {
      pending = findObject(kube, { ...ref, namespace: ref.namespace ?? '' }).then(
        (obj) => {
          if (obj) settledObjects.set(key, obj as Unstructured);
          return obj as Unstructured | undefined;
        },
        (err: unknown) => {
          if (err instanceof UnknownKindError) return undefined;
          objects.delete(key);
          throw err;
        },
      );
      objects.set(key, pending);
    }
    return pending;
  }

  const named = (ref: ObjectIdentity) => (o: Unstructured) => o.metadata.name === ref.name;

  return {
    async get(ref) {
      const key = objectKeyOf(ref);
      if (objects.has(key)) return objects.get(key);
      const kindKey = kindKeyOf(ref.apiVersion, ref.kind, ref.namespace ?? '');
      const listed = fromLists(kindKey, named(ref))?.[0];
      if (listed) return listed;
      if (ref.matchLabels) {
        const found = (await listKind({ ...ref, namespace: ref.namespace ?? '', matchLabels: ref.matchLabels })).find(
          named(ref),
        );
        if (found) return found;
      }
      return getByName(ref);
    },
    list(q: ObjectQuery) {
      return listKind(q);
    },
    raw(ref) {
      return (
        settledObjects.get(objectKeyOf(ref)) ??
        fromLists(kindKeyOf(ref.apiVersion, ref.kind, ref.namespace ?? ''), named(ref))?.[0]
      );
    },
  };
}

/**
 * The Cluster of a pass, parsed, with the raw object it came from (from `prefetched` when the runtime read it
 * already); undefined when it does not exist.
 *
 * @example
 * const read = await getCluster(kube, { namespace: 'default', name: 'c1' });
 */
export async function getCluster(
  kube: KubeClient,
  key: ObjectKey,
  prefetched: readonly Unstructured[] = [],
): Promise<{ cluster: Cluster; raw: Unstructured } | undefined> {
  const known = prefetched.find(
    (o) =>
      o.kind === 'Cluster' &&
      groupOf(o.apiVersion) === 'cluster.x-k8s.io' &&
      o.metadata.name === key.name &&
      (o.metadata.namespace ?? '') === (key.namespace ?? ''),
  );
  const raw = known ?? (await findObject(kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', ...key }));
  if (!raw) return undefined;
  return { cluster: parseObject(Cluster, 'Cluster', raw), raw: raw as Unstructured };
}
