// The "no change" record of a topology pass: for every object the pass applied (or found already applied), a hash of
// the object's identity and write version together with the apply intent. While an object still has that uid and
// write version and the pass computes the same intent, the server-side-apply dry run would find nothing to change
// (the server's answer depends only on the stored spec and metadata, the intent and the field manager), so the next
// pass skips it — a pass over an unchanged Cluster costs reads only, however cold the Lambda is.
// The write version is the generation and the metadata an apply can touch (labels, annotations, owner references,
// finalizers, and every managedFields entry of the main resource), not the resourceVersion: upstream's managers write
// their objects' status several times a minute while anything happens (the core manager 191 Cluster status writes in
// a minute of the N = 100 bench), which moves the resourceVersion without changing what an apply would do; keyed on
// the resourceVersion every such object was dry-run twice again (2 PATCHes, and 4 ClusterClass reads by the Cluster
// webhooks, per Cluster in the bench's fleet-wide ClusterClass change).
import { createHash } from 'node:crypto';
import { computeClusterMetadataHash, computeMetadataHash } from '#shared/hash/compute-metadata-hash.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** The proofs a pass stored, as kept in the checkpoint (`NoChange.objects`). */
export type AppliedObjects = Readonly<Record<string, string>>;

/** `Kind namespace/name` → `metadata.generation` of each object as the pass left it (the checkpoint's `ownedGenerations`). */
export type AppliedGenerations = Readonly<Record<string, number>>;

/** The record a topology pass leaves in its checkpoint (the checkpoint's `NoChange`, seen from the topology). */
export type NoChangeRecord = {
  /** The Cluster's uid: the record is valid for that very Cluster only. */
  readonly objectUid: string;
  /** The Cluster's resourceVersion as this pass read it. */
  readonly resourceVersion: string;
  /** Hash of every entry of `objects`. */
  readonly intentHash: string;
  readonly objects?: AppliedObjects | undefined;
};

export type ApplyProofs = {
  /** A previous pass proved that applying `intent` to this very object (same uid and write version) changes nothing. */
  isProven(current: Unstructured, intent: Unstructured): boolean;
  /** Records that `object`, as the server holds it after this pass, is what applying `intent` yields. */
  record(object: Unstructured, intent: Unstructured): void;
  /** The previous pass applied an object of this kind, or there is no record: such objects may exist, read them. */
  mayHaveApplied(kind: string): boolean;
  /**
   * Notes an owned object the pass kept without applying it (a MachineDeployment whose upgrade waits, a template a
   * MachineSet holds): it gets an empty entry, which proves nothing but names it for the next pass's reads by name.
   */
  note(object: Unstructured): void;
  /** Drops an object the pass deleted from what it recorded or noted. */
  forget(object: Unstructured): void;
  /** This pass's proofs, keyed `Kind namespace/name`; noted objects have an empty entry. */
  recorded(): AppliedObjects;
  /**
   * The generation of each object recorded, as the server held it after this pass: an event about a later one is
   * someone else's spec write.
   */
  generations(): AppliedGenerations;
  /**
   * The hash of each recorded object's labels, annotations and managed-fields mark (computeMetadataHash; the Cluster's:
   * computeClusterMetadataHash), as after this pass.
   */
  metadataHashes(): Readonly<Record<string, string>>;
};

