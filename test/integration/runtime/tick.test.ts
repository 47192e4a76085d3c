// The tick and the local bus on the real servers: the first tick sweeps (lists) and reconciles what has no
// checkpoint; an idle tick between sweeps sends nothing to the API server and reads only the due index; a sweep
// passes over nothing that is up to date; retries, requeues and passes that died are found through the due index
// without listing; a gone object leaves the index; the local bus routes an object change to the handler.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  acquireLease,
  dueShardCount,
  dueShardOf,
  dueShardOfKey,
  dueShardsOf,
  getCheckpoint,
  listDueObjects,
  partitionKeyOf,
  primaryKeyOf,
  recordKinds,
  tableAttributes,
  type Controller,
} from '#shared/checkpoint/index.ts';
import { deleteObject } from '#shared/kube/index.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createLocalBus } from '#shared/runtime/local-bus.ts';
import { createConfigMapReconciler } from './configmap-reconciler.ts';
import { putSource, resetCounters, useRuntimeServers, writeCommands } from './setup.ts';

const sweepIntervalMs = 3_600_000;
const ctx = useRuntimeServers({ SWEEP_INTERVAL_MS: String(sweepIntervalMs) });
const logger = new Logger({ serviceName: 'runtime-test', logLevel: 'SILENT' });
const names = ['tick-a', 'tick-b', 'tick-c'];
const keyOf = (name: string) => ({ controller: 'addons', kind: 'ConfigMap', namespace: 'default', name }) as const;

function handler() {
  return createControllerHandler({
    reconciler: createConfigMapReconciler(),
    logger,
    getDeps: () => Promise.resolve(ctx.deps),
  });
}

async function tick(): Promise<Extract<HandlerResult, { status: 'Handled' }>> {
  const result = await handler()(
    tickEvent('addons', `tick-${ctx.clock.now}`, new Date(ctx.clock.now)),
    localLambdaContext('addons', 60_000),
  );
  assert.equal(result.status, 'Handled', JSON.stringify(result));
  return result as Extract<HandlerResult, { status: 'Handled' }>;
}

/** Waits until the (eventually consistent) due index shows what the table says. */
async function dueNames(): Promise<string[]> {
  const due = await listDueObjects(ctx.store, 'addons', 'ConfigMap', ctx.clock.now + 10 * sweepIntervalMs);
  return due.map((d) => d.key.name).sort();
}

