// What one pass costs in DynamoDB writes, measured by DynamoDB Local itself: every write the pass protocol sends
// asks for ReturnConsumedCapacity INDEXES, and the test adds up the write units of the table and of the due index.
// The reconciler is a stub that reads nothing from Kubernetes: only the protocol's own requests are counted.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import type { KubeClient } from '#shared/kube/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createPassRunner } from '#shared/runtime/run-pass.ts';
import type { ObjectFacts, PassOutcome, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';
import { useCheckpointStore } from './setup.ts';

const ctx = useCheckpointStore('write-units');

/** Write units one group of requests consumed, split between the table and its indexes. */
type WriteUnits = { table: number; indexes: number; total: number; requests: string[] };

const writeCommands = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

type Capacity = {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
};

let measuring: WriteUnits | undefined;

/** Adds ReturnConsumedCapacity INDEXES to every write of the store's client and sums what DynamoDB reports. */
function installCapacityMeter(): void {
  ctx.store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? '').replace(/Command$/, '');
      const write = writeCommands.has(name);
      if (write) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      try {
        const result = await next(args);
        if (write) count(name, (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity);
        return result;
      } catch (err) {
        // NOTE: a failed condition is billed too (1 WCU); DynamoDB does not report it, so the meter charges it.
        if (write && measuring !== undefined) {
          measuring.requests.push(`${name} (failed)`);
          measuring.table += 1;
          measuring.total += 1;
        }
        throw err;
      }
    },
    { step: 'initialize', name: 'writeUnitsMeter' },
  );
}

function count(name: string, consumed: Capacity | Capacity[] | undefined): void {
  if (measuring === undefined) return;
  measuring.requests.push(name);
  for (const c of [consumed ?? []].flat()) {
    const indexes = Object.values(c.GlobalSecondaryIndexes ?? {}).reduce((sum, i) => sum + (i.CapacityUnits ?? 0), 0);
    measuring.table += c.Table?.CapacityUnits ?? 0;
    measuring.indexes += indexes;
    measuring.total += c.CapacityUnits ?? 0;
  }
}

async function measure<T>(run: () => Promise<T>): Promise<[T, WriteUnits]> {
  measuring = { table: 0, indexes: 0, total: 0, requests: [] };
  try {
    return [await run(), measuring];
  } finally {
    measuring = undefined;
  }
}

/** A reconciler over one imaginary object whose facts and outcome the test sets. */
function stubReconciler(state: { facts: ObjectFacts; outcome: PassOutcome }): Reconciler {
  return {
    controller: 'topology',
    kinds: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }],
    getFacts: () => Promise.resolve(state.facts),
    reconcile: () => Promise.resolve(state.outcome),
  };
}

const t0 = Math.floor(Date.now() / 1000) * 1000;

function depsOf(clock: { now: number }): RuntimeDeps {
  return {
    // NOTE: the stub reconciler never calls Kubernetes; the pass protocol itself does not either.
    kube: undefined as unknown as KubeClient,
    store: ctx.store,
    logger: new Logger({ serviceName: 'write-units', logLevel: 'SILENT' }),
    config: computeRuntimeConfig({}),
    now: () => clock.now,
    jitter: () => 0.5,
  };
}

function report(t: TestContext, what: string, units: WriteUnits): void {
  t.diagnostic(
    `${what}: ${units.total} WCU (table ${units.table}, due index ${units.indexes}) ${units.requests.join(', ')}`,
  );
}

