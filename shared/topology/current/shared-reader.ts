// Reads shared by the passes of one invocation: a ClusterClass's templates, which no topology pass writes, are read
// once for every Cluster of the class that the invocation reconciles (a fleet-wide class change, a tick's sweep).
import type { ObjectIdentity, TopologyReader } from '#shared/topology/current/reader.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** Reads by object key, kept for one invocation (never longer: nothing tells a kept object it changed). */
export type SharedReads = Map<string, Promise<Unstructured | undefined>>;

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const keyOf = (ref: ObjectIdentity) => `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

/**
 * A reader whose GETs are answered from `shared` when another pass of the invocation read the object already; each
 * pass gets a copy of its own. Lists go to `reader`.
 *
 * @example
 * const blueprint = await getBlueprint(createSharedReader(reader, deps.sharedReads), contracts, clusterClass);
 */
export function createSharedReader(reader: TopologyReader, shared: SharedReads): TopologyReader {
  return {
    async get(ref) {
      const key = keyOf(ref);
      let pending = shared.get(key);
      if (!pending) {
        pending = reader.get(ref);
        shared.set(key, pending);
        // NOTE: a failed read is not kept: the next pass reads again.
        pending.catch(() => shared.delete(key));
      }
      const found = await pending;
      return found === undefined ? undefined : structuredClone(found);
    },
    list: (q) => reader.list(q),
  };
}
