// What a tick needs from the table without touching every row: the objects due by now (the sparse due index), the
// checkpoints of a batch of objects (BatchGetItem, 100 keys a request) and the claim of a controller's sweep.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Checkpoint } from './checkpoint.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, storeOperations } from './errors.ts';
import {
  dueIndex,
  dueShardOf,
  parsePartitionKey,
  partitionKeyOf,
  primaryKeyOf,
  recordKinds,
  sweepKeyOf,
  tableAttributes,
  type CheckpointKey,
  type Controller,
} from './table.ts';

/** An object the due index names, and why: a checkpoint's retry/requeue time, or a lease that lapsed. */
export type DueObject = {
  readonly key: Required<CheckpointKey>;
  readonly dueAtMs: number;
  readonly because: 'checkpoint' | 'lapsedLease';
};

/**
 * The objects of one kind whose next pass is due by `now`: checkpoints after an Error or Requeue whose time has
 * come, and leases that lapsed (a pass that died without recording). One Query per page of results, so a tick
 * over an idle fleet costs one request per kind whatever the fleet's size. Eventually consistent (a GSI): a pass
 * re-reads the checkpoint strongly under its lease, so a stale entry costs one skipped pass at most.
 *
 * @example
 * const due = await listDueObjects(store, 'topology', 'Cluster', Date.now());
 */
export async function listDueObjects(
  store: CheckpointStore,
  controller: Controller,
  kind: string,
  now: number,
): Promise<DueObject[]> {
  const byObject = new Map<string, DueObject>();
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    let output;
    try {
      output = await store.documents.send(
        new QueryCommand({
          TableName: store.tableName,
          IndexName: dueIndex.name,
          KeyConditionExpression: '#shard = :shard AND #due <= :now',
          ExpressionAttributeNames: { '#shard': tableAttributes.dueShard, '#due': tableAttributes.dueAtMs },
          ExpressionAttributeValues: { ':shard': dueShardOf(controller, kind), ':now': now },
          ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
        }),
      );
    } catch (err) {
      throw new CheckpointStoreError(storeOperations.listDue, dueShardOf(controller, kind), err);
    }
    for (const item of output.Items ?? []) {
      const key = parsePartitionKey(String(item[tableAttributes.pk]));
      if (key === undefined) continue;
      const entry: DueObject = {
        key,
        dueAtMs: Number(item[tableAttributes.dueAtMs]),
        because: item[tableAttributes.sk] === recordKinds.lease ? 'lapsedLease' : 'checkpoint',
      };
      const id = partitionKeyOf(key);
      const seen = byObject.get(id);
      if (seen === undefined || entry.dueAtMs < seen.dueAtMs) byObject.set(id, entry);
    }
    exclusiveStartKey = output.LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
  return [...byObject.values()];
}

const batchGetLimit = 100;

/**
 * The checkpoints of many objects (strongly consistent), keyed by {@link partitionKeyOf}; objects without one are
 * absent. One BatchGetItem per 100 keys, retrying what DynamoDB leaves unprocessed.
 *
 * @example
 * const checkpoints = await getCheckpoints(store, keys); // Map<'topology#Cluster#default/c1', Checkpoint>
 */
export async function getCheckpoints(
  store: CheckpointStore,
  keys: readonly CheckpointKey[],
): Promise<Map<string, Checkpoint>> {
  const found = new Map<string, Checkpoint>();
  for (let start = 0; start < keys.length; start += batchGetLimit) {
    let pending: Record<string, unknown>[] = keys
      .slice(start, start + batchGetLimit)
      .map((key) => primaryKeyOf(key, recordKinds.checkpoint));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      if (attempt > 8) {
        throw new CheckpointStoreError(
          storeOperations.getCheckpoints,
          `${pending.length} keys`,
          new Error('DynamoDB left keys unprocessed after 8 retries'),
        );
      }
      let output;
      try {
        output = await store.documents.send(
          new BatchGetCommand({ RequestItems: { [store.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
      } catch (err) {
        throw new CheckpointStoreError(storeOperations.getCheckpoints, `${pending.length} keys`, err);
      }
      for (const item of output.Responses?.[store.tableName] ?? []) {
        const parsed = Checkpoint.safeParse(item);
        if (parsed.success) found.set(String(item[tableAttributes.pk]), parsed.data);
      }
      pending = (output.UnprocessedKeys?.[store.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}

/**
 * Claims the controller's sweep when the last one started `intervalMs` or more before `now` (or never ran). A read
 * first (eventually consistent, half a read unit), so a tick with no sweep due writes nothing; then a conditional
 * Put, so of several ticks at once exactly one sweeps. Returns whether this caller claimed it.
 *
 * @example
 * if (await claimSweep(store, 'topology', Date.now(), 3_600_000)) await sweep();
 */
export async function claimSweep(
  store: CheckpointStore,
  controller: Controller,
  now: number,
  intervalMs: number,
): Promise<boolean> {
  const key = sweepKeyOf(controller);
  try {
    const current = await store.documents.send(
      new GetCommand({ TableName: store.tableName, Key: primaryKeyOf(key, recordKinds.sweep) }),
    );
    const last = current.Item?.[tableAttributes.lastSweepAtMs];
    if (typeof last === 'number' && last > now - intervalMs) return false;
    await store.documents.send(
      new PutCommand({
        TableName: store.tableName,
        Item: { ...primaryKeyOf(key, recordKinds.sweep), [tableAttributes.lastSweepAtMs]: now },
        ConditionExpression: 'attribute_not_exists(#last) OR #last <= :before',
        ExpressionAttributeNames: { '#last': tableAttributes.lastSweepAtMs },
        ExpressionAttributeValues: { ':before': now - intervalMs },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw new CheckpointStoreError(storeOperations.claimSweep, key, err);
  }
}

/**
 * Removes what keeps a deleted object in the due index: its checkpoint row, and its lease row when that lapsed
 * (a live lease is left to its holder). Idempotent.
 *
 * @example
 * if (facts === undefined) await forgetObject(store, key, Date.now());
 */
export async function forgetObject(store: CheckpointStore, key: CheckpointKey, now: number): Promise<void> {
  try {
    await store.documents.send(
      new DeleteCommand({ TableName: store.tableName, Key: primaryKeyOf(key, recordKinds.checkpoint) }),
    );
    await store.documents.send(
      new DeleteCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.lease),
        ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAtMs < :now',
        ExpressionAttributeNames: { '#pk': tableAttributes.pk, '#expiresAtMs': tableAttributes.expiresAtMs },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return;
    throw new CheckpointStoreError(storeOperations.forgetObject, key, err);
  }
}
