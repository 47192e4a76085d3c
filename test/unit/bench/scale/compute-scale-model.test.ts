import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeCalibration,
  computeListSeats,
  computeMaxSeats,
  computeScaleModel,
  isTopologyRequest,
  type Input,
  type PriorityLevel,
  type ScaleInputs,
} from '#test/bench/scale/compute-scale-model.ts';

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
  listsPerPass: v(6),
  listedObjectsPerCluster: v(1),
  listedObjectBytes: v(4_000),
  sharedLevel: { name: 'shared', seats: v(50), handSize: 6, queueLengthLimit: 50 },
  dedicatedLevel: { name: 'dedicated', seats: v(200), handSize: 4, queueLengthLimit: 50 },
  throttleRetrySeconds: v(1),
  calibration: { b: v(1), a: v(1) },
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

  test('a pass holds one seat a request and its LISTs more: the seats bind before Lambda and the table', () => {
    // 100 Clusters: a LIST over 100 objects of 4 kB loads 400 kB: 4 seats; (14 + 6 × 4) × 0.01 s = 0.38 seat-s a pass.
    assert.equal(small?.change.flowControl.shared.listSeats, 4);
    assert.ok(Math.abs((small?.change.flowControl.shared.seatSecondsPerPass ?? 0) - 0.38) < 1e-9);
    assert.equal(small?.change.binding, 'apiSeats');
    assert.ok(Math.abs((small?.change.passesPerSecond.apiSeats ?? 0) - 50 / 0.38) < 1e-9);
    // 100,000 Clusters: 10 seats by bytes (1 MB from the cache), 8 at most in the shared level.
    assert.deepEqual(
      [large?.change.flowControl.shared.listSeats, large?.change.flowControl.dedicated.listSeats],
      [8, 10],
    );
    assert.equal(large?.change.binding, 'apiSeats');
    assert.ok(Math.abs((large?.change.allConvergedSeconds ?? 0) - (0.5 + 100_000 / (50 / 0.62))) < 1e-6);
    assert.equal(large?.change.dedicated.binding, 'apiSeats');
    assert.ok(Math.abs((large?.change.dedicated.allConvergedSeconds ?? 0) - (0.5 + 100_000 / (200 / 0.74))) < 1e-6);
  });

  test('one flow queues at most handSize × queueLengthLimit requests; the rest are answered 429 and sent again', () => {
    // 4,000 passes in flight, 50 seats / 3.1 seats a request = 16.1 served, 300 queued, the rest bounce each second.
    const f = large?.change.flowControl.shared;
    assert.equal(f?.queueLimit, 300);
    assert.equal(f?.queued, 300);
    assert.ok(Math.abs((f?.executing ?? 0) - 50 / 3.1) < 1e-9);
    assert.ok(Math.abs((f?.throttledPerSecond ?? 0) - (4_000 - 50 / 3.1 - 300)) < 1e-9);
    assert.equal(large?.change.flowControl.dedicated.queueLimit, 200);
    // 40 passes in flight fit the level's seats: nothing waits.
    const d = small?.change.flowControl.dedicated;
    assert.deepEqual([d?.queued, d?.throttledPerSecond], [0, 0]);
  });

  test('with one due-index partition (before sharding) and seats to spare, that partition bound at 500 passes/s', () => {
    const roomy: PriorityLevel = { name: 'roomy', seats: v(100_000), handSize: 6, queueLengthLimit: 50 };
    const [unsharded] = computeScaleModel({ ...inputs, dueShards: 1, dedicatedLevel: roomy }, [100_000]);
    assert.deepEqual(unsharded?.change.dedicated, {
      binding: 'dueIndexPartition',
      allConvergedSeconds: 0.5 + 100_000 / 500,
    });
  });

  test('a pass that writes nothing to the due index (a settled one) leaves the next limit to bind', () => {
    const roomy: PriorityLevel = { name: 'roomy', seats: v(100_000), handSize: 6, queueLengthLimit: 50 };
    const [sparse] = computeScaleModel(
      { ...inputs, dueShards: 1, dedicatedLevel: roomy, dueIndexWritesPerPass: v(0) },
      [100_000],
    );
    assert.notEqual(sparse?.change.dedicated.binding, 'dueIndexPartition');
    assert.ok(Number.isFinite(sparse?.change.dedicated.allConvergedSeconds));
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
    assert.equal(slow?.change.mapping.seconds, 1_000);
    assert.ok((slow?.change.dedicated.allConvergedSeconds ?? 0) >= 1_000 + 0.2);
  });

  test('upstream works through the fleet with its fixed worker pool', () => {
    // 10 requests × 0.01 s per Cluster, 10 workers: 100 Clusters per second.
    assert.equal(large?.change.upstreamAllConvergedSeconds, 1_000);
  });

  test('a sweep lists metadata pages of 500 and, when its LIST changed, reads checkpoints 100 at a time', () => {
    assert.deepEqual([large?.sweep.apiRequests, large?.sweep.batchGets], [200, 1_000]);
    assert.ok(Math.abs((large?.sweep.listedMiB ?? 0) - (100_000 * 400) / 2 ** 20) < 1e-9);
  });

  test("calibration scales request times by measured / modelled at the run's size, per side", () => {
    // As the bench ran: 10 invocations × 4 passes of 0.2 s, no flow control: 1.0 s; upstream 100 × 0.1 s / 10: 1 s.
    assert.deepEqual(computeCalibration(inputs, 100, { b: 10, a: 20 }, 16), { b: 10, a: 20 });
    const [calibrated] = computeScaleModel({ ...inputs, calibration: { b: v(10), a: v(20) } }, [100_000]);
    assert.equal(calibrated?.change.passSeconds, 2);
    assert.equal(calibrated?.change.upstreamAllConvergedSeconds, 20_000);
  });
});

