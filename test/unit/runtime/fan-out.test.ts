import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  maxKeysPerRequest,
  parseRuntimeEvent,
  passesRequestedEvent,
  type PassesRequested,
} from '#shared/runtime/events.ts';
import { computeFanOutPlan, createFanOutStream, type FanOutSink } from '#shared/runtime/fan-out.ts';
import { fanOutPatternOf } from '#shared/runtime/routes.ts';
import type { MappedKey } from '#shared/runtime/types.ts';

const cluster = (i: number, flags: Partial<Pick<MappedKey, 'force' | 'wake'>> = {}): MappedKey =>
  Object.freeze({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: `c-${i}`, ...flags });
const clusters = (n: number) => Object.freeze(Array.from({ length: n }, (_, i) => cluster(i)));

describe('computeFanOutPlan', () => {
  const cases = [
    { name: 'keeps every key when they fit in one batch', keys: 10, batch: 10, own: 10, handedOff: [] },
    { name: 'keeps nothing back when there are no keys', keys: 0, batch: 10, own: 0, handedOff: [] },
    { name: 'hands off full batches and a last partial one', keys: 25, batch: 10, own: 10, handedOff: [10, 5] },
    { name: 'runs one key per invocation at batch 1', keys: 3, batch: 1, own: 1, handedOff: [1, 1] },
    { name: 'caps a batch at what one event may carry', keys: 250, batch: 1000, own: 100, handedOff: [100, 50] },
  ];
  for (const c of cases)
    test(c.name, () => {
      const plan = computeFanOutPlan('topology', 'event e-1', clusters(c.keys), c.batch);
      assert.equal(plan.own.length, c.own);
      assert.deepEqual(
        plan.handedOff.map((r) => r.keys.length),
        c.handedOff,
      );
      for (const r of plan.handedOff) assert.deepEqual([r.controller, r.trigger], ['topology', 'event e-1']);
    });

  test('refuses a batch size below 1', () => {
    assert.throws(() => computeFanOutPlan('topology', 't', clusters(3), 0), RangeError);
  });

  test('keeps force and wake and writes no undefined flags', () => {
    const plan = computeFanOutPlan(
      'topology',
      't',
      [cluster(0), cluster(1, { force: true }), cluster(2, { wake: true })],
      1,
    );
    assert.deepEqual(
      plan.handedOff.map((r) => r.keys[0]),
      [
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: 'c-1', force: true },
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: 'c-2', wake: true },
      ],
    );
  });

  test('every key is run exactly once, in order, whatever the batch size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 150 }), (n, batch) => {
        const keys = clusters(n);
        const plan = computeFanOutPlan('addons', 't', keys, batch);
        const names = [...plan.own, ...plan.handedOff.flatMap((r) => r.keys)].map((k) => k.name);
        assert.deepEqual(
          names,
          keys.map((k) => k.name),
        );
        for (const r of plan.handedOff) assert.ok(r.keys.length >= 1 && r.keys.length <= maxKeysPerRequest);
      }),
    );
  });

  test('each handed-off batch is an event the functions accept', () => {
    const plan = computeFanOutPlan('topology', 'event e-1', clusters(12), 5);
    for (const request of plan.handedOff) {
      const event = parseRuntimeEvent(JSON.parse(JSON.stringify(passesRequestedEvent(request, 'f-1', new Date(0)))));
      assert.deepEqual(event.detail, request);
      assert.equal(event.source, fanOutPatternOf('topology').source[0]);
      assert.equal(event['detail-type'], fanOutPatternOf('topology')['detail-type'][0]);
    }
  });
});

/** A sink that records what it is given and refuses the batches `refuse` picks. */
function recordingSink(refuse: (request: PassesRequested) => boolean = () => false) {
  const calls: PassesRequested[][] = [];
  const sink: FanOutSink = (requests) => {
    calls.push([...requests]);
    return Promise.resolve(requests.filter(refuse));
  };
  return { sink, calls };
}

