// The TopologyReader of a pass against the management cluster: one list per kind and namespace, every get and
// label query served from it, and the raw objects kept so writes compare against exactly what the server holds.
import { Cluster } from '#shared/api/cluster.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, listObjects, UnknownKindError, type KubeClient } from '#shared/kube/index.ts';
import type { ObjectIdentity, ObjectQuery, TopologyReader } from '#shared/topology/current/reader.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** A TopologyReader that also answers "what did the server return for this object". */
export type KubeTopologyReader = TopologyReader & {
  /** The object exactly as listed in this pass (undefined when it was not read). */
  raw(ref: ObjectIdentity): Unstructured | undefined;
};

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');

/**
 * A reader for one pass. The first get or list of a kind in a namespace lists that kind once; later reads of the
 * same kind are answered from memory, so a pass over an unchanged Cluster costs one list per kind.
 * NOTE: the cache lives as long as the reader: create one per pass, never share it between passes.
 * NOTE: a kind the server does not serve (e.g. Machines in a management cluster without that CRD) reads as empty.
 *
 * @example
 * const reader = createKubeReader(kube);
 * const current = await getCurrentState(reader, cluster);
 */
export function createKubeReader(kube: KubeClient): KubeTopologyReader {
  const lists = new Map<string, Promise<Unstructured[]>>();
  const keyOf = (apiVersion: string, kind: string, namespace: string) => `${groupOf(apiVersion)}/${kind}/${namespace}`;

  function listKind(apiVersion: string, kind: string, namespace: string): Promise<Unstructured[]> {
    const key = keyOf(apiVersion, kind, namespace);
    let pending = lists.get(key);
    if (!pending) {
      pending = listObjects(kube, { apiVersion, kind, namespace }).then(
        (list) => list.items as Unstructured[],
        (err: unknown) => {
          if (err instanceof UnknownKindError) return [];
          lists.delete(key);
          throw err;
        },
      );
      lists.set(key, pending);
    }
    return pending;
  }

  const named = (ref: ObjectIdentity) => (o: Unstructured) => o.metadata.name === ref.name;
  const settled = new Map<string, Unstructured[]>();

  return {
    async get(ref) {
      const namespace = ref.namespace ?? '';
      const items = await listKind(ref.apiVersion, ref.kind, namespace);
      settled.set(keyOf(ref.apiVersion, ref.kind, namespace), items);
      return items.find(named(ref));
    },
    async list(q: ObjectQuery) {
      const items = await listKind(q.apiVersion, q.kind, q.namespace);
      settled.set(keyOf(q.apiVersion, q.kind, q.namespace), items);
      return items.filter((o) => Object.entries(q.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v));
    },
    raw(ref) {
      return settled.get(keyOf(ref.apiVersion, ref.kind, ref.namespace ?? ''))?.find(named(ref));
    },
  };
}

/**
 * The Cluster of a pass, parsed, with the raw object it came from; undefined when it does not exist.
 *
 * @example
 * const read = await getCluster(kube, { namespace: 'default', name: 'c1' });
 */
export async function getCluster(
  kube: KubeClient,
  key: ObjectKey,
): Promise<{ cluster: Cluster; raw: Unstructured } | undefined> {
  const raw = await findObject(kube, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', ...key });
  if (!raw) return undefined;
  return { cluster: parseObject(Cluster, 'Cluster', raw), raw: raw as Unstructured };
}
