// The read side of a topology pass: a tiny interface over "get one object" and "list by labels", served by the
// management cluster in a pass and by manifest files in `plan`, so both read the current state with the same code.
import type { Unstructured } from '#shared/topology/types.ts';

export type ObjectQuery = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly matchLabels: Readonly<Record<string, string>>;
};

export type ObjectIdentity = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
  /**
   * Labels the object is expected to carry (e.g. the topology's own objects): a reader may find it by listing its
   * kind with them, one request for all of a Cluster's objects of that kind. Not a filter: an object without them is
   * still found by name.
   */
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
};

export type TopologyReader = {
  /** The object, or undefined when it does not exist. */
  get(ref: ObjectIdentity): Promise<Unstructured | undefined>;
  list(query: ObjectQuery): Promise<Unstructured[]>;
};

/** `a=b,c=` — the label selector string of matchLabels, keys sorted. */
export function formatMatchLabels(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/** A reader over objects held in memory (manifests given to `plan`). */
export function createMemoryReader(objects: readonly Unstructured[]): TopologyReader {
  const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');
  // NOTE: objects are matched by group and kind, not version, as the API server would serve any version of a kind.
  const sameKind = (o: Unstructured, apiVersion: string, kind: string) =>
    o.kind === kind && groupOf(o.apiVersion) === groupOf(apiVersion);
  return {
    async get(ref) {
      return objects.find(
        (o) =>
          sameKind(o, ref.apiVersion, ref.kind) &&
          o.metadata.name === ref.name &&
          (o.metadata.namespace ?? '') === (ref.namespace ?? ''),
      );
    },
    async list(q) {
      return objects.filter(
        (o) =>
          sameKind(o, q.apiVersion, q.kind) &&
          (o.metadata.namespace ?? '') === q.namespace &&
          Object.entries(q.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
      );
    },
  };
}