describe('createFanOutStream', () => {
  test('hands off each full batch as soon as a page completes it, and the last partial one at the end', async () => {
    const { sink, calls } = recordingSink();
    const stream = createFanOutStream('topology', 'event e-1', 2, sink);
    const keys = clusters(7);
    await stream.add(keys.slice(0, 3)); // own: c-0, c-1; pending c-2
    assert.equal(calls.length, 0);
    await stream.add(keys.slice(3, 6)); // pending c-2..c-5: two full batches
    assert.deepEqual(
      calls.map((c) => c.map((r) => r.keys.map((k) => k.name))),
      [
        [
          ['c-2', 'c-3'],
          ['c-4', 'c-5'],
        ],
      ],
    );
    await stream.add(keys.slice(6));
    const { runHere, handedOff } = await stream.finish();
    assert.deepEqual(
      runHere.map((k) => k.name),
      ['c-0', 'c-1'],
    );
    assert.equal(handedOff, 5);
    assert.deepEqual(
      calls.at(-1)?.[0]?.keys.map((k) => k.name),
      ['c-6'],
    );
  });

  test('without a sink every key runs here', async () => {
    const stream = createFanOutStream('addons', 't', 2, undefined);
    await stream.add(clusters(5));
    const { runHere, handedOff } = await stream.finish();
    assert.deepEqual([runHere.length, handedOff], [5, 0]);
  });

  test('a batch the sink refuses comes back to run here', async () => {
    const { sink } = recordingSink((r) => r.keys[0]?.name === 'c-2');
    const stream = createFanOutStream('topology', 't', 2, sink);
    await stream.add(clusters(6));
    const { runHere, handedOff } = await stream.finish();
    assert.deepEqual(
      runHere.map((k) => k.name),
      ['c-0', 'c-1', 'c-2', 'c-3'],
    );
    assert.equal(handedOff, 2);
  });

  test('fed in any pages, it runs and hands off exactly what computeFanOutPlan plans for all the keys at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 10 }),
        async (n, batch, cuts) => {
          const keys = clusters(n);
          const { sink, calls } = recordingSink();
          const stream = createFanOutStream('topology', 't', batch, sink);
          let from = 0;
          for (const cut of [...cuts, n]) {
            const to = Math.min(n, from + cut);
            await stream.add(keys.slice(from, to));
            from = to;
          }
          await stream.add(keys.slice(from));
          const { runHere, handedOff } = await stream.finish();
          const plan = computeFanOutPlan('topology', 't', keys, batch);
          assert.deepEqual(runHere, plan.own);
          assert.deepEqual(calls.flat(), plan.handedOff);
          assert.equal(handedOff, n - plan.own.length);
        },
      ),
    );
  });
});

describe('Passes Requested events', () => {
  const valid = { controller: 'topology', trigger: 'event e-1', keys: [cluster(0)] };
  const cases = [
    { name: 'refuses an empty batch', detail: { ...valid, keys: [] }, field: /detail\.keys/ },
    { name: 'refuses an unknown controller', detail: { ...valid, controller: 'nodes' }, field: /detail\.controller/ },
    {
      name: 'refuses a batch larger than one event may carry',
      detail: { ...valid, keys: clusters(maxKeysPerRequest + 1) },
      field: /detail\.keys/,
    },
    {
      name: 'refuses a key without a name',
      detail: { ...valid, keys: [{ apiVersion: 'v1', kind: 'Cluster', namespace: 'ns' }] },
      field: /detail\.keys\.0\.name/,
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      const raw = { ...passesRequestedEvent(valid as never, 'f-1', new Date(0)), detail: c.detail };
      assert.throws(() => parseRuntimeEvent(raw), c.field);
    });

  const mapping = {
    change: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: 'ns',
      name: 'cc',
      type: 'MODIFIED',
    },
    continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ',
  } as const;

  test('accepts the rest of a mapping to go on with, without keys', () => {
    const request: PassesRequested = { controller: 'topology', trigger: 'event e-1', keys: [], mapping };
    const event = parseRuntimeEvent(JSON.parse(JSON.stringify(passesRequestedEvent(request, 'f-1', new Date(0)))));
    assert.deepEqual(event.detail, request);
  });

  test('refuses a mapping without its continue token', () => {
    const detail = { ...valid, keys: [], mapping: { change: mapping.change } };
    const raw = { ...passesRequestedEvent(valid as never, 'f-1', new Date(0)), detail };
    assert.throws(() => parseRuntimeEvent(raw), /detail\.mapping\.continue/);
  });
});
