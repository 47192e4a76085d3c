// What of a topology snapshot is compared between the two sides, with what is legitimately random normalised away:
// uids, resourceVersions, generations, timestamps, managedFields but the field set `capi-topology` applies, status (written by other controllers at their own
// pace; only the Cluster's TopologyReconciled condition is kept), the random suffix of generated names (everywhere a
// generated name appears: names, references, owner references, messages) and the in-memory backend's port.
import type { KubeObject } from '#shared/kube/index.ts';
import type { RawSnapshot } from './snapshot.ts';

export type NormalizedSnapshot = Readonly<Record<string, unknown>>;

/** Upstream's generated names end in `-` and five characters of [bcdfghjklmnpqrstvwxz2456789] (utilrand.String). */
export const randomSuffix = /-[a-z0-9]{5}$/;
const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

type Condition = { type: string; status?: string; reason?: string; message?: string };

/** The generated names of the snapshot, each mapped to itself with `-<random>` for the suffix. */
function computeNameMap(raw: RawSnapshot): Map<string, string> {
  const names = new Map<string, string>();
  const clusterName = raw.cluster?.metadata.name;
  for (const o of [...Object.values(raw.objects), ...raw.leftovers]) {
    const name = o.metadata.name ?? '';
    if (name !== clusterName && randomSuffix.test(name)) names.set(name, name.replace(randomSuffix, '-<random>'));
  }
  return names;
}

function replaceNames(text: string, names: Map<string, string>): string {
  const exact = names.get(text);
  if (exact !== undefined) return exact;
  if (timestamp.test(text)) return '<time>';
  let out = text;
  // NOTE: longest first, so `c-md-0-abcde` is not partly replaced by a shorter generated name it contains.
  for (const [name, to] of [...names.entries()].sort(([a], [b]) => b.length - a.length))
    if (out.includes(name)) out = out.split(name).join(to);
  return out;
}

function mapStrings(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === 'string') return replaceNames(value, names);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, names));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = mapStrings((value as Record<string, unknown>)[key], names);
    return out;
  }
  return value;
}

function normalizeEndpoint(spec: unknown): unknown {
  if (!spec || typeof spec !== 'object') return spec;
  const s = spec as Record<string, unknown>;
  const endpoint = s['controlPlaneEndpoint'] as Record<string, unknown> | undefined;
  if (!endpoint || endpoint['port'] === undefined) return spec;
  return { ...s, controlPlaneEndpoint: { ...endpoint, port: '<port>' } };
}

type ManagedFieldsEntry = { manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown };

/** The topology's field manager (upstream's and capi-serverless's): the field set it owns is compared. */
const topologyManager = 'capi-topology';

/**
 * A fieldsV1 set with generated names tokenised and uids dropped from its keys (`k:{"uid":...}` of owner references
 * and `v:"<name>"` of set members name objects).
 */
function normalizeFieldSet(fields: unknown, names: Map<string, string>): unknown {
  if (!fields || typeof fields !== 'object') return fields;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields).sort()) {
    let k: string;
    if (key.startsWith('k:')) {
      try {
        const item = JSON.parse(key.slice(2)) as Record<string, unknown>;
        if ('uid' in item) item['uid'] = '<uid>';
        k = `k:${JSON.stringify(mapStrings(item, names))}`;
      } catch {
        k = replaceNames(key, names);
      }
    } else k = replaceNames(key, names);
    out[k] = normalizeFieldSet((fields as Record<string, unknown>)[key], names);
  }
  return out;
}

