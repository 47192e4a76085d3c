// One row per object against DynamoDB Local: rows written by the layout before it (a `checkpoint` row and a `lease`
// row per object, the end of a pass one transaction) keep working after an upgrade, and the row's due index entry
// follows its lease and its checkpoint.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  acquireLease,
  dueAttributesOf,
  forgetLegacyLease,
  getCheckpoint,
  listDueObjects,
  partitionKeyOf,
  primaryKeyOf,
  recordCheckpointAndReleaseLease,
  recordKinds,
  releaseLease,
  requestRerun,
  tableAttributes,
} from '#shared/checkpoint/index.ts';
import type { Checkpoint, CheckpointKey } from '#shared/checkpoint/index.ts';
import { useCheckpointStore } from './setup.ts';

const ctx = useCheckpointStore('one-row');
// NOTE: a real "now": DynamoDB Local runs TTL deletion, so rows stamped in the past could vanish mid-test.
const t0 = Math.floor(Date.now() / 1000) * 1000;
const ttlMs = 60_000;

const keyFor = (name: string, namespace = 'old'): CheckpointKey => ({
  controller: 'topology',
  kind: 'Cluster',
  namespace,
  name,
});

const failed: Checkpoint = Object.freeze({
  observedGeneration: 3,
  inputHash: 'sha256:old',
  resourceVersion: '7',
  result: 'Error',
  attempts: 2,
  nextAttemptAt: t0 + 30_000,
  lastError: 'boom',
  lastPassId: 'old-pass',
  updatedAt: t0,
  ownedGenerations: Object.freeze({ 'MachineDeployment old/md-a': 4 }),
});

const succeeded: Checkpoint = Object.freeze({
  observedGeneration: 4,
  inputHash: 'sha256:new',
  resourceVersion: '9',
  result: 'Success',
  attempts: 0,
  lastPassId: 'new-pass',
  updatedAt: t0 + 1_000,
  ownedGenerations: Object.freeze({ 'MachineDeployment old/md-a': 5 }),
});

/** The rows the layout before one row per object wrote, as it wrote them (a Put of the whole row). */
async function putOldRow(key: CheckpointKey, kind: 'checkpoint' | 'lease', attributes: Record<string, unknown>) {
  await ctx.store.documents.send(
    new PutCommand({ TableName: ctx.store.tableName, Item: { ...primaryKeyOf(key, kind), ...attributes } }),
  );
}

