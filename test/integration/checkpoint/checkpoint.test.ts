import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  CheckpointStoreError,
  LeaseHeldError,
  acquireLease,
  createCheckpointStore,
  defaultCheckpointRetentionSeconds,
  ensureTable,
  getCheckpoint,
  primaryKeyOf,
  recordCheckpoint,
  recordKinds,
  tableAttributes,
} from '#shared/checkpoint/index.ts';
import type { Checkpoint, CheckpointKey } from '#shared/checkpoint/index.ts';
import { useCheckpointStore } from './setup.ts';

const ctx = useCheckpointStore('checkpoint');
// NOTE: a real "now": DynamoDB Local runs TTL deletion, so rows stamped in the past could vanish mid-test.
const t0 = Math.floor(Date.now() / 1000) * 1000;

function keyFor(name: string): CheckpointKey {
  return { controller: 'topology', namespace: 'default', name };
}

const full: Checkpoint = Object.freeze({
  observedGeneration: 7,
  inputHash: 'sha256:4f2a',
  resourceVersion: '12345',
  result: 'Error',
  attempts: 3,
  nextAttemptAt: t0 + 8_000,
  lastError: 'failed to apply MachineDeployment default/md-a: field is immutable',
  lastPassId: 'req-1',
  updatedAt: t0,
  noChange: Object.freeze({ objectUid: 'uid-1', resourceVersion: '12340', intentHash: 'sha256:9c1d' }),
});

const minimal: Checkpoint = Object.freeze({
  observedGeneration: 1,
  inputHash: 'sha256:0001',
  resourceVersion: '1',
  result: 'Success',
  attempts: 0,
  lastPassId: 'req-2',
  updatedAt: t0 + 1,
});