/** The fields `capi-topology` owns by server-side apply on the object (not on a subresource), if any. */
function computeTopologyFields(obj: KubeObject, names: Map<string, string>): unknown {
  const entries = ((obj.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? []).filter(
    (e) => e.manager === topologyManager && e.operation === 'Apply' && !e.subresource,
  );
  return entries.length === 0 ? undefined : normalizeFieldSet(entries[0]!.fieldsV1, names);
}

function normalizeObject(obj: KubeObject, names: Map<string, string>): Record<string, unknown> {
  const topologyFields = computeTopologyFields(obj, names);
  const m = obj.metadata as KubeObject['metadata'] & {
    ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean }[];
    finalizers?: string[];
  };
  const ownerReferences = (m.ownerReferences ?? [])
    .map((r) => ({
      apiVersion: r.apiVersion,
      kind: r.kind,
      name: r.name,
      ...(r.controller === undefined ? {} : { controller: r.controller }),
    }))
    .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
  const out: Record<string, unknown> = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name,
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      ownerReferences,
      ...(m.finalizers?.length ? { finalizers: [...m.finalizers].sort() } : {}),
      ...(m.deletionTimestamp ? { deleting: true } : {}),
    },
    spec: normalizeEndpoint(obj['spec']),
  };
  return {
    ...(mapStrings(out, names) as Record<string, unknown>),
    ...(topologyFields === undefined ? {} : { topologyManagedFields: topologyFields }),
  };
}

/**
 * What the ClusterClass's status says of its variables (those DiscoverVariables returned, `from` the external patch):
 * status.variables and the VariablesReady condition without its time or observedGeneration.
 */
function computeClassVariables(clusterClass: KubeObject, names: Map<string, string>): Record<string, unknown> {
  const status = (clusterClass['status'] ?? {}) as { variables?: unknown; conditions?: Condition[] };
  const ready = (status.conditions ?? []).find((c) => c.type === 'VariablesReady');
  return mapStrings(
    {
      name: clusterClass.metadata.name,
      variables: status.variables ?? [],
      variablesReady: ready ? { status: ready.status, reason: ready.reason, message: ready.message ?? '' } : {},
    },
    names,
  ) as Record<string, unknown>;
}

/**
 * The comparable form of a snapshot: role → normalised object (generated names as `tokens` has them, else
 * `-<random>`); `Cluster` keeps spec, labels, annotations and the
 * TopologyReconciled condition; `ClusterClass` (when read) its status.variables and VariablesReady; `Leftovers` lists
 * the unreferenced topology objects, sorted.
 *
 * @example
 * computeNormalizedSnapshot(await getTopologySnapshot(kube, ns, 'c'))['ControlPlane'];
 */
export function computeNormalizedSnapshot(raw: RawSnapshot, tokens?: ReadonlyMap<string, string>): NormalizedSnapshot {
  // NOTE: the scenario's creation-order tokens (test/diff/observe.ts) where given; a name they lack keeps `-<random>`.
  const names = tokens ? new Map([...computeNameMap(raw), ...tokens]) : computeNameMap(raw);
  const out: Record<string, unknown> = {};
  if (raw.cluster) {
    const cluster = normalizeObject(raw.cluster, names);
    const conditions = ((raw.cluster['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(
      (c) => c.type === 'TopologyReconciled',
    );
    out['Cluster'] = {
      ...cluster,
      topologyReconciled: conditions.map((c) =>
        mapStrings({ status: c.status, reason: c.reason, message: c.message ?? '' }, names),
      )[0],
    };
  }
  for (const role of Object.keys(raw.objects).sort()) out[role] = normalizeObject(raw.objects[role]!, names);
  if (raw.clusterClass) out['ClusterClass'] = computeClassVariables(raw.clusterClass, names);
  out['Leftovers'] = raw.leftovers
    .map((o) => normalizeObject(o, names))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return out;
}

/** The TopologyReconciled condition and generations the settle rule needs (not compared). */
export function getTopologyProgress(raw: RawSnapshot): {
  status?: string;
  reason?: string;
  message?: string;
  upToDate: boolean;
} {
  const c = raw.cluster;
  if (!c) return { upToDate: true };
  const cond = (
    (c['status'] as { conditions?: (Condition & { observedGeneration?: number })[] } | undefined)?.conditions ?? []
  ).find((x) => x.type === 'TopologyReconciled');
  const generation = c.metadata.generation;
  const observed =
    cond?.observedGeneration ?? (c['status'] as { observedGeneration?: number } | undefined)?.observedGeneration;
  return {
    ...(cond?.status ? { status: cond.status } : {}),
    ...(cond?.reason ? { reason: cond.reason } : {}),
    ...(cond?.message ? { message: cond.message } : {}),
    upToDate: generation === undefined || observed === undefined || observed >= generation,
  };
}
