import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  LeaseHeldError,
  acquireLease,
  lapsedLeaseRetentionSeconds,
  primaryKeyOf,
  recordKinds,
  releaseLease,
  renewLease,
  tableAttributes,
} from '#shared/checkpoint/index.ts';
import type { CheckpointKey, Lease } from '#shared/checkpoint/index.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { useCheckpointStore } from './setup.ts';

const ctx = useCheckpointStore('lease');
// NOTE: a real "now": DynamoDB Local runs TTL deletion, so rows stamped in the past could vanish mid-test.
const t0 = Math.floor(Date.now() / 1000) * 1000;
const ttlMs = 60_000;

function keyFor(name: string): CheckpointKey {
  return { controller: 'topology', namespace: 'default', name };
}

async function rejectsWithHolder(promise: Promise<unknown>, holder: string | undefined): Promise<LeaseHeldError> {
  const err: unknown = await promise.then(
    () => assert.fail('expected a LeaseHeldError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof LeaseHeldError, `expected LeaseHeldError, got ${String(err)}`);
  assert.equal(err.holder, holder);
  return err;
}

describe('acquireLease', () => {
  test('lets exactly one of several concurrent acquirers win and tells each loser who won', async () => {
    for (let round = 0; round < 5; round++) {
      const key = keyFor(`race-${round}`);
      const holders = ['pass-a', 'pass-b', 'pass-c'];
      const results = await Promise.allSettled(
        holders.map((holder, i) => acquireLease(ctx.store, key, holder, { ttlMs, now: t0 + i })),
      );
      const winners = results.filter((r): r is PromiseFulfilledResult<Lease> => r.status === 'fulfilled');
      assert.equal(winners.length, 1, `round ${round}: exactly one winner`);
      const winner = winners[0]!.value;
      for (const result of results) {
        if (result.status === 'fulfilled') continue;
        const err: unknown = result.reason;
        assert.ok(err instanceof LeaseHeldError, `round ${round}: loser got ${String(err)}`);
        assert.equal(err.holder, winner.holder);
        assert.equal(err.expiresAtMs, winner.expiresAtMs);
        assert.equal(err.operation, 'acquire lease');
        assert.match(
          err.message,
          /^failed to acquire lease topology#default\/race-\d for pass-.: held by pass-. until /,
        );
      }
    }
  });

  test('takes over a lease whose holder let it lapse, says whose, and the old holder can no longer renew it', async () => {
    const key = keyFor('takeover');
    await acquireLease(ctx.store, key, 'old', { ttlMs, now: t0 });
    const lease = await acquireLease(ctx.store, key, 'new', { ttlMs, now: t0 + ttlMs + 1 });
    assert.deepEqual(lease, {
      key,
      holder: 'new',
      acquiredAtMs: t0 + ttlMs + 1,
      expiresAtMs: t0 + 2 * ttlMs + 1,
      lapsedHolder: 'old',
      // NOTE: the row the lease write replaced held a lease and no checkpoint.
      atLease: { checkpoint: undefined },
    });
    const err = await rejectsWithHolder(renewLease(ctx.store, key, 'old', { ttlMs, now: t0 + ttlMs + 2 }), 'new');
    assert.equal(err.expiresAtMs, t0 + 2 * ttlMs + 1);
  });

  test('still refuses a lease at the very millisecond it expires', async () => {
    const key = keyFor('boundary');
    await acquireLease(ctx.store, key, 'first', { ttlMs, now: t0 });
    await rejectsWithHolder(acquireLease(ctx.store, key, 'second', { ttlMs, now: t0 + ttlMs }), 'first');
  });

  test('lets the holder acquire its own lease again and moves the expiry', async () => {
    const key = keyFor('reacquire');
    await acquireLease(ctx.store, key, 'me', { ttlMs, now: t0 });
    const again = await acquireLease(ctx.store, key, 'me', { ttlMs, now: t0 + 10 });
    assert.equal(again.expiresAtMs, t0 + 10 + ttlMs);
    const err = await rejectsWithHolder(acquireLease(ctx.store, key, 'other', { ttlMs, now: t0 + 20 }), 'me');
    assert.equal(err.expiresAtMs, t0 + 10 + ttlMs);
  });

  test("writes the lease onto the object's row, its TTL in epoch seconds a checkpoint's retention away", async () => {
    const key = keyFor('ttl');
    await acquireLease(ctx.store, key, 'me', { ttlMs: 1_500, now: t0 + 1 });
    const { Item } = await ctx.store.documents.send(
      new GetCommand({
        TableName: ctx.store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        ConsistentRead: true,
      }),
    );
    assert.deepEqual(Item, {
      [tableAttributes.pk]: 'topology#default/ttl',
      [tableAttributes.sk]: 'checkpoint',
      [tableAttributes.holder]: 'me',
      [tableAttributes.acquiredAtMs]: t0 + 1,
      [tableAttributes.expiresAtMs]: t0 + 1_501,
      [tableAttributes.expiresAt]: Math.max(
        Math.ceil((t0 + 1_501) / 1000) + lapsedLeaseRetentionSeconds,
        Math.floor((t0 + 1) / 1000) + ctx.store.checkpointRetentionSeconds,
      ),
    });
  });

  const invalid = [
    { name: 'rejects an empty holder', holder: '', ttl: ttlMs, now: t0, field: 'holder' },
    { name: 'rejects a zero ttl', holder: 'me', ttl: 0, now: t0, field: 'ttlMs' },
    { name: 'rejects a fractional time', holder: 'me', ttl: ttlMs, now: t0 + 0.5, field: 'now' },
  ];
  for (const c of invalid) {
    test(c.name, async () => {
      await assert.rejects(
        acquireLease(ctx.store, keyFor('invalid'), c.holder, { ttlMs: c.ttl, now: c.now }),
        (err) => {
          assert.ok(err instanceof ValidationError);
          assert.equal(err.fieldPath, c.field);
          return true;
        },
      );
    });
  }
});

describe('renewLease', () => {
  test('extends the lease its holder has, so a later acquirer sees the new expiry', async () => {
    const key = keyFor('renew');
    const first = await acquireLease(ctx.store, key, 'me', { ttlMs, now: t0 });
    const renewed = await renewLease(ctx.store, key, 'me', { ttlMs, now: t0 + 50_000 });
    assert.deepEqual(renewed, {
      key,
      holder: 'me',
      acquiredAtMs: first.acquiredAtMs,
      expiresAtMs: t0 + 50_000 + ttlMs,
    });
    // Past the first expiry, before the renewed one.
    const err = await rejectsWithHolder(acquireLease(ctx.store, key, 'other', { ttlMs, now: t0 + ttlMs + 1 }), 'me');
    assert.equal(err.expiresAtMs, t0 + 50_000 + ttlMs);
  });

  test('renews a lapsed lease nobody else took', async () => {
    const key = keyFor('renew-lapsed');
    await acquireLease(ctx.store, key, 'me', { ttlMs, now: t0 });
    const renewed = await renewLease(ctx.store, key, 'me', { ttlMs, now: t0 + 2 * ttlMs });
    assert.equal(renewed.expiresAtMs, t0 + 3 * ttlMs);
  });

  test('refuses to renew a lease someone else holds', async () => {
    const key = keyFor('renew-other');
    await acquireLease(ctx.store, key, 'owner', { ttlMs, now: t0 });
    const err = await rejectsWithHolder(renewLease(ctx.store, key, 'intruder', { ttlMs, now: t0 + 1 }), 'owner');
    assert.equal(err.operation, 'renew lease');
  });

  test('refuses to renew a lease that does not exist, saying none is held', async () => {
    const err = await rejectsWithHolder(
      renewLease(ctx.store, keyFor('renew-missing'), 'me', { ttlMs, now: t0 }),
      undefined,
    );
    assert.match(err.message, /: no lease is held$/);
  });
});

describe('releaseLease', () => {
  test('refuses a release by a non-holder and keeps the lease with its holder', async () => {
    const key = keyFor('release-other');
    await acquireLease(ctx.store, key, 'owner', { ttlMs, now: t0 });
    const err = await rejectsWithHolder(releaseLease(ctx.store, key, 'intruder'), 'owner');
    assert.equal(err.operation, 'release lease');
    await rejectsWithHolder(acquireLease(ctx.store, key, 'third', { ttlMs, now: t0 + 1 }), 'owner');
  });

  test('frees the lease for the next acquirer at once when its holder releases it', async () => {
    const key = keyFor('release-own');
    await acquireLease(ctx.store, key, 'owner', { ttlMs, now: t0 });
    await releaseLease(ctx.store, key, 'owner');
    const next = await acquireLease(ctx.store, key, 'next', { ttlMs, now: t0 + 1 });
    assert.equal(next.holder, 'next');
    assert.equal(next.lapsedHolder, undefined, 'a released lease is no lapsed one');
  });

  test('treats releasing a lease that no longer exists as done', async () => {
    const key = keyFor('release-missing');
    await releaseLease(ctx.store, key, 'anyone');
    const lease = await acquireLease(ctx.store, key, 'anyone', { ttlMs, now: t0 });
    assert.equal(lease.holder, 'anyone');
  });
});