describe('tick and local bus on the real servers', () => {
  test('the first tick sweeps: it lists the kind and runs a pass over every object that has no checkpoint', async () => {
    for (const name of names) await putSource(ctx, name, { value: name });
    const result = await tick();
    assert.equal(result.tick?.swept, true);
    assert.deepEqual(result.tick?.reasons, { NoCheckpoint: 3 });
    assert.deepEqual(
      result.passes.map((p) => [p.key.name, p.status, p.result]),
      names.map((n) => [n, 'Ran', 'Success']),
    );
    assert.deepEqual(await dueNames(), [], 'successful passes leave nothing in the due index');
  });

  test('an idle tick between sweeps sends nothing to the API server and one index query, writing nothing', async () => {
    ctx.clock.now += 60_000;
    resetCounters(ctx);
    const result = await tick();
    assert.deepEqual(result.passes, []);
    assert.equal(result.tick?.swept, false);
    assert.deepEqual(result.tick?.reasons, {});
    assert.deepEqual(ctx.kubeLog.records, []);
    assert.deepEqual(ctx.ddbCommands, ['QueryCommand', 'GetItemCommand']);
  });

  test('the next sweep lists once and, the LIST unchanged since a sweep that left nothing undone, reads no checkpoint', async () => {
    ctx.clock.now += sweepIntervalMs;
    resetCounters(ctx);
    const result = await tick();
    assert.equal(result.tick?.swept, true);
    assert.deepEqual(result.tick?.unchangedKinds, ['ConfigMap']);
    assert.deepEqual(result.tick?.reasons, { UpToDate: 3 });
    assert.deepEqual(result.passes, []);
    assert.deepEqual(
      ctx.kubeLog.records.map((r) => `${r.method} ${r.path}`),
      ['GET /api/v1/configmaps'],
    );
    // NOTE: pages of 500 (metadata only, see listObjectMetadata): a sweep never holds a whole kind's objects.
    assert.match(ctx.kubeLog.records[0]?.query ?? '', /[?&]limit=500(&|$)/);
    assert.deepEqual(ctx.ddbCommands, ['QueryCommand', 'GetItemCommand', 'PutItemCommand']);
  });

  test('a sweep whose LIST changed (an object was missed) reads the checkpoints in one batch and passes over it', async () => {
    // NOTE: an object created without any event reaching the handler: only the sweep can find it.
    await putSource(ctx, 'tick-missed', { value: 'missed' });
    ctx.clock.now += sweepIntervalMs;
    resetCounters(ctx);
    const result = await tick();
    assert.deepEqual(result.tick?.unchangedKinds, []);
    assert.deepEqual(result.tick?.reasons, { UpToDate: 3, NoCheckpoint: 1 });
    assert.deepEqual(
      result.passes.map((p) => [p.key.name, p.status, p.result]),
      [['tick-missed', 'Ran', 'Success']],
    );
    assert.ok(ctx.ddbCommands.includes('BatchGetItemCommand'), ctx.ddbCommands.join());
    assert.ok(ctx.ddbCommands.includes('UpdateItemCommand'), 'the new LIST is recorded as done');

    ctx.clock.now += sweepIntervalMs;
    resetCounters(ctx);
    const next = await tick();
    assert.deepEqual(next.tick?.unchangedKinds, ['ConfigMap']);
    assert.deepEqual(next.passes, []);
    assert.deepEqual(ctx.ddbCommands, ['QueryCommand', 'GetItemCommand', 'PutItemCommand']);
    await deleteObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'tick-missed',
    });
  });

  test('a sweep after a deferred pass reads the checkpoints again (its LIST is not recorded as done)', async () => {
    await putSource(ctx, 'tick-deferred', { value: 'deferred' });
    ctx.clock.now += sweepIntervalMs;
    // NOTE: a Lambda context with too little time left for any pass: every due pass is deferred.
    const short = await handler()(
      tickEvent('addons', `tick-short-${ctx.clock.now}`, new Date(ctx.clock.now)),
      localLambdaContext('addons', 1_000),
    );
    assert.equal(short.status, 'Handled');
    if (short.status === 'Handled') assert.ok((short.tick?.deferred ?? 0) >= 1, JSON.stringify(short.tick));
    ctx.clock.now += sweepIntervalMs;
    const result = await tick();
    assert.deepEqual(result.tick?.unchangedKinds, []);
    assert.ok(
      result.passes.some((p) => p.key.name === 'tick-deferred' && p.status === 'Ran'),
      JSON.stringify(result.passes.map((p) => p.key.name)),
    );
    await deleteObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'tick-deferred',
    });
  });

  test('a failed pass is retried through the due index once its backoff expires, with no LIST', async () => {
    await putSource(ctx, 'tick-b', { value: 'b', fail: 'boom' });
    // The event about the change: run the pass the way the bus would.
    const bus = createLocalBus({ handlers: { addons: handler() } });
    await bus.putEvents([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-b', type: 'MODIFIED' },
    ]);
    await bus.stop();
    const failed = await getCheckpoint(ctx.store, keyOf('tick-b'));
    assert.equal(failed?.result, 'Error');
    assert.deepEqual(await dueNames(), ['tick-b']);

    resetCounters(ctx);
    const early = await tick();
    assert.deepEqual(early.passes, [], 'still backing off');

    await putSource(ctx, 'tick-b', { value: 'b' });
    ctx.clock.now = (failed?.nextAttemptAt ?? 0) + 1;
    resetCounters(ctx);
    const retried = await tick();
    assert.deepEqual(retried.tick?.reasons, { RetryDue: 1 });
    assert.deepEqual(
      retried.passes.map((p) => [p.key.name, p.status, p.result]),
      [['tick-b', 'Ran', 'Success']],
    );
    assert.ok(!ctx.kubeLog.records.some((r) => r.method === 'GET' && r.path === '/api/v1/configmaps'), 'no LIST');
    assert.deepEqual(await dueNames(), []);
  });

  test('a pass that died holding its lease is found once the lease lapses and runs forced', async () => {
    // A change; its pass takes the lease and dies. Taking the lease of a settled row writes no due index entry.
    await putSource(ctx, 'tick-c', { value: 'c2' });
    await acquireLease(ctx.store, keyOf('tick-c'), 'a-pass-that-died', { ttlMs: 5_000, now: ctx.clock.now });
    assert.deepEqual(await dueNames(), [], 'a held lease alone is not in the due index');
    // Lambda retries the failed invocation: its pass finds the lease held and asks the holder to run again, which
    // puts the row in the due index at the lease's expiry.
    const bus = createLocalBus({ handlers: { addons: handler() } });
    await bus.putEvents([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-c', type: 'MODIFIED' },
    ]);
    await bus.stop();
    assert.deepEqual(await dueNames(), ['tick-c']);
    const before = await tick();
    assert.deepEqual(before.passes, [], 'the lease has not lapsed yet');
    ctx.clock.now += 6_000;
    const result = await tick();
    assert.deepEqual(result.tick?.reasons, { LeaseLapsed: 1 });
    assert.deepEqual(
      result.passes.map((p) => [p.key.name, p.status, p.result]),
      [['tick-c', 'Ran', 'Success']],
    );
    assert.deepEqual(await dueNames(), [], 'the new pass released the lease');
  });

  test('a deleted object with a pending retry leaves the due index after one tick', async () => {
    await putSource(ctx, 'tick-gone', { fail: 'boom' });
    const bus = createLocalBus({ handlers: { addons: handler() } });
    await bus.putEvents([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-gone', type: 'ADDED' },
    ]);
    await bus.stop();
    assert.deepEqual(await dueNames(), ['tick-gone']);
    await deleteObject(ctx.mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-gone' });
    ctx.clock.now += 120_000;
    resetCounters(ctx);
    const result = await tick();
    assert.deepEqual(
      result.passes.map((p) => [p.key.name, p.status, p.reason]),
      [['tick-gone', 'Skipped', 'NotFound']],
    );
    assert.ok(
      ctx.ddbCommands.some((c) => writeCommands.has(c)),
      'the rows are deleted',
    );
    assert.deepEqual(await dueNames(), []);
    assert.equal(await getCheckpoint(ctx.store, keyOf('tick-gone')), undefined);
  });

  test('the local bus routes a ConfigMap change to the addons handler and reports the pass', async () => {
    await putSource(ctx, 'tick-a', { value: 'changed' });
    const results: [Controller, HandlerResult][] = [];
    const bus = createLocalBus({ handlers: { addons: handler() }, onResult: (c, _e, r) => results.push([c, r]) });
    const failed = await bus.putEvents([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-a', type: 'MODIFIED' },
    ]);
    assert.deepEqual(failed, []);
    await bus.stop();
    assert.equal(results.length, 1);
    const [controller, result] = results[0] ?? [];
    assert.equal(controller, 'addons');
    assert.equal(result?.status, 'Handled');
    if (result?.status === 'Handled') {
      assert.deepEqual(
        result.passes.map((p) => [p.status, p.changed]),
        [['Ran', ['applied ConfigMap default/tick-a-derived']]],
      );
    }
  });

  test('Clusters spread over the due index shards, and Cluster rows written before sharding are still found', async () => {
    // NOTE: 24 Clusters due, with the attributes a pass records, and one row as the unsharded index wrote it; a
    // tick's query names each one once, whatever its partition (8 shards and the old one: 9 Queries).
    const now = ctx.clock.now;
    const clusterKey = (name: string) =>
      ({ controller: 'topology', kind: 'Cluster', namespace: 'fleet', name }) as const;
    const keys = Array.from({ length: 24 }, (_, i) => clusterKey(`c-${i}`));
    const put = (key: ReturnType<typeof clusterKey>, dueShard: string) =>
      ctx.store.documents.send(
        new PutCommand({
          TableName: ctx.store.tableName,
          Item: {
            ...primaryKeyOf(key, recordKinds.checkpoint),
            [tableAttributes.dueShard]: dueShard,
            [tableAttributes.dueAtMs]: now - 1_000,
          },
        }),
      );
    for (const key of keys) await put(key, dueShardOfKey(key));
    const legacy = clusterKey('written-before-sharding');
    await put(legacy, dueShardOf('topology', 'Cluster'));
    const shardsUsed = new Set(keys.map((k) => dueShardOfKey(k)));
    assert.ok(shardsUsed.size >= dueShardCount / 2, `24 Clusters in ${shardsUsed.size} shards`);

    let found: string[] = [];
    for (let i = 0; i < 50; i++) {
      resetCounters(ctx);
      found = (await listDueObjects(ctx.store, 'topology', 'Cluster', now)).map((d) => partitionKeyOf(d.key)).sort();
      if (found.length === keys.length + 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(found, [...keys, legacy].map((k) => partitionKeyOf(k)).sort());
    // NOTE: and one BatchGetItem of the due rows' lease attributes: a row due for its checkpoint or for a lapsed lease.
    assert.deepEqual(ctx.ddbCommands, [
      ...dueShardsOf('topology', 'Cluster').map(() => 'QueryCommand'),
      'BatchGetItemCommand',
    ]);
    assert.equal(ctx.ddbCommands.length, dueShardCount + 2);
  });
});
