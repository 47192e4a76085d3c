// The end of a pass in one request: write the checkpoint and delete the lease row in a single transaction, so a
// pass costs at most two DynamoDB writes (acquire + this) and a pass that lost its lease writes nothing.
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ValidationError } from '#shared/errors/index.ts';
import { Checkpoint } from './checkpoint.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, LeaseHeldError, storeOperations } from './errors.ts';
import { leaseConditions, leaseExpressionNames, leaseOfReturnedItem, rerunOfLeaseItem } from './lease.ts';
import type { RerunRequest } from './lease.ts';
import { dueAttributesOf, primaryKeyOf, recordKinds, tableAttributes } from './table.ts';
import type { CheckpointKey } from './table.ts';

/**
 * Records an object's checkpoint and releases the holder's lease in one `TransactWriteItems`: a `Delete` of the
 * lease row conditional on `ownLease` and on no "run again" request, and the `Put` of the checkpoint row (TTL
 * `updatedAt + retention`). When another pass asked for a rerun (see `requestRerun`), the same transaction is sent
 * once more without that condition and the request is returned, so the caller runs again. When the holder no
 * longer has the lease (it lapsed and another pass took it, or its row is gone) nothing is written and
 * {@link LeaseHeldError} carries the current holder, if any.
 *
 * NOTE: billed as a transactional write of two items (2 × 2 write request units for rows under 1 KB), one request;
 * two when a rerun was asked for.
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
  const item = {
    ...parsed.data,
    ...primaryKeyOf(key, recordKinds.checkpoint),
    [tableAttributes.expiresAt]: Math.floor(parsed.data.updatedAt / 1000) + store.checkpointRetentionSeconds,
    // NOTE: only a checkpoint that asks for another pass (Error, Requeue) is in the due index.
    ...dueAttributesOf(key, parsed.data.result === 'Success' ? undefined : (parsed.data.nextAttemptAt ?? 0)),
  };
  const send = (unlessRerun: boolean) =>
    store.documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: store.tableName,
              Key: primaryKeyOf(key, recordKinds.lease),
              ConditionExpression: unlessRerun
                ? `${leaseConditions.ownLease} AND attribute_not_exists(#rerun)`
                : leaseConditions.ownLease,
              ExpressionAttributeNames: {
                '#holder': leaseExpressionNames['#holder'],
                ...(unlessRerun ? { '#rerun': tableAttributes.rerun } : {}),
              },
              ExpressionAttributeValues: { ':holder': holder },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Put: { TableName: store.tableName, Item: item } },
        ],
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

/** The item returned with the lease condition's failure, when that is why the transaction was cancelled. */
function failedConditionItem(err: unknown): unknown {
  const reason = err instanceof TransactionCanceledException ? err.CancellationReasons?.[0] : undefined;
  return reason?.Code === 'ConditionalCheckFailed' ? (reason.Item ?? {}) : undefined;
}

function recordError(key: CheckpointKey, holder: string, err: unknown): Error {
  const returned = failedConditionItem(err);
  if (returned !== undefined) {
    return new LeaseHeldError(storeOperations.recordCheckpoint, key, holder, leaseOfReturnedItem(returned));
  }
  return new CheckpointStoreError(storeOperations.recordCheckpoint, key, err);
}