async function getRow(key: CheckpointKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await ctx.store.documents.send(
    new GetCommand({
      TableName: ctx.store.tableName,
      Key: primaryKeyOf(key, recordKinds.checkpoint),
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('getCheckpoint and recordCheckpoint', () => {
  test('returns undefined for an object that has no checkpoint yet', async () => {
    assert.equal(await getCheckpoint(ctx.store, keyFor('never')), undefined);
  });

  const roundTrips = [
    { name: 'round-trips a checkpoint with every field set', checkpoint: full },
    { name: 'round-trips a checkpoint without the optional fields and adds none', checkpoint: minimal },
  ];
  for (const c of roundTrips) {
    test(c.name, async () => {
      const key = keyFor(`round-trip-${c.checkpoint.lastPassId}`);
      await recordCheckpoint(ctx.store, key, c.checkpoint);
      assert.deepEqual(await getCheckpoint(ctx.store, key), c.checkpoint);
    });
  }

  test('keeps checkpoints of objects with the same name in other namespaces and controllers apart', async () => {
    const keys: CheckpointKey[] = [
      { controller: 'topology', namespace: 'ns-a', name: 'same' },
      { controller: 'topology', namespace: 'ns-b', name: 'same' },
      { controller: 'addons', namespace: 'ns-a', name: 'same' },
      { controller: 'providers', namespace: '', name: 'same' },
    ];
    for (const [i, key] of keys.entries()) {
      await recordCheckpoint(ctx.store, key, { ...minimal, observedGeneration: i + 1 });
    }
    for (const [i, key] of keys.entries()) {
      assert.equal((await getCheckpoint(ctx.store, key))?.observedGeneration, i + 1);
    }
  });

  test('replaces the previous checkpoint, dropping fields the new one does not have', async () => {
    const key = keyFor('replace');
    await recordCheckpoint(ctx.store, key, full);
    const success: Checkpoint = { ...minimal, observedGeneration: 8, lastPassId: 'req-3', updatedAt: t0 + 60_000 };
    await recordCheckpoint(ctx.store, key, success);
    const stored = await getCheckpoint(ctx.store, key);
    assert.deepEqual(stored, success);
    assert.equal(stored?.lastError, undefined);
    assert.equal(stored?.noChange, undefined);
  });

  test('writes the TTL attribute as updatedAt in seconds plus the retention', async () => {
    const key = keyFor('ttl');
    await recordCheckpoint(ctx.store, key, full);
    const row = await getRow(key);
    assert.equal(row?.[tableAttributes.pk], 'topology#default/ttl');
    assert.equal(row?.[tableAttributes.sk], 'checkpoint');
    assert.equal(row?.[tableAttributes.expiresAt], Math.floor(t0 / 1000) + defaultCheckpointRetentionSeconds);
  });

  test('uses the retention the store was built with', async () => {
    const store = createCheckpointStore({
      client: ctx.store.client,
      tableName: ctx.store.tableName,
      checkpointRetentionSeconds: 3_600,
    });
    const key = keyFor('ttl-short');
    await recordCheckpoint(store, key, minimal);
    assert.equal((await getRow(key))?.[tableAttributes.expiresAt], Math.floor((t0 + 1) / 1000) + 3_600);
  });

  test('refuses to write a checkpoint that does not match the schema and writes nothing', async () => {
    const key = keyFor('invalid-write');
    const bad = { ...minimal, attempts: -1 } as Checkpoint;
    await assert.rejects(recordCheckpoint(ctx.store, key, bad), (err) => {
      assert.ok(err instanceof CheckpointStoreError);
      assert.match(
        err.message,
        /^failed to record checkpoint topology#default\/invalid-write: checkpoint does not match/,
      );
      assert.match(err.message, /attempts/);
      return true;
    });
    assert.equal(await getRow(key), undefined);
  });

  test('refuses to read a stored row that does not parse, naming the key and the field', async () => {
    const key = keyFor('corrupt');
    await ctx.store.documents.send(
      new PutCommand({
        TableName: ctx.store.tableName,
        Item: { ...primaryKeyOf(key, recordKinds.checkpoint), ...minimal, result: 'Exploded' },
      }),
    );
    await assert.rejects(getCheckpoint(ctx.store, key), (err) => {
      assert.ok(err instanceof CheckpointStoreError);
      assert.equal(err.operation, 'get checkpoint');
      assert.match(err.message, /^failed to get checkpoint topology#default\/corrupt: stored row does not match/);
      assert.match(err.message, /result/);
      return true;
    });
  });

  test('maps a DynamoDB failure to CheckpointStoreError naming the operation and the key', async () => {
    const missing = createCheckpointStore({ client: ctx.store.client, tableName: 'no-such-table' });
    const key = keyFor('nowhere');
    for (const run of [() => getCheckpoint(missing, key), () => recordCheckpoint(missing, key, minimal)]) {
      await assert.rejects(run(), (err) => {
        assert.ok(err instanceof CheckpointStoreError);
        assert.match(err.message, /^failed to (get|record) checkpoint topology#default\/nowhere: /);
        assert.equal(err.objectName, 'nowhere');
        assert.equal(err.namespace, 'default');
        assert.ok(err.cause instanceof Error);
        return true;
      });
    }
  });
});

describe('recordCheckpoint with a lease holder', () => {
  test('records while the caller holds the lease', async () => {
    const key = keyFor('fenced-own');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs: 60_000, now: t0 });
    await recordCheckpoint(ctx.store, key, minimal, { leaseHolder: 'pass-1' });
    assert.deepEqual(await getCheckpoint(ctx.store, key), minimal);
  });

  test('refuses to record for a pass that lost its lease, naming the new holder, and keeps the newer checkpoint', async () => {
    const key = keyFor('fenced-lost');
    await acquireLease(ctx.store, key, 'new-pass', { ttlMs: 60_000, now: t0 });
    await recordCheckpoint(ctx.store, key, minimal, { leaseHolder: 'new-pass' });
    await assert.rejects(recordCheckpoint(ctx.store, key, full, { leaseHolder: 'old-pass' }), (err) => {
      assert.ok(err instanceof LeaseHeldError);
      assert.equal(err.holder, 'new-pass');
      assert.equal(err.expiresAtMs, t0 + 60_000);
      assert.equal(err.operation, 'record checkpoint');
      return true;
    });
    assert.deepEqual(await getCheckpoint(ctx.store, key), minimal);
  });

  test('refuses to record when no lease exists at all', async () => {
    const key = keyFor('fenced-none');
    await assert.rejects(recordCheckpoint(ctx.store, key, minimal, { leaseHolder: 'pass-1' }), (err) => {
      assert.ok(err instanceof LeaseHeldError);
      assert.equal(err.holder, undefined);
      return true;
    });
    assert.equal(await getRow(key), undefined);
  });
});

describe('ensureTable', () => {
  test('creates an on-demand table keyed by pk and sk with TTL on expiresAt, and is idempotent', async () => {
    await ensureTable(ctx.store);
    await Promise.all([ensureTable(ctx.store), ensureTable(ctx.store)]);
    const { Table } = await ctx.store.client.send(new DescribeTableCommand({ TableName: ctx.store.tableName }));
    assert.deepEqual(Table?.KeySchema, [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    assert.equal(Table?.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');
    const ttl = await ctx.store.client.send(new DescribeTimeToLiveCommand({ TableName: ctx.store.tableName }));
    assert.equal(ttl.TimeToLiveDescription?.TimeToLiveStatus, 'ENABLED');
    assert.equal(ttl.TimeToLiveDescription?.AttributeName, 'expiresAt');
  });

  test('creates a missing table from scratch, racing with itself', async () => {
    const fresh = createCheckpointStore({ client: ctx.store.client, tableName: `${ctx.store.tableName}-fresh` });
    await Promise.all([ensureTable(fresh), ensureTable(fresh)]);
    await recordCheckpoint(fresh, keyFor('fresh'), minimal);
    assert.deepEqual(await getCheckpoint(fresh, keyFor('fresh')), minimal);
  });
});
