// What a tick needs from the table without touching every row: the objects due by now (the sparse due index), the
// checkpoints of a batch of objects (BatchGetItem, 100 keys a request) and the claim of a controller's sweep.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { Checkpoint } from './checkpoint.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, storeOperations } from './errors.ts';
import type { StoreOperation } from './errors.ts';
import {
  dueIndex,
  dueShardsOf,
  parsePartitionKey,
  partitionKeyOf,
  primaryKeyOf,
  recordKinds,
  sweepKeyOf,
  tableAttributes,
  type CheckpointKey,
  type Controller,
} from './table.ts';

/**
 * An object the due index names, and why: a checkpoint's retry/requeue time, or a lease that lapsed (on the object's
 * row, or a lease row of the layout before one row per object).
 */
export type DueObject = {
  readonly key: Required<CheckpointKey>;
  readonly dueAtMs: number;
  readonly because: 'checkpoint' | 'lapsedLease';
  /** The lapsed lease is a row of the layout before one row per object: see {@link forgetLegacyLease}. */
  readonly legacyLease?: true;
};

/**
 * The objects of one kind whose next pass is due by `now`: checkpoints after an Error or Requeue whose time has
 * come, and leases that lapsed after a pass asked their holder to run again (it died without recording). One Query per shard and page of results, at
 * once, so a tick over an idle fleet costs the same whatever the fleet's size: one Query per kind, 9 for Clusters
 * (`dueShardsOf`: 8 shards and the partition of rows written before sharding). Eventually consistent (a GSI): a pass
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
  const pages = await Promise.all(dueShardsOf(controller, kind).map((shard) => queryDueShard(store, shard, now)));
  for (const entry of pages.flat()) {
    const id = partitionKeyOf(entry.key);
    const seen = byObject.get(id);
    const legacy = entry.legacyLease === true || seen?.legacyLease === true;
    const first = seen === undefined || entry.dueAtMs < seen.dueAtMs ? entry : seen;
    byObject.set(id, legacy ? { ...first, because: 'lapsedLease', legacyLease: true } : first);
  }
  // NOTE: the index holds keys only: whether an object's row is due for its checkpoint or for a lease that lapsed
  // (a pass that died) is on the row. Read the due rows' lease (eventually consistent, a few bytes each).
  const rows = [...byObject.values()].filter((entry) => entry.because === 'checkpoint');
  const leases = await batchGetRows(
    store,
    rows.map((entry) => entry.key),
    { ProjectionExpression: '#pk, #holder, #expiresAtMs', ConsistentRead: false },
    storeOperations.listDue,
  );
  for (const entry of rows) {
    const row = leases.get(partitionKeyOf(entry.key));
    const expiresAtMs = row?.[tableAttributes.expiresAtMs];
    if (row?.[tableAttributes.holder] !== undefined && typeof expiresAtMs === 'number' && expiresAtMs < now) {
      byObject.set(partitionKeyOf(entry.key), { ...entry, because: 'lapsedLease' });
    }
  }
  return [...byObject.values()];
}

/** The entries of one due index partition due by `now`, page after page. */
async function queryDueShard(store: CheckpointStore, shard: string, now: number): Promise<DueObject[]> {
  const entries: DueObject[] = [];
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
          ExpressionAttributeValues: { ':shard': shard, ':now': now },
          ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
        }),
      );
    } catch (err) {
      throw new CheckpointStoreError(storeOperations.listDue, shard, err);
    }
    for (const item of output.Items ?? []) {
      const key = parsePartitionKey(String(item[tableAttributes.pk]));
      if (key === undefined) continue;
      entries.push({
        key,
        dueAtMs: Number(item[tableAttributes.dueAtMs]),
        ...(item[tableAttributes.sk] === recordKinds.lease
          ? { because: 'lapsedLease' as const, legacyLease: true as const }
          : { because: 'checkpoint' as const }),
      });
    }
    exclusiveStartKey = output.LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
  return entries;
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
  const rows = await batchGetRows(store, keys, { ConsistentRead: true }, storeOperations.getCheckpoints);
  for (const [pk, item] of rows) {
    // NOTE: a row with only a lease (a first pass running) has no checkpoint and fails to parse: absent.
    const parsed = Checkpoint.safeParse(item);
    if (parsed.success) found.set(pk, parsed.data);
  }
  return found;
}

