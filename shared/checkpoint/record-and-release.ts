// The end of a pass in one request: write the checkpoint onto the object's row and remove the lease from it in a
// single conditional UpdateItem, so a pass that runs costs two DynamoDB writes (acquire + this) and a pass that lost
// its lease writes nothing.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ValidationError } from '#shared/errors/index.ts';
import { Checkpoint } from './checkpoint.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, LeaseHeldError, storeOperations } from './errors.ts';
import { leaseConditions, leaseExpressionNames, leaseOfReturnedItem, rerunOfLeaseItem } from './lease.ts';
import type { RerunRequest } from './lease.ts';
import { checkpointUpdateOf, leaseAttributes, updateExpressionOf } from './object-row.ts';
import { primaryKeyOf, recordKinds, tableAttributes } from './table.ts';
import type { CheckpointKey } from './table.ts';

/**
 * Records an object's checkpoint and releases the holder's lease in one conditional `UpdateItem` on the object's
 * row: conditional on `ownLease` and on no "run again" request, it sets the checkpoint's fields (removing those it
 * does not have), the TTL (`updatedAt + retention`) and the due index attributes, and removes the lease's. When
 * another pass asked for a rerun (see `requestRerun`), the same update is sent once more without that condition and
 * the request is returned, so the caller runs again. When the holder no longer has the lease (it lapsed and another
 * pass took it, or the row is gone) nothing is written and {@link LeaseHeldError} carries the current holder, if any.
 *
 * NOTE: billed as one write of the row (1 write request unit per started KB of the larger of the old and new row),
 * plus the due index only when its attributes change (the row enters, moves in or leaves it); two writes when a
 * rerun was asked for. No transaction.
 *
 * @example
 * const rerun = await recordCheckpointAndReleaseLease(store, key, { ...checkpoint, updatedAt: now }, passId);
 */
export async function recordCheckpointAndReleaseLease(
  store: CheckpointStore,
  key: CheckpointKey,
  checkpoint: Checkpoint,
  holder: string,
): Promise<RerunRequest | undefined> {
  if (holder.length === 0) {
    throw new ValidationError('lease holder must not be empty', { fieldPath: 'holder', reason: 'InvalidLease' });
  }
  const parsed = Checkpoint.safeParse(checkpoint);
  if (!parsed.success) {
    throw new CheckpointStoreError(
      storeOperations.recordCheckpoint,
      key,
      new ValidationError(
        `checkpoint does not match the Checkpoint schema: ${z.prettifyError(parsed.error)}`,
        { kind: 'Checkpoint', reason: 'InvalidCheckpoint' },
        { cause: parsed.error },
      ),
    );
  }
  const parts = checkpointUpdateOf(key, parsed.data, store.checkpointRetentionSeconds);
  const lease = leaseAttributes.map((name, i) => [`#l${i}`, name] as const);
  const send = (unlessRerun: boolean) =>
    store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: updateExpressionOf(parts.set, [...parts.remove, ...lease.map(([name]) => name)]),
        ConditionExpression: unlessRerun
          ? `${leaseConditions.ownLease} AND attribute_not_exists(#rerun)`
          : leaseConditions.ownLease,
        ExpressionAttributeNames: {
          ...parts.names,
          ...Object.fromEntries(lease),
          '#holder': leaseExpressionNames['#holder'],
          ...(unlessRerun ? { '#rerun': tableAttributes.rerun } : {}),
        },
        ExpressionAttributeValues: { ...parts.values, ':holder': holder },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  try {
    await send(true);
    return undefined;
  } catch (err) {
    const returned = failedConditionItem(err);
    const rerun = rerunOfLeaseItem(returned);
    if (rerun === undefined || leaseOfReturnedItem(returned)?.holder !== holder) throw recordError(key, holder, err);
    try {
      // NOTE: the request is ours to honour: flags only turn on, so a request made after this read is not lost
      // (the caller's rerun pass reads everything afresh).
      await send(false);
      return rerun;
    } catch (again) {
      throw recordError(key, holder, again);
    }
  }
}

/** The row returned with the lease condition's failure, when that is why the update was refused. */
function failedConditionItem(err: unknown): unknown {
  return err instanceof ConditionalCheckFailedException ? (err.Item ?? {}) : undefined;
}

function recordError(key: CheckpointKey, holder: string, err: unknown): Error {
  const returned = failedConditionItem(err);
  if (returned !== undefined) {
    return new LeaseHeldError(storeOperations.recordCheckpoint, key, holder, leaseOfReturnedItem(returned));
  }
  return new CheckpointStoreError(storeOperations.recordCheckpoint, key, err);
}
