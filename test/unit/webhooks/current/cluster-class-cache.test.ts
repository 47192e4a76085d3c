import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { createClusterClassCache } from '#shared/webhooks/current/cluster-class-cache.ts';
import { ClusterClassBuilder } from '#test/support/builders/topology.ts';

const key = { namespace: 'default', name: 'quick-start' };

/** A cache on a clock the test moves, and a loader that counts its reads. */
function setup(ttlMs = 5_000, exists = true) {
  const found = exists ? new ClusterClassBuilder('quick-start').build() : undefined;
  let clock = 1_000;
  let reads = 0;
  const cache = createClusterClassCache({ ttlMs, now: () => clock });
  const load = async () => {
    reads++;
    return found;
  };
  return {
    cache,
    get: () => cache.get(key, load),
    advance: (ms: number) => (clock += ms),
    reads: () => reads,
  };
}

describe('createClusterClassCache', () => {
  test('reads a class once for two admissions within the TTL', async () => {
    const c = setup();
    await c.get();
    c.advance(4_999);
    await c.get();
    assert.equal(c.reads(), 1);
  });

  test('reads it again once the TTL has passed', async () => {
    const c = setup();
    await c.get();
    c.advance(5_000);
    await c.get();
    assert.equal(c.reads(), 2);
  });

  test('shares a read in flight between concurrent admissions', async () => {
    const c = setup();
    await Promise.all([c.get(), c.get(), c.get()]);
    assert.equal(c.reads(), 1);
  });

  test('gives each caller its own copy, so one admission cannot change what the next reads', async () => {
    const c = setup();
    const first = await c.get();
    if (first) first.spec.variables = [];
    const second = await c.get();
    assert.notDeepEqual(second?.spec.variables, []);
    assert.notEqual(first, second);
  });

  test('does not keep a class that does not exist (a Cluster created right after its class is admitted)', async () => {
    const c = setup(5_000, false);
    assert.equal(await c.get(), undefined);
    await c.get();
    assert.equal(c.reads(), 2);
  });

  test('does not keep a failed read', async () => {
    let reads = 0;
    const cache = createClusterClassCache({ ttlMs: 5_000, now: () => 0 });
    const failing = async (): Promise<ClusterClass | undefined> => {
      reads++;
      throw new Error('connection reset');
    };
    await assert.rejects(cache.get(key, failing), /connection reset/);
    await assert.rejects(cache.get(key, failing), /connection reset/);
    assert.equal(reads, 2);
  });

  test('reads afresh for one TTL after a write of the class is admitted', async () => {
    const c = setup();
    await c.get();
    c.cache.forget(key);
    await c.get();
    await c.get();
    assert.equal(c.reads(), 3);
    c.advance(5_000);
    await c.get();
    await c.get();
    assert.equal(c.reads(), 4);
  });

  test('reads on every admission with a TTL of 0', async () => {
    const c = setup(0);
    await c.get();
    await c.get();
    assert.equal(c.reads(), 2);
  });

  test('refuses a negative TTL when built', () =>
    assert.throws(() => createClusterClassCache({ ttlMs: -1 }), /ttlMs must be 0 or more/));
});
