import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeScaleModel, type Input, type ScaleInputs } from '#test/bench/scale/compute-scale-model.ts';

const v = (value: number): Input => ({ value, basis: 'modelled', source: 'test' });
const inputs: ScaleInputs = Object.freeze({
  requestsPerClusterChange: v(20),
  upstreamRequestsPerClusterChange: v(10),
  requestSeconds: v(0.01),
  upstreamWorkers: v(10),
  fanOutBatch: 10,
  passesPerInvocation: 4,
  dueShards: 8,
  lambdaConcurrency: v(1_000),
  apiSeats: v(50),
  dedicatedApiSeats: v(200),
  writeUnitsPerPass: v(5),
  dueIndexWritesPerPass: v(2),
  partitionWriteUnitsPerSecond: v(1_000),
  tableWriteUnitsPerSecond: v(4_000),
  sweepPageSize: 500,
  metadataBytesPerObject: v(400),
  mappingPageSize: 500,
  mappingPageSeconds: v(0.5),
  functionTimeoutSeconds: v(300),
  mappingHandOffSeconds: 120,
  idleTickQueryMs: new Map([[10_000, v(3)]]),
});

describe('computeScaleModel', () => {
  const [small, mid, large] = computeScaleModel(inputs, [100, 10_000, 100_000]);

  test('an idle tick costs one Query per due-index shard (and the unsharded one) and no API request at any size', () => {
    for (const row of [small, mid, large])
      assert.deepEqual([row?.idleTick.dynamoDbRequests, row?.idleTick.apiRequests], [9, 0]);
    assert.equal(mid?.idleTick.queryMs?.value, 3);
    assert.equal(small?.idleTick.queryMs, undefined);
  });

  test('the fan-out: one invocation per batch, ten entries per PutEvents, the first batch run by the mapping invocation', () => {
    assert.deepEqual([mid?.change.invocations, mid?.change.putEventsCalls], [1_000, 100]);
    assert.deepEqual([small?.change.invocations, small?.change.putEventsCalls], [10, 1]);
  });

  test('a small fleet is bound by its own passes in flight, a large one by the API seats, then by the table', () => {
    // 100 Clusters: 10 invocations × 4 passes = 40 in flight of 0.2 s → 200 passes/s, under 50 seats / 0.2 s = 250.
    assert.equal(small?.change.binding, 'lambda');
    assert.equal(small?.change.passesPerSecond.lambda, 200);
    assert.equal(large?.change.binding, 'apiSeats');
    // The passes start after the first page of the mapping LIST (0.5 s) and outlast the list (200 pages, 100 s).
    assert.equal(large?.change.allConvergedSeconds, 0.5 + 100_000 / 250);
    // 200 seats allow 1,000 passes/s; the due index's 8 partitions 8 × 1,000 WCU / 2 writes per pass = 4,000; a new
    // on-demand table 4,000 WCU / 5 per pass = 800: the table binds.
    assert.equal(large?.change.passesPerSecond.dueIndexPartition, 4_000);
    assert.deepEqual(large?.change.dedicated, { binding: 'tableOnDemand', allConvergedSeconds: 0.5 + 100_000 / 800 });
  });

  test('with one due-index partition (before sharding) that partition bound the fleet-wide change at 500 passes/s', () => {
    const [unsharded] = computeScaleModel({ ...inputs, dueShards: 1 }, [100_000]);
    assert.deepEqual(unsharded?.change.dedicated, {
      binding: 'dueIndexPartition',
      allConvergedSeconds: 0.5 + 100_000 / 500,
    });
  });

  test('the mapping lists every Cluster in pages of 500, handing the rest on before each invocation times out', () => {
    assert.deepEqual(small?.change.mapping, { pages: 1, seconds: 0.5, invocations: 1 });
    assert.deepEqual(large?.change.mapping, { pages: 200, seconds: 100, invocations: 1 });
    // 5 s a page: 1,000 s of listing, 180 s an invocation (300 s less the 120 s margin).
    const [slow] = computeScaleModel({ ...inputs, mappingPageSeconds: v(5) }, [100_000]);
    assert.deepEqual(slow?.change.mapping, { pages: 200, seconds: 1_000, invocations: 6 });
  });

  test('when the list is slower than the passes, the last page decides', () => {
    const [slow] = computeScaleModel({ ...inputs, mappingPageSeconds: v(5) }, [100_000]);
    // 1,000 s of listing, then the last Cluster's own pass (20 requests × 0.01 s).
    assert.equal(slow?.change.dedicated.allConvergedSeconds, 1_000 + 0.2);
  });

  test('upstream works through the fleet with its fixed worker pool', () => {
    // 10 requests × 0.01 s per Cluster, 10 workers: 100 Clusters per second.
    assert.equal(large?.change.upstreamAllConvergedSeconds, 1_000);
  });

  test('a sweep lists metadata pages of 500 and, when its LIST changed, reads checkpoints 100 at a time', () => {
    assert.deepEqual([large?.sweep.apiRequests, large?.sweep.batchGets], [200, 1_000]);
    assert.ok(Math.abs((large?.sweep.listedMiB ?? 0) - (100_000 * 400) / 2 ** 20) < 1e-9);
  });
});
