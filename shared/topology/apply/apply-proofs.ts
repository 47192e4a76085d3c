// The "no change" record of a topology pass: for every object the pass applied (or found already applied), a hash of
// the object's identity and version together with the apply intent. While an object still has that uid and
// resourceVersion and the pass computes the same intent, the server-side-apply dry run would find nothing to change
// (the server's answer depends only on the stored object, the intent and the field manager), so the next pass skips
// it — a pass over an unchanged Cluster costs reads only, however cold the Lambda is.
import { createHash } from 'node:crypto';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** The proofs a pass stored, as kept in the checkpoint (`NoChange.objects`). */
export type AppliedObjects = Readonly<Record<string, string>>;

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
  /** A previous pass proved that applying `intent` to this very object (same uid and resourceVersion) changes nothing. */
  isProven(current: Unstructured, intent: Unstructured): boolean;
  /** Records that `object`, as the server holds it after this pass, is what applying `intent` yields. */
  record(object: Unstructured, intent: Unstructured): void;
  /** The previous pass applied an object of this kind, or there is no record: such objects may exist, read them. */
  mayHaveApplied(kind: string): boolean;
  /** This pass's proofs, keyed `Kind namespace/name`. */
  recorded(): AppliedObjects;
};

const keyOf = (obj: Unstructured) => `${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/**
 * The proof of one object: its uid and resourceVersion with the intent (the intent's own uid left out: it is the
 * object's, which the proof names already).
 *
 * @example
 * computeApplyProof(current, intent); // '9f2c…' (32 hex characters)
 */
export function computeApplyProof(object: Unstructured, intent: Unstructured): string {
  const { uid: _uid, ...metadata } = intent.metadata;
  const material = `${object.metadata.uid ?? ''}@${object.metadata.resourceVersion ?? ''}\n${computeStableJson({ ...intent, metadata })}`;
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
  const previousKinds = new Set(Object.keys(previous ?? {}).map((key) => key.slice(0, key.indexOf(' '))));
  return {
    isProven(current, intent) {
      const proof = previous?.[keyOf(current)];
      return proof !== undefined && current.metadata.uid !== undefined && proof === computeApplyProof(current, intent);
    },
    record(object, intent) {
      if (object.metadata.uid === undefined || object.metadata.resourceVersion === undefined) return;
      next[keyOf(object)] = computeApplyProof(object, intent);
    },
    mayHaveApplied(kind) {
      return previous === undefined || previousKinds.has(kind);
    },
    recorded() {
      return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