describe('flow control as kube-apiserver v1.34 computes it', () => {
  const level = (seats: number, handSize: number): PriorityLevel => ({
    name: 'l',
    seats: v(seats),
    handSize,
    queueLengthLimit: 50,
  });
  const maxSeats: [string, PriorityLevel, number][] = [
    ['global-default (49 seats, handSize 6) grants 8', level(49, 6), 8],
    ["the chart's level (174 seats, handSize 4) grants 27", level(174, 4), 27],
    ['workload-low (245 seats, handSize 6) grants 37', level(245, 6), 37],
    ['a level of 5 seats grants 1', level(5, 6), 1],
  ];
  for (const [name, l, seats] of maxSeats) test(name, () => assert.equal(computeMaxSeats(l), seats));

  const listSeats: [string, number, number, number, number][] = [
    ['100 objects of 4 kB: 4 seats', 100, 4_000, 8, 4],
    ['1,000 objects of 4 kB: 10 by bytes, 8 in global-default', 1_000, 4_000, 8, 8],
    ['the watch cache charges 1 MB at most: 10 seats', 100_000, 12_000, 27, 10],
    ['one small object: 1 seat', 1, 100, 8, 1],
  ];
  for (const [name, objects, bytes, max, seats] of listSeats)
    test(name, () => assert.equal(computeListSeats(objects, bytes, max), seats));
});

describe('isTopologyRequest', () => {
  const row = (verb: string, resource: string) => ({ component: 'upstream core', verb, resource, count: 1 });
  const cases: [string, ReturnType<typeof row>, boolean][] = [
    [
      "a template patch is the topology controller's",
      row('patch', 'infrastructure.cluster.x-k8s.io/devclusters'),
      true,
    ],
    ['a Cluster status patch is', row('patch', 'cluster.x-k8s.io/clusters/status'), true],
    [
      "a binding patch is the ClusterResourceSet controller's",
      row('patch', 'addons.cluster.x-k8s.io/clusterresourcesetbindings'),
      false,
    ],
    ["a ConfigMap read is the ClusterResourceSet controller's", row('get', 'core/configmaps'), false],
    ["an Event is the recorder's", row('create', 'core/events'), false],
  ];
  for (const [name, r, expected] of cases) test(name, () => assert.equal(isTopologyRequest(r), expected));
});
