// recordCheckpointAndReleaseLease against DynamoDB Local: one conditional UpdateItem writes the checkpoint onto the
// object's row and removes the lease from it; a holder that lost its lease writes nothing and learns who holds it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  CheckpointStoreError,
  LeaseHeldError,
  acquireLease,
  getCheckpoint,
  leaseAttributes,
  primaryKeyOf,
  recordCheckpointAndReleaseLease,
  recordKinds,
  releaseLease,
  requestRerun,
} from '#shared/checkpoint/index.ts';
import type { Checkpoint, CheckpointKey } from '#shared/checkpoint/index.ts';
import { useCheckpointStore } from './setup.ts';

const ctx = useCheckpointStore('record-release');
// NOTE: a real "now": DynamoDB Local runs TTL deletion, so rows stamped in the past could vanish mid-test.
const t0 = Math.floor(Date.now() / 1000) * 1000;
const ttlMs = 60_000;

const keyFor = (name: string): CheckpointKey => ({ controller: 'topology', namespace: 'default', name });

const checkpointOf = (passId: string): Checkpoint =>
  Object.freeze({
    observedGeneration: 2,
    inputHash: 'sha256:abcd',
    resourceVersion: '42',
    result: 'Success',
    attempts: 0,
    lastPassId: passId,
    updatedAt: t0,
    noChange: Object.freeze({ objectUid: 'uid-1', resourceVersion: '42', intentHash: 'sha256:ef01' }),
  });

/** The lease attributes of the object's row (the row also holds its checkpoint), or undefined when none is held. */
async function leaseRow(key: CheckpointKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await ctx.store.documents.send(
    new GetCommand({
      TableName: ctx.store.tableName,
      Key: primaryKeyOf(key, recordKinds.checkpoint),
      ConsistentRead: true,
    }),
  );
  const lease = Object.fromEntries(
    Object.entries(Item ?? {}).filter(([name]) => (leaseAttributes as readonly string[]).includes(name)),
  );
  return Object.keys(lease).length > 0 ? lease : undefined;
}