const sortedByKey = <T>(map: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

const isCluster = (obj: Unstructured) => obj.kind === 'Cluster' && obj.apiVersion.startsWith('cluster.x-k8s.io/');
const keyOf = (obj: Unstructured) => `${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/**
 * What a server-side apply of an intent depends on in the stored object: its generation (every spec change; every
 * change at all for a kind without a status subresource) and the metadata an apply can touch, including who owns which
 * field of the main resource. Status writes through the status subresource leave it as it is. An object without a
 * generation falls back to its resourceVersion.
 *
 * @example
 * computeWriteVersion(kcp); // 'g3:5d41…' — unchanged by the KubeadmControlPlane controller's status writes
 */
export function computeWriteVersion(object: Unstructured): string {
  const { generation, labels, annotations, ownerReferences, finalizers, deletionTimestamp, managedFields } =
    object.metadata as Unstructured['metadata'] & {
      managedFields?: readonly { subresource?: string }[];
      ownerReferences?: unknown;
      finalizers?: unknown;
      deletionTimestamp?: unknown;
    };
  if (generation === undefined) return `rv${object.metadata.resourceVersion ?? ''}`;
  const metadata = computeStableJson({
    labels,
    annotations,
    ownerReferences,
    finalizers,
    deletionTimestamp,
    managedFields: (managedFields ?? []).filter((entry) => (entry.subresource ?? '') === ''),
  });
  return `g${generation}:${createHash('sha256').update(metadata).digest('hex').slice(0, 16)}`;
}

/**
 * The proof of one object: its uid and write version ({@link computeWriteVersion}) with the intent (the intent's own
 * uid left out: it is the object's, which the proof names already).
 *
 * @example
 * computeApplyProof(current, intent); // '9f2c…' (32 hex characters)
 */
export function computeApplyProof(object: Unstructured, intent: Unstructured): string {
  const { uid: _uid, ...metadata } = intent.metadata;
  const material = `${object.metadata.uid ?? ''}@${computeWriteVersion(object)}\n${computeStableJson({ ...intent, metadata })}`;
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/**
 * Proofs for one pass, checked against `previous` (the record of the last pass, undefined when there is none or it
 * belongs to another object).
 *
 * @example
 * const proofs = createApplyProofs(checkpoint?.noChange?.objects);
 * if (proofs.isProven(current, intent)) return; // no dry run
 */
export function createApplyProofs(previous: AppliedObjects | undefined): ApplyProofs {
  const next: Record<string, string> = {};
  const forgotten = new Set<string>();
  const generations: Record<string, number> = {};
  const metadata: Record<string, string> = {};
  const previousKinds = new Set(Object.keys(previous ?? {}).map((key) => key.slice(0, key.indexOf(' '))));
  return {
    isProven(current, intent) {
      const proof = previous?.[keyOf(current)];
      return proof !== undefined && current.metadata.uid !== undefined && proof === computeApplyProof(current, intent);
    },
    record(object, intent) {
      if (object.metadata.uid === undefined || object.metadata.resourceVersion === undefined) return;
      forgotten.delete(keyOf(object));
      next[keyOf(object)] = computeApplyProof(object, intent);
      if (object.metadata.generation === undefined) return;
      generations[keyOf(object)] = object.metadata.generation;
      // NOTE: the Cluster's labels and annotations are its pass's facts; its change carries its managed-fields mark.
      metadata[keyOf(object)] = isCluster(object)
        ? computeClusterMetadataHash(object.metadata)
        : computeMetadataHash(object.metadata);
    },
    note(object) {
      const key = keyOf(object);
      if (next[key] === undefined && !forgotten.has(key)) next[key] = '';
    },
    forget(object) {
      const key = keyOf(object);
      forgotten.add(key);
      delete next[key];
      delete generations[key];
      delete metadata[key];
    },
    mayHaveApplied(kind) {
      return previous === undefined || previousKinds.has(kind);
    },
    recorded() {
      return sortedByKey(next);
    },
    generations() {
      return sortedByKey(generations);
    },
    metadataHashes() {
      return sortedByKey(metadata);
    },
  };
}

/**
 * The record of a pass over `cluster` that applied (or proved) `objects`.
 *
 * @example
 * computeNoChangeRecord(rawCluster, proofs.recorded()); // { objectUid, resourceVersion, intentHash, objects }
 */
export function computeNoChangeRecord(cluster: Unstructured, objects: AppliedObjects): NoChangeRecord {
  return {
    objectUid: cluster.metadata.uid ?? '',
    resourceVersion: cluster.metadata.resourceVersion ?? '',
    intentHash: createHash('sha256').update(computeStableJson(objects)).digest('hex'),
    objects,
  };
}
