// One row per object holds both its lease and its checkpoint (sort key `checkpoint`), so a pass that runs costs two
// single-item conditional UpdateItems: take the lease, then record the outcome and release the lease.
import type { Checkpoint } from './checkpoint.ts';
import { dueAttributesOf, tableAttributes } from './table.ts';
import type { CheckpointKey } from './table.ts';

/**
 * Every field of a {@link Checkpoint}, so a recording sets the fields it has and removes the others (an UpdateItem
 * keeps what it does not name, where the Put of the old layout replaced the row).
 */
export const checkpointFields = [
  'observedGeneration',
  'inputHash',
  'resourceVersion',
  'result',
  'attempts',
  'nextAttemptAt',
  'lastError',
  'lastPassId',
  'updatedAt',
  'noChange',
  'wakeOnOwnedChange',
  'wakeOnChangeOf',
  'ownedGenerations',
  'ownedMetadata',
  'ownWrites',
] as const satisfies readonly (keyof Checkpoint)[];

// NOTE: fails to compile when the Checkpoint schema gains a field this list does not name.
type UnlistedField = Exclude<keyof Checkpoint, (typeof checkpointFields)[number]>;
export const checkpointFieldsComplete: [UnlistedField] extends [never] ? true : never = true;

/** The lease's attributes on an object's row; releasing the lease removes all of them. */
export const leaseAttributes = [
  tableAttributes.holder,
  tableAttributes.acquiredAtMs,
  tableAttributes.expiresAtMs,
  tableAttributes.rerun,
  tableAttributes.rerunForce,
  tableAttributes.rerunWake,
  tableAttributes.rerunOwned,
] as const;

/**
 * When a checkpoint asks for its next pass: after an Error or Requeue its next attempt; after a Success never (the
 * row leaves the due index).
 *
 * @example
 * dueAtOfCheckpoint({ result: 'Error', nextAttemptAt: 1700000000000 }); // 1700000000000
 */
export function dueAtOfCheckpoint(
  checkpoint: Pick<Checkpoint, 'result' | 'nextAttemptAt'> | undefined,
): number | undefined {
  if (checkpoint === undefined || checkpoint.result === 'Success') return undefined;
  return checkpoint.nextAttemptAt ?? 0;
}

/** An UpdateItem's expression parts, placeholders and values, to be joined with other parts. */
export type UpdateParts = {
  readonly set: string[];
  readonly remove: string[];
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
};

/**
 * The UpdateItem parts that write a checkpoint onto an object's row: every field it has set, every other field
 * removed, the TTL moved to `updatedAt + retention`, and the due index attributes set or removed. DynamoDB writes
 * the due index only when those values change, so a pass whose due time stays the same costs no index write.
 *
 * @example
 * const parts = checkpointUpdateOf(key, checkpoint, store.checkpointRetentionSeconds);
 */
export function checkpointUpdateOf(key: CheckpointKey, checkpoint: Checkpoint, retentionSeconds: number): UpdateParts {
  const parts: UpdateParts = { set: [], remove: [], names: {}, values: {} };
  const put = (attribute: string, value: unknown) => {
    const i = Object.keys(parts.names).length;
    parts.names[`#c${i}`] = attribute;
    if (value === undefined) {
      parts.remove.push(`#c${i}`);
    } else {
      parts.set.push(`#c${i} = :c${i}`);
      parts.values[`:c${i}`] = value;
    }
  };
  const fields = checkpoint as Record<string, unknown>;
  for (const field of checkpointFields) put(field, fields[field]);
  put(tableAttributes.expiresAt, Math.floor(checkpoint.updatedAt / 1000) + retentionSeconds);
  const due = dueAttributesOf(key, dueAtOfCheckpoint(checkpoint));
  if (key.kind !== undefined) {
    put(tableAttributes.dueShard, due[tableAttributes.dueShard]);
    put(tableAttributes.dueAtMs, due[tableAttributes.dueAtMs]);
  }
  return parts;
}

/** Joins SET and REMOVE clauses into one UpdateExpression. */
export function updateExpressionOf(set: readonly string[], remove: readonly string[]): string {
  return [set.length > 0 ? `SET ${set.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '']
    .filter((clause) => clause !== '')
    .join(' ');
}