describe('DynamoDB writes per pass (ReturnConsumedCapacity INDEXES)', () => {
  test('a settled pass writes 2 WCU to the table and none to the due index; a pass that asks to run again puts its row there, the pass it asked for takes it out', async (t) => {
    installCapacityMeter();
    const clock = { now: t0 };
    const state = {
      facts: { uid: 'uid-1', generation: 1, resourceVersion: '1', inputHash: 'sha256:a' } as ObjectFacts,
      outcome: { result: 'Success', changed: [] } as PassOutcome,
    };
    const run = createPassRunner(stubReconciler(state), depsOf(clock));
    const key = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'c1' };
    const pass = (trigger: string) => run({ key, trigger }, localLambdaContext('topology', 60_000));

    const [first, firstUnits] = await measure(() => pass('first'));
    assert.equal(first.status, 'Ran');
    report(t, 'first pass (no row yet), Success', firstUnits);
    assert.equal(firstUnits.indexes, 0, 'a new row that settles never enters the due index');

    clock.now += 1_000;
    const [skipped, skippedUnits] = await measure(() => pass('skip'));
    assert.deepEqual([skipped.status, skipped.reason], ['Skipped', 'UpToDate']);
    report(t, 'skipped pass (up to date)', skippedUnits);
    assert.equal(skippedUnits.total, 0, 'a skipped pass writes nothing');

    const change = async (what: string, result: PassOutcome) => {
      clock.now += 1_000;
      const version = String(Number(state.facts.resourceVersion) + 1);
      state.facts = { ...state.facts, resourceVersion: version, inputHash: `sha256:${version}` };
      state.outcome = result;
      const [ran, units] = await measure(() => pass(what));
      assert.deepEqual([ran.status, ran.result], ['Ran', result.result]);
      report(t, what, units);
      return [ran, units] as const;
    };
    const success: PassOutcome = { result: 'Success', changed: [] };
    const [, settledUnits] = await change('pass that runs, Success after Success (settled)', success);
    assert.deepEqual(
      settledUnits,
      { table: 2, indexes: 0, total: 2, requests: ['UpdateItem', 'UpdateItem'] },
      'two conditional UpdateItems, no transaction; the row stays out of the due index',
    );

    const [requeued, requeuedUnits] = await change('pass that runs, Requeue after Success', {
      result: 'Requeue',
      changed: [],
      requeueAfterMs: 30_000,
    } as PassOutcome);
    assert.deepEqual([requeuedUnits.table, requeuedUnits.indexes], [2, 1], 'the row enters the due index');
    clock.now = (requeued.nextAttemptAt ?? clock.now) + 1;
    state.outcome = success;
    const [woken, wokenUnits] = await measure(() =>
      run({ key, trigger: 'wake' }, localLambdaContext('topology', 60_000)),
    );
    assert.equal(woken.result, 'Success');
    report(t, 'pass that runs, Success after Requeue (woken)', wokenUnits);
    assert.deepEqual([wokenUnits.table, wokenUnits.indexes], [2, 1], 'the row leaves the due index');

    const [failed, failedUnits] = await change('pass that runs, Error after Success', {
      result: 'Error',
      changed: [],
      error: 'boom',
    });
    assert.deepEqual([failedUnits.table, failedUnits.indexes], [2, 1], 'the row enters the due index');

    clock.now = (failed.nextAttemptAt ?? clock.now) + 1;
    const [retried, retriedUnits] = await measure(() => pass('retry'));
    assert.equal(retried.result, 'Error');
    report(t, 'pass that runs, Error after Error (retry)', retriedUnits);
    assert.deepEqual([retriedUnits.table, retriedUnits.indexes], [2, 2], 'its due time moves: out and in again');

    clock.now = (retried.nextAttemptAt ?? clock.now) + 1;
    state.outcome = success;
    const [recovered, recoveredUnits] = await measure(() => pass('recovers'));
    assert.equal(recovered.result, 'Success');
    report(t, 'pass that runs, Success after Error', recoveredUnits);
    assert.deepEqual([recoveredUnits.table, recoveredUnits.indexes], [2, 1], 'the row leaves the due index');
  });

  test("an object's row: one item per controller, its size as DynamoDB bills it", async (t) => {
    const clock = { now: t0 };
    const state = {
      facts: {
        uid: 'uid-2',
        generation: 3,
        resourceVersion: '7',
        inputHash: `sha256:${'a'.repeat(64)}`,
      } as ObjectFacts,
      outcome: { result: 'Success', changed: [] } as PassOutcome,
    };
    const run = createPassRunner(stubReconciler(state), depsOf(clock));
    const key = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'cluster-0001' };
    await run({ key, trigger: 'first' }, localLambdaContext('topology', 60_000));
    const items = await scanObjectItems('topology#Cluster#default/cluster-0001');
    assert.equal(items.length, 1, 'lease and checkpoint share one item');
    const bytes = itemBytes(items[0] ?? {});
    t.diagnostic(`items per object and controller: ${items.length}; settled item size: ${bytes} B`);
    assert.ok(bytes <= 1024, `a settled item fits one write unit (${bytes} B)`);
  });
});

/** The items of one object's partition, as DynamoDB stores them. */
async function scanObjectItems(pk: string): Promise<Record<string, AttributeValue>[]> {
  const output = await ctx.store.client.send(
    new QueryCommand({
      TableName: ctx.store.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': { S: pk } },
      ConsistentRead: true,
    }),
  );
  return output.Items ?? [];
}

/**
 * An item's size as DynamoDB counts it: attribute names plus values (strings in UTF-8, numbers about 1 byte per two
 * digits plus 1, booleans 1, sets and maps their members plus 3 and 1 per element).
 */
function itemBytes(item: Record<string, AttributeValue>): number {
  const valueBytes = (v: AttributeValue): number => {
    if (v.S !== undefined) return Buffer.byteLength(v.S);
    if (v.N !== undefined) return Math.ceil(v.N.replace(/^-|\./g, '').length / 2) + 1;
    if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
    if (v.SS !== undefined) return 3 + v.SS.reduce((s, e) => s + Buffer.byteLength(e), 0);
    if (v.L !== undefined) return 3 + v.L.reduce((s, e) => s + 1 + valueBytes(e), 0);
    if (v.M !== undefined)
      return 3 + Object.entries(v.M).reduce((s, [k, e]) => s + 1 + Buffer.byteLength(k) + valueBytes(e), 0);
    return 0;
  };
  return Object.entries(item).reduce((s, [k, v]) => s + Buffer.byteLength(k) + valueBytes(v), 0);
}
