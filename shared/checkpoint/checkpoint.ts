// Checkpoints: what the last pass over an object saw and decided, read before a pass and recorded after it.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ValidationError } from '#shared/errors/index.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, LeaseHeldError, storeOperations } from './errors.ts';
import type { StoreOperation } from './errors.ts';
import { leaseConditions, leaseExpressionNames, leaseOfReturnedItem } from './lease.ts';
import { checkpointUpdateOf, updateExpressionOf } from './object-row.ts';
import { primaryKeyOf, recordKinds } from './table.ts';
import type { CheckpointKey } from './table.ts';

/** How a pass ended. */
export const CheckpointResult = z.enum(['Success', 'Error', 'Requeue']);
export type CheckpointResult = z.infer<typeof CheckpointResult>;

const epochMs = z.number().int().nonnegative();

/**
 * Proof that applying the desired state changed nothing: while the object's uid and resourceVersion and the intent
 * hash are the same, a later pass may skip the server-side-apply dry run. A pass that writes several objects (a
 * topology) keeps one proof per object in `objects`; `objectUid`/`resourceVersion` are then the reconciled object's
 * (the Cluster) and `intentHash` covers every entry.
 */
export const NoChange = z.object({
  objectUid: z.string().min(1),
  resourceVersion: z.string().min(1),
  intentHash: z.string().min(1),
  /** `Kind namespace/name` → hash of (uid, resourceVersion, apply intent) of each object the pass applied. */
  objects: z.record(z.string(), z.string()).optional(),
});
export type NoChange = z.infer<typeof NoChange>;

/**
 * `Kind namespace/name` → `metadata.generation` of each object a pass owns, as the pass left it (after its own
 * writes). An event about one of them with a later generation is someone else's spec write (a user's edit): the pass
 * is due at once to put it back; an event about the pass's own write carries the generation recorded here.
 */
export const OwnedGenerations = z.record(z.string(), z.number().int().nonnegative());
export type OwnedGenerations = z.infer<typeof OwnedGenerations>;

/**
 * `Kind namespace/name` → the hash of the labels, annotations and managed-fields mark (computeMetadataHash; a
 * Cluster's: computeClusterMetadataHash) of each object a pass owns, as the pass left it: an event about one at the
 * recorded generation with another hash is someone else's edit of its metadata (which moves no generation), or a write
 * that dropped the pass's managed fields.
 */
export const OwnedMetadata = z.record(z.string(), z.string());
export type OwnedMetadata = z.infer<typeof OwnedMetadata>;

/**
 * The checkpoint of one object, kept on its row (sort key `checkpoint`) beside the lease's attributes. Its attributes
 * are these field names, beside `pk`, `sk`, `expiresAt`, the due index's and the lease's. Times are epoch milliseconds.
 */