describe('recordCheckpointAndReleaseLease', () => {
  test("writes the checkpoint and removes its holder's lease from the row in one request", async () => {
    const key = keyFor('released');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    const sent: string[] = [];
    ctx.store.client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countRecordAndRelease' },
    );
    try {
      await recordCheckpointAndReleaseLease(ctx.store, key, checkpointOf('pass-1'), 'pass-1');
    } finally {
      ctx.store.client.middlewareStack.remove('countRecordAndRelease');
    }
    assert.deepEqual(sent, ['UpdateItemCommand']);
    assert.deepEqual(await getCheckpoint(ctx.store, key), checkpointOf('pass-1'));
    assert.equal(await leaseRow(key), undefined, 'the lease is gone');
    await acquireLease(ctx.store, key, 'pass-2', { ttlMs, now: t0 + 1 });
  });

  test('writes nothing when another pass holds the lease and names that holder', async () => {
    const key = keyFor('taken');
    await acquireLease(ctx.store, key, 'pass-old', { ttlMs: 1, now: t0 });
    await acquireLease(ctx.store, key, 'pass-new', { ttlMs, now: t0 + 10 });
    const err: unknown = await recordCheckpointAndReleaseLease(
      ctx.store,
      key,
      checkpointOf('pass-old'),
      'pass-old',
    ).then(
      () => assert.fail('expected a LeaseHeldError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof LeaseHeldError, String(err));
    assert.equal(err.holder, 'pass-new');
    assert.equal(await getCheckpoint(ctx.store, key), undefined, 'no checkpoint written');
    assert.equal((await leaseRow(key))?.['holder'], 'pass-new', 'the new holder keeps its lease');
  });

  test('writes nothing when no lease is held at all', async () => {
    const key = keyFor('unleased');
    const err: unknown = await recordCheckpointAndReleaseLease(ctx.store, key, checkpointOf('pass-x'), 'pass-x').then(
      () => assert.fail('expected a LeaseHeldError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof LeaseHeldError, String(err));
    assert.equal(err.holder, undefined);
    assert.equal(await getCheckpoint(ctx.store, key), undefined);
  });

  test('rejects a checkpoint that does not match the schema before sending anything', async () => {
    const key = keyFor('invalid');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    const invalid = { ...checkpointOf('pass-1'), attempts: -1 };
    await assert.rejects(recordCheckpointAndReleaseLease(ctx.store, key, invalid, 'pass-1'), CheckpointStoreError);
    assert.equal((await leaseRow(key))?.['holder'], 'pass-1', 'the lease is still held');
  });

  test('returns the "run again" request another pass left on the lease, still recording and releasing', async () => {
    const key = keyFor('rerun');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.equal(await requestRerun(ctx.store, key, { force: false, wake: true }, t0 + 1), true);
    // NOTE: flags only turn on: a later plain request keeps the earlier one's wake.
    assert.equal(await requestRerun(ctx.store, key, { force: false, wake: false }, t0 + 2), true);
    const rerun = await recordCheckpointAndReleaseLease(ctx.store, key, checkpointOf('pass-1'), 'pass-1');
    assert.deepEqual(rerun, { force: false, wake: true });
    assert.equal((await getCheckpoint(ctx.store, key))?.lastPassId, 'pass-1');
    assert.equal(await leaseRow(key), undefined, 'the lease is released');
  });

  test('the rerun request keeps every owned change the asking passes saw, for the rerun to judge against the new checkpoint', async () => {
    const key = keyFor('rerun-owned');
    const md0 = 'MachineDeployment default/md-0';
    const cp = 'KubeadmControlPlane default/cp';
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    const ask = (owned: { object: string; generation: number; metadata?: string }[], at: number) =>
      requestRerun(ctx.store, key, { force: false, wake: true, owned }, at);
    assert.equal(await ask([{ object: md0, generation: 4 }], t0 + 1), true);
    assert.equal(await ask([{ object: cp, generation: 2, metadata: 'Zx9-_a' }], t0 + 2), true);
    assert.equal(await ask([{ object: md0, generation: 4 }], t0 + 3), true);
    const rerun = await recordCheckpointAndReleaseLease(ctx.store, key, checkpointOf('pass-1'), 'pass-1');
    assert.deepEqual(
      {
        ...rerun,
        owned: [...(rerun?.owned ?? [])].sort((a, b) => (a.object < b.object ? -1 : 1)),
      },
      {
        force: false,
        wake: true,
        owned: [
          { object: cp, generation: 2, metadata: 'Zx9-_a' },
          { object: md0, generation: 4 },
        ],
      },
    );
    // The same through a plain release (document format rather than a failed condition's wire format).
    await acquireLease(ctx.store, key, 'pass-2', { ttlMs, now: t0 + 10 });
    assert.equal(await ask([{ object: md0, generation: 5 }], t0 + 11), true);
    assert.deepEqual(await releaseLease(ctx.store, key, 'pass-2'), {
      force: false,
      wake: true,
      owned: [{ object: md0, generation: 5 }],
    });
  });

  test('returns nothing when no pass asked for a rerun', async () => {
    const key = keyFor('no-rerun');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.equal(await recordCheckpointAndReleaseLease(ctx.store, key, checkpointOf('pass-1'), 'pass-1'), undefined);
  });

  test('a rerun cannot be asked of a lease that is free or lapsed: the asker takes the lease instead', async () => {
    const key = keyFor('rerun-free');
    assert.equal(await requestRerun(ctx.store, key, { force: true, wake: false }, t0), false);
    assert.equal(await leaseRow(key), undefined, 'asking creates no lease row');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.equal(await requestRerun(ctx.store, key, { force: true, wake: false }, t0 + ttlMs + 1), false);
    assert.equal((await leaseRow(key))?.['rerun'], undefined);
  });

  test('a plain release hands back the rerun request too', async () => {
    const key = keyFor('rerun-release');
    await acquireLease(ctx.store, key, 'pass-1', { ttlMs, now: t0 });
    assert.equal(await requestRerun(ctx.store, key, { force: true, wake: false }, t0 + 1), true);
    assert.deepEqual(await releaseLease(ctx.store, key, 'pass-1'), { force: true, wake: false });
    assert.equal(await leaseRow(key), undefined);
    assert.equal(await releaseLease(ctx.store, key, 'pass-1'), undefined, 'releasing again is a no-op');
  });
});