async function rowsOf(key: CheckpointKey): Promise<Record<string, unknown>[]> {
  const { Items } = await ctx.store.documents.send(
    new QueryCommand({
      TableName: ctx.store.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': tableAttributes.pk },
      ExpressionAttributeValues: { ':pk': partitionKeyOf(key) },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

async function dueNames(now: number, namespace = 'old'): Promise<string[]> {
  return (await listDueObjects(ctx.store, 'topology', 'Cluster', now))
    .filter((d) => d.key.namespace === namespace)
    .map((d) => `${d.key.name}:${d.because}${d.legacyLease ? ':legacy' : ''}`)
    .sort();
}

describe('rows of the layout before one row per object', () => {
  test('an old checkpoint row is read, leased and rewritten in place, leaving one row', async () => {
    const key = keyFor('upgraded');
    await putOldRow(key, recordKinds.checkpoint, {
      ...failed,
      [tableAttributes.expiresAt]: Math.floor(t0 / 1000) + 3600,
      ...dueAttributesOf(key, failed.nextAttemptAt),
    });
    assert.deepEqual(await getCheckpoint(ctx.store, key), failed, 'read as it was written');
    await acquireLease(ctx.store, key, 'new-pass', { ttlMs, now: t0 + 500 });
    assert.deepEqual(await getCheckpoint(ctx.store, key), failed, 'the lease does not hide the checkpoint');
    assert.deepEqual(await dueNames(t0 + 30_000), ['upgraded:checkpoint'], 'the retry keeps its due time');
    await recordCheckpointAndReleaseLease(ctx.store, key, succeeded, 'new-pass');
    assert.deepEqual(await getCheckpoint(ctx.store, key), succeeded, 'fields the new checkpoint lacks are gone');
    const rows = await rowsOf(key);
    assert.deepEqual(
      rows.map((r) => [r[tableAttributes.sk], r[tableAttributes.holder], r[tableAttributes.dueAtMs]]),
      [['checkpoint', undefined, undefined]],
      'one row, no lease, out of the due index',
    );
    assert.equal(rows[0]?.[tableAttributes.expiresAt], Math.floor(succeeded.updatedAt / 1000) + 30 * 24 * 3600);
  });

  test('a lapsed old lease row is found by the tick as a lapsed lease and deleted once forgotten', async () => {
    const key = keyFor('died-before-upgrade');
    await putOldRow(key, recordKinds.lease, {
      [tableAttributes.holder]: 'old-pass-that-died',
      [tableAttributes.acquiredAtMs]: t0 - 2_000,
      [tableAttributes.expiresAtMs]: t0 - 1_000,
      [tableAttributes.expiresAt]: Math.ceil((t0 + 3_600_000) / 1000),
      ...dueAttributesOf(key, t0 - 1_000),
    });
    assert.deepEqual(await dueNames(t0), ['died-before-upgrade:lapsedLease:legacy']);
    // NOTE: the old lease row is not the new layout's lease: a new pass takes the object's row.
    await acquireLease(ctx.store, key, 'new-pass', { ttlMs, now: t0 });
    await recordCheckpointAndReleaseLease(ctx.store, key, succeeded, 'new-pass');
    await forgetLegacyLease(ctx.store, key, t0);
    assert.deepEqual(await dueNames(t0), []);
    assert.deepEqual(
      (await rowsOf(key)).map((r) => r[tableAttributes.sk]),
      ['checkpoint'],
    );
  });

  test('a live old lease row (an old pass still running during the upgrade) is left to its holder', async () => {
    const key = keyFor('running-during-upgrade');
    await putOldRow(key, recordKinds.lease, {
      [tableAttributes.holder]: 'old-pass',
      [tableAttributes.acquiredAtMs]: t0,
      [tableAttributes.expiresAtMs]: t0 + ttlMs,
      [tableAttributes.expiresAt]: Math.ceil((t0 + ttlMs) / 1000),
      ...dueAttributesOf(key, t0 + ttlMs),
    });
    await forgetLegacyLease(ctx.store, key, t0);
    assert.deepEqual(
      (await rowsOf(key)).map((r) => r[tableAttributes.sk]),
      ['lease'],
    );
    assert.deepEqual(
      await dueNames(t0 + ttlMs + 1),
      ['running-during-upgrade:lapsedLease:legacy'],
      'found once lapsed',
    );
  });
});

describe('the due index entry of the one row', () => {
  test('a held lease stays out of the index until a pass asks its holder to run again, then is found lapsed', async () => {
    const key = keyFor('held', 'new');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.deepEqual(await dueNames(t0 + 10 * ttlMs, 'new'), [], 'taking the lease of a new row writes no index');
    await recordCheckpointAndReleaseLease(ctx.store, key, succeeded, 'pass-1');
    assert.deepEqual(await dueNames(t0 + 10 * ttlMs, 'new'), [], 'a Success leaves the row out of the index');
    await acquireLease(ctx.store, key, 'pass-2', { ttlMs, now: t0 + 1 });
    assert.deepEqual(await dueNames(t0 + 10 * ttlMs, 'new'), [], 'a settled row stays out while its lease is held');
    assert.equal(await requestRerun(ctx.store, key, { force: false, wake: false }, t0 + 2), true);
    assert.deepEqual(await dueNames(t0 + ttlMs, 'new'), [], 'not due before its lease lapses');
    assert.deepEqual(await dueNames(t0 + ttlMs + 2, 'new'), ['held:lapsedLease'], 'the holder died: found lapsed');
    await releaseLease(ctx.store, key, 'pass-2');
    assert.deepEqual(await dueNames(t0 + 10 * ttlMs, 'new'), [], 'released without recording: back to its Success');
  });

  test('a rerun honoured by a holder that records a Success takes the row out of the index', async () => {
    const key = keyFor('rerun-honoured', 'new');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.equal(await requestRerun(ctx.store, key, { force: true, wake: false }, t0 + 1), true);
    const rerun = await recordCheckpointAndReleaseLease(ctx.store, key, succeeded, 'pass-1');
    assert.deepEqual(rerun, { force: true, wake: false });
    assert.deepEqual(await dueNames(t0 + 10 * ttlMs, 'new'), []);
  });

  test("releasing a lease without recording puts the row back at its checkpoint's retry time", async () => {
    const key = keyFor('retry-kept', 'new');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    await recordCheckpointAndReleaseLease(ctx.store, key, { ...failed, nextAttemptAt: t0 + 5 * ttlMs }, 'pass-1');
    await acquireLease(ctx.store, key, 'pass-2', { ttlMs, now: t0 + 1 });
    assert.deepEqual(await dueNames(t0 + 2 * ttlMs, 'new'), [], 'the retry time stays while the lease is held');
    await releaseLease(ctx.store, key, 'pass-2');
    assert.deepEqual(await dueNames(t0 + 5 * ttlMs, 'new'), ['retry-kept:checkpoint']);
  });
});