export const Checkpoint = z.object({
  /** `metadata.generation` the pass reconciled. */
  observedGeneration: z.number().int().nonnegative(),
  /** Hash of every input the pass read (object spec, templates, variables...). */
  inputHash: z.string(),
  /** `metadata.resourceVersion` of the object the pass read. */
  resourceVersion: z.string(),
  result: CheckpointResult,
  /** Consecutive passes that did not succeed; 0 after a success. */
  attempts: z.number().int().nonnegative(),
  /** Earliest time of the next pass after an Error or Requeue. */
  nextAttemptAt: epochMs.optional(),
  /** Message of the last error, kept until a pass succeeds. */
  lastError: z.string().optional(),
  /** Id of the pass that wrote this (e.g. the Lambda request id). */
  lastPassId: z.string(),
  updatedAt: epochMs,
  noChange: NoChange.optional(),
  /**
   * A `Requeue` that waits for the objects the pass owns (an upgrade or a creation in progress): a change of one of
   * them (`wake` in the pass request) runs the pass before `nextAttemptAt`. Other requeues (a lifecycle hook's
   * retryAfterSeconds) keep their due time.
   */
  wakeOnOwnedChange: z.literal(true).optional(),
  /**
   * Owned objects (`Kind namespace/name`) whose next change runs the pass even when nothing in its facts changed and it
   * is not due: it waits for another controller to act on them (the core Cluster controller adopting the control plane
   * from the cluster shim). Kept after a `Success` as after a `Requeue`.
   */
  wakeOnChangeOf: z.array(z.string()).optional(),
  ownedGenerations: OwnedGenerations.optional(),
  ownedMetadata: OwnedMetadata.optional(),
  /**
   * `Kind namespace/name` → the `metadata.resourceVersion` the pass's own write left an object at (a ClusterClass
   * pass's owner reference on a template): an event about that object at that version is the pass's own write.
   */
  ownWrites: z.record(z.string(), z.string()).optional(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/**
 * Reads an object's checkpoint (strongly consistent), or undefined when there is none yet.
 * Throws {@link CheckpointStoreError} when DynamoDB fails or the stored row does not parse.
 *
 * @example
 * const checkpoint = await getCheckpoint(store, { controller: 'topology', namespace: 'default', name: 'c1' });
 */
export async function getCheckpoint(store: CheckpointStore, key: CheckpointKey): Promise<Checkpoint | undefined> {
  let item: Record<string, unknown> | undefined;
  try {
    const output = await store.documents.send(
      new GetCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        ConsistentRead: true,
      }),
    );
    item = output.Item;
  } catch (err) {
    throw new CheckpointStoreError(storeOperations.getCheckpoint, key, err);
  }
  return checkpointOfRow(storeOperations.getCheckpoint, key, item);
}

/**
 * The checkpoint an object's row holds (read by `getCheckpoint`, or returned by the write that took its lease), or
 * undefined when the row holds none.
 */
export function checkpointOfRow(
  operation: StoreOperation,
  key: CheckpointKey,
  item: Record<string, unknown> | undefined,
): Checkpoint | undefined {
  // NOTE: a row with only a lease (the object's first pass is running, or died) has no checkpoint yet.
  if (item === undefined || !hasCheckpoint(item)) return undefined;
  // NOTE: z.object drops pk, sk, expiresAt and the lease's attributes, which are not part of a Checkpoint.
  const parsed = Checkpoint.safeParse(item);
  if (!parsed.success) {
    throw new CheckpointStoreError(operation, key, invalidCheckpoint('stored row', parsed.error));
  }
  return parsed.data;
}

/** Whether an object's row holds a checkpoint, and not only a lease. */
export function hasCheckpoint(item: Record<string, unknown>): boolean {
  return item['result'] !== undefined;
}

export type RecordCheckpointOptions = {
  /**
   * Write only while this holder still has the object's lease (a condition on the row's lease), so a pass that lost
   * its lease cannot overwrite the newer pass's checkpoint. The lease is kept. Throws {@link LeaseHeldError} otherwise.
   */
  readonly leaseHolder?: string;
};

/**
 * Writes an object's checkpoint, replacing the previous one, with TTL `updatedAt + checkpointRetentionSeconds`. One
 * UpdateItem on the object's row, which leaves the lease on it as it is.
 *
 * @example
 * await recordCheckpoint(store, key, { ...checkpoint, result: 'Success', attempts: 0, updatedAt: now }, { leaseHolder });
 */
export async function recordCheckpoint(
  store: CheckpointStore,
  key: CheckpointKey,
  checkpoint: Checkpoint,
  options: RecordCheckpointOptions = {},
): Promise<void> {
  const parsed = Checkpoint.safeParse(checkpoint);
  if (!parsed.success) {
    throw new CheckpointStoreError(
      storeOperations.recordCheckpoint,
      key,
      invalidCheckpoint('checkpoint', parsed.error),
    );
  }
  const parts = checkpointUpdateOf(key, parsed.data, store.checkpointRetentionSeconds);
  const holder = options.leaseHolder;
  try {
    await store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: updateExpressionOf(parts.set, parts.remove),
        ExpressionAttributeNames: {
          ...parts.names,
          ...(holder === undefined ? {} : { '#holder': leaseExpressionNames['#holder'] }),
        },
        ExpressionAttributeValues: { ...parts.values, ...(holder === undefined ? {} : { ':holder': holder }) },
        ...(holder === undefined
          ? {}
          : { ConditionExpression: leaseConditions.ownLease, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
      }),
    );
  } catch (err) {
    if (holder !== undefined && err instanceof ConditionalCheckFailedException) {
      throw new LeaseHeldError(storeOperations.recordCheckpoint, key, holder, leaseOfReturnedItem(err.Item));
    }
    throw new CheckpointStoreError(storeOperations.recordCheckpoint, key, err);
  }
}

function invalidCheckpoint(what: string, error: z.ZodError): ValidationError {
  return new ValidationError(
    `${what} does not match the Checkpoint schema: ${z.prettifyError(error)}`,
    { kind: 'Checkpoint', reason: 'InvalidCheckpoint' },
    { cause: error },
  );
}
