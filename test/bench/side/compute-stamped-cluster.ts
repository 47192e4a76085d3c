// A converged Cluster stamped from a seed: the seed Cluster and the objects its topology controller created, renamed
// for another Cluster of the same name length, so a fleet of N converged Clusters is N × a few plain creates instead
// of N topology passes. Pure: the seed's objects and the new owners' uids in, objects to create out.
import type { KubeObject } from '#shared/kube/index.ts';

/** The seed's objects as read from the API server: its Cluster and the topology-owned objects of that Cluster. */
export type SeedCluster = { readonly cluster: KubeObject; readonly owned: readonly KubeObject[] };

const serverSet = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'selfLink'] as const;

/** `obj` as JSON with every occurrence of each `from` replaced by its `to` (names, labels, references, uids). */
function computeRenamed(obj: KubeObject, renames: ReadonlyMap<string, string>): KubeObject {
  let text = JSON.stringify(obj);
  for (const [from, to] of renames) text = text.replaceAll(from, to);
  const copy = JSON.parse(text) as KubeObject;
  const metadata = { ...copy.metadata } as Record<string, unknown>;
  for (const field of serverSet) delete metadata[field];
  const { status: _status, ...rest } = copy as KubeObject & { status?: unknown };
  return { ...rest, metadata } as KubeObject;
}

/** A fields set (managedFields' fieldsV1) without the keys that name one of `uids`. */
function computeFieldsWithout(fields: unknown, uids: readonly string[]): unknown {
  if (typeof fields !== 'object' || fields === null) return fields;
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([key]) => !uids.some((u) => key.includes(u)))
      .map(([key, value]) => [key, computeFieldsWithout(value, uids)]),
  );
}

/** `obj` without owner references to objects outside `known`, and without its managed fields' entries for them. */
function computeWithoutOwners(obj: KubeObject, known: ReadonlySet<string>): KubeObject {
  const refs = obj.metadata.ownerReferences ?? [];
  const gone = refs.filter((r) => !known.has(r.uid)).map((r) => r.uid);
  if (gone.length === 0) return obj;
  const entries = (obj.metadata as { managedFields?: { fieldsV1?: unknown }[] }).managedFields;
  const managedFields = entries?.map((m) => ({
    ...m,
    fieldsV1: computeFieldsWithout(m.fieldsV1, gone),
  }));
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      ownerReferences: refs.filter((r) => known.has(r.uid)),
      ...(managedFields ? { managedFields } : {}),
    },
  } as KubeObject;
}

/**
 * The seed's Cluster renamed to `name`, paused (`spec.paused`), so no controller acts on it until every object it
 * references exists; its managed fields are kept, so the stamped object looks as the topology controller left it.
 *
 * @example
 * computeStampedCluster(seed, 'c-0000', 'c-0001').spec.paused; // true
 */
export function computeStampedCluster(seed: SeedCluster, seedName: string, name: string): KubeObject {
  if (seedName.length !== name.length)
    throw new Error(`stamped name ${name} must be as long as the seed's ${seedName}`);
  const cluster = computeRenamed(seed.cluster, new Map([[seedName, name]]));
  return { ...cluster, spec: { ...(cluster['spec'] as Record<string, unknown>), paused: true } };
}

/**
 * The seed's owned objects renamed to `name`, in an order where every owner comes before the objects it owns;
 * `uidOf` answers the new uid of a seed owner (the Cluster's, or an object created earlier in the order).
 *
 * @example
 * for (const next of computeStampedObjects(seed, 'c-0000', 'c-0001')) created.set(next.seedUid, await create(next.build(uidOf)));
 */
export function computeStampedObjects(
  seed: SeedCluster,
  seedName: string,
  name: string,
): { readonly seedUid: string; readonly build: (uidOf: (seedUid: string) => string) => KubeObject }[] {
  const known = new Set([seed.cluster.metadata.uid ?? '', ...seed.owned.map((o) => o.metadata.uid ?? '')]);
  // NOTE: an owner outside the Cluster's objects is the cluster shim Secret, which owns the InfrastructureCluster and
  // ControlPlane only until the Cluster controller adopts them: the stamped objects leave it out.
  const pending = seed.owned.map((o) => computeWithoutOwners(o, known));
  const placed = new Set([seed.cluster.metadata.uid ?? '']);
  const ordered: KubeObject[] = [];
  while (pending.length > 0) {
    const next = pending.findIndex((o) => (o.metadata.ownerReferences ?? []).every((r) => placed.has(r.uid)));
    if (next < 0) throw new Error(`seed ${seedName}: an owned object's owner is neither the Cluster nor owned`);
    const [obj] = pending.splice(next, 1) as [KubeObject];
    placed.add(obj.metadata.uid ?? '');
    ordered.push(obj);
  }
  return ordered.map((obj) => ({
    seedUid: obj.metadata.uid ?? '',
    build: (uidOf) => {
      const renames = new Map([[seedName, name]]);
      for (const ref of obj.metadata.ownerReferences ?? []) renames.set(ref.uid, uidOf(ref.uid));
      return computeRenamed(obj, renames);
    },
  }));
}
