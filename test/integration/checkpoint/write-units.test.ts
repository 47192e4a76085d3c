// What one pass costs in DynamoDB writes, measured by DynamoDB Local itself: every write the pass protocol sends
// asks for ReturnConsumedCapacity INDEXES, and the test adds up the write units of the table and of the due index.
// The reconciler is a stub that reads nothing from Kubernetes: only the protocol's own requests are counted.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
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
  test('a pass that runs writes 2 WCU to the table and 2 to the due index, a skipped pass none', async (t) => {
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

    clock.now += 1_000;
    const [skipped, skippedUnits] = await measure(() => pass('skip'));
    assert.deepEqual([skipped.status, skipped.reason], ['Skipped', 'UpToDate']);
    report(t, 'skipped pass (up to date)', skippedUnits);
    assert.equal(skippedUnits.total, 0, 'a skipped pass writes nothing');

    clock.now += 1_000;
    state.facts = { ...state.facts, resourceVersion: '2', inputHash: 'sha256:b' };
    const [ran, ranUnits] = await measure(() => pass('changed'));
    assert.deepEqual([ran.status, ran.result], ['Ran', 'Success']);
    report(t, 'pass that runs, Success after Success', ranUnits);
    assert.deepEqual(
      ranUnits,
      { table: 2, indexes: 2, total: 4, requests: ['UpdateItem', 'UpdateItem'] },
      'two conditional UpdateItems, no transaction; the row enters the due index with its lease and leaves it',
    );

    clock.now += 1_000;
    state.facts = { ...state.facts, resourceVersion: '3', inputHash: 'sha256:c' };
    state.outcome = { result: 'Error', changed: [], error: 'boom' };
    const [failed, failedUnits] = await measure(() => pass('fails'));
    assert.equal(failed.result, 'Error');
    report(t, 'pass that runs, Error after Success', failedUnits);
    assert.equal(failedUnits.table, 2);

    clock.now = (failed.nextAttemptAt ?? clock.now) + 1;
    const [retried, retriedUnits] = await measure(() => pass('retry'));
    assert.equal(retried.result, 'Error');
    report(t, 'pass that runs, Error after Error (retry)', retriedUnits);
    assert.equal(retriedUnits.table, 2);

    clock.now = (retried.nextAttemptAt ?? clock.now) + 1;
    state.outcome = { result: 'Success', changed: [] };
    const [recovered, recoveredUnits] = await measure(() => pass('recovers'));
    assert.equal(recovered.result, 'Success');
    report(t, 'pass that runs, Success after Error', recoveredUnits);
    assert.equal(recoveredUnits.table, 2);
  });
});