/** The rows of many objects keyed by {@link partitionKeyOf}: one BatchGetItem per 100 keys, retrying what is left. */
async function batchGetRows(
  store: CheckpointStore,
  keys: readonly CheckpointKey[],
  read: { readonly ProjectionExpression?: string; readonly ConsistentRead: boolean },
  operation: StoreOperation,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const projected =
    read.ProjectionExpression === undefined
      ? {}
      : {
          ProjectionExpression: read.ProjectionExpression,
          ExpressionAttributeNames: {
            '#pk': tableAttributes.pk,
            '#holder': tableAttributes.holder,
            '#expiresAtMs': tableAttributes.expiresAtMs,
          },
        };
  for (let start = 0; start < keys.length; start += batchGetLimit) {
    let pending: Record<string, unknown>[] = keys
      .slice(start, start + batchGetLimit)
      .map((key) => primaryKeyOf(key, recordKinds.checkpoint));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      if (attempt > 8) {
        throw new CheckpointStoreError(
          operation,
          `${pending.length} keys`,
          new Error('DynamoDB left keys unprocessed after 8 retries'),
        );
      }
      let output;
      try {
        output = await store.documents.send(
          new BatchGetCommand({
            RequestItems: {
              [store.tableName]: { Keys: pending, ConsistentRead: read.ConsistentRead, ...projected },
            },
          }),
        );
      } catch (err) {
        throw new CheckpointStoreError(operation, `${pending.length} keys`, err);
      }
      for (const item of output.Responses?.[store.tableName] ?? []) found.set(String(item[tableAttributes.pk]), item);
      pending = (output.UnprocessedKeys?.[store.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}

/** A claimed sweep, with the LIST fingerprints earlier sweeps left nothing undone after (kind → fingerprint). */
export type SweepClaim = { readonly sweptLists: Readonly<Record<string, string>> };

/**
 * Claims the controller's sweep when the last one started `intervalMs` or more before `now` (or never ran). A read
 * first (eventually consistent, half a read unit), so a tick with no sweep due writes nothing; then a conditional
 * Put, so of several ticks at once exactly one sweeps. Returns the claim (with the recorded LIST fingerprints, see
 * {@link recordSweptLists}) when this caller claimed it, `undefined` otherwise.
 *
 * @example
 * const claim = await claimSweep(store, 'topology', Date.now(), 3_600_000);
 * if (claim) await sweep(claim.sweptLists);
 */
export async function claimSweep(
  store: CheckpointStore,
  controller: Controller,
  now: number,
  intervalMs: number,
): Promise<SweepClaim | undefined> {
  const key = sweepKeyOf(controller);
  try {
    const current = await store.documents.send(
      new GetCommand({ TableName: store.tableName, Key: primaryKeyOf(key, recordKinds.sweep) }),
    );
    const last = current.Item?.[tableAttributes.lastSweepAtMs];
    if (typeof last === 'number' && last > now - intervalMs) return undefined;
    const sweptLists = parseSweptLists(current.Item?.[tableAttributes.sweptLists]);
    // NOTE: the claim replaces the row and carries the fingerprints over: a fingerprint stays valid once recorded
    // (see recordSweptLists), so one read from an eventually consistent GetItem is safe to keep.
    await store.documents.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...primaryKeyOf(key, recordKinds.sweep),
          [tableAttributes.lastSweepAtMs]: now,
          ...(Object.keys(sweptLists).length > 0 ? { [tableAttributes.sweptLists]: sweptLists } : {}),
        },
        ConditionExpression: 'attribute_not_exists(#last) OR #last <= :before',
        ExpressionAttributeNames: { '#last': tableAttributes.lastSweepAtMs },
        ExpressionAttributeValues: { ':before': now - intervalMs },
      }),
    );
    return { sweptLists };
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw new CheckpointStoreError(storeOperations.claimSweep, key, err);
  }
}

function parseSweptLists(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/**
 * Records, per kind, the fingerprint of the LIST a sweep just finished with nothing left undone (every listed object
 * up to date at its generation, or in the due index: a failed or requeued pass, a lease). A later sweep whose LIST
 * has the same fingerprint (the same objects at the same generations) has nothing to find in their checkpoints and
 * skips reading them: an idle fleet's sweep costs O(kinds), not one checkpoint read per object. One UpdateItem.
 *
 * @example
 * await recordSweptLists(store, 'topology', { Cluster: 'sha256:…' });
 */
export async function recordSweptLists(
  store: CheckpointStore,
  controller: Controller,
  sweptLists: Readonly<Record<string, string>>,
): Promise<void> {
  const key = sweepKeyOf(controller);
  try {
    await store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.sweep),
        UpdateExpression: 'SET #lists = :lists',
        ExpressionAttributeNames: { '#lists': tableAttributes.sweptLists },
        ExpressionAttributeValues: { ':lists': sweptLists },
      }),
    );
  } catch (err) {
    throw new CheckpointStoreError(storeOperations.recordSweptLists, key, err);
  }
}

/**
 * Removes what keeps a deleted object in the due index: its row (checkpoint and lease), unless a pass holds a live
 * lease on it (left to its holder), and a lease row of the layout before one row per object when that lapsed.
 * Idempotent.
 *
 * @example
 * if (facts === undefined) await forgetObject(store, key, Date.now());
 */
export async function forgetObject(store: CheckpointStore, key: CheckpointKey, now: number): Promise<void> {
  try {
    await store.documents.send(
      new DeleteCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        ConditionExpression: 'attribute_not_exists(#holder) OR #expiresAtMs < :now',
        ExpressionAttributeNames: { '#holder': tableAttributes.holder, '#expiresAtMs': tableAttributes.expiresAtMs },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) {
      throw new CheckpointStoreError(storeOperations.forgetObject, key, err);
    }
  }
  await forgetLegacyLease(store, key, now);
}

/**
 * Deletes the lease row an object may have from the layout before one row per object (sort key `lease`), once it
 * lapsed: after an upgrade such rows are only found by the tick (a pass of the old code died holding it); nothing
 * writes them any more. Idempotent; a live one (an old pass still running during the upgrade) is left alone.
 *
 * @example
 * if (request.lapsedLease) await forgetLegacyLease(store, key, Date.now());
 */
export async function forgetLegacyLease(store: CheckpointStore, key: CheckpointKey, now: number): Promise<void> {
  try {
    await store.documents.send(
      new DeleteCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.lease),
        ConditionExpression: 'attribute_exists(#pk) AND #expiresAtMs < :now',
        ExpressionAttributeNames: { '#pk': tableAttributes.pk, '#expiresAtMs': tableAttributes.expiresAtMs },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return;
    throw new CheckpointStoreError(storeOperations.forgetObject, key, err);
  }
}
