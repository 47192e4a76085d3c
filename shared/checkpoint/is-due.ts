// Whether an object needs a pass now, judged from its checkpoint and what the caller sees of it.
import type { Checkpoint } from './checkpoint.ts';
import type { OwnedChange } from './lease.ts';

/** Why a pass is (or is not) due. */
export const dueReasons = {
  noCheckpoint: 'NoCheckpoint',
  generationChanged: 'GenerationChanged',
  inputsChanged: 'InputsChanged',
  retryDue: 'RetryDue',
  backingOff: 'BackingOff',
  upToDate: 'UpToDate',
} as const;
export type DueReason = (typeof dueReasons)[keyof typeof dueReasons];

export type DueFacts = {
  /** The caller's clock (epoch milliseconds). */
  readonly now: number;
  /** The object's current `metadata.generation`. */
  readonly generation: number;
  /** Hash of the current inputs of a pass. */
  readonly inputHash: string;
};

const notDue: ReadonlySet<DueReason> = new Set([dueReasons.backingOff, dueReasons.upToDate]);

/**
 * The reason a pass is due or not. A change of generation or inputs is due at once, even while backing off from
 * an earlier failure; an unchanged object that failed or asked to requeue is due from `nextAttemptAt` on; an
 * unchanged object whose last pass succeeded is up to date.
 *
 * @example
 * computeDueReason(checkpoint, { now, generation: 3, inputHash }); // 'BackingOff'
 */
export function computeDueReason(checkpoint: Checkpoint | undefined, facts: DueFacts): DueReason {
  if (checkpoint === undefined) return dueReasons.noCheckpoint;
  if (checkpoint.observedGeneration !== facts.generation) return dueReasons.generationChanged;
  if (checkpoint.inputHash !== facts.inputHash) return dueReasons.inputsChanged;
  if (checkpoint.result === 'Success') return dueReasons.upToDate;
  const nextAttemptAt = checkpoint.nextAttemptAt ?? 0;
  return facts.now >= nextAttemptAt ? dueReasons.retryDue : dueReasons.backingOff;
}

/**
 * Whether an object needs a pass now; see {@link computeDueReason} for the rules.
 *
 * @example
 * if (!isDue(await getCheckpoint(store, key), { now, generation: cluster.metadata.generation, inputHash })) return;
 */
export function isDue(checkpoint: Checkpoint | undefined, facts: DueFacts): boolean {
  return !notDue.has(computeDueReason(checkpoint, facts));
}

/**
 * The owned object an event says someone else changed: one whose generation is later than the one the last pass
 * left it at (`ownedGenerations`), or, at that generation, whose labels, annotations and managed-fields mark hash
 * otherwise than the pass left them (`ownedMetadata`: a label or annotation edit, or a write that dropped the pass's
 * managed fields, moves no generation). Its own writes carry the recorded generation and hash, status writes neither,
 * and an object the last pass did not record is left to the usual rules (undefined).
 *
 * @example
 * computeEditedOwnedObject(checkpoint, [{ object: 'MachineDeployment default/md-0', generation: 4 }]);
 * // 'MachineDeployment default/md-0' when the last pass left it at generation 3
 */
export function computeEditedOwnedObject(
  checkpoint: Checkpoint | undefined,
  changes: readonly OwnedChange[] | undefined,
): string | undefined {
  const recorded = checkpoint?.ownedGenerations;
  if (recorded === undefined) return undefined;
  const metadata = checkpoint?.ownedMetadata;
  return changes?.find((c) => {
    const generation = recorded[c.object];
    if (generation === undefined) return false;
    if (c.generation > generation) return true;
    const hash = metadata?.[c.object];
    return c.generation === generation && c.metadata !== undefined && hash !== undefined && c.metadata !== hash;
  })?.object;
}

/**
 * The awaited owned object an event says changed: one the last pass named in `wakeOnChangeOf` (it waits for another
 * controller to act on it, e.g. the core Cluster controller adopting the control plane), whatever its generation.
 *
 * @example
 * computeAwaitedOwnedObject(checkpoint, [{ object: 'KubeadmControlPlane default/c-x2bz9', generation: 1 }]);
 * // 'KubeadmControlPlane default/c-x2bz9' when the last pass waits for its adoption
 */
export function computeAwaitedOwnedObject(
  checkpoint: Checkpoint | undefined,
  changes: readonly OwnedChange[] | undefined,
): string | undefined {
  const awaited = checkpoint?.wakeOnChangeOf;
  if (awaited === undefined) return undefined;
  return changes?.find((c) => awaited.includes(c.object))?.object;
}
