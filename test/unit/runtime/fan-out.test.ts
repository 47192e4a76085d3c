import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { maxKeysPerRequest, parseRuntimeEvent, passesRequestedEvent } from '#shared/runtime/events.ts';
import { computeFanOutPlan } from '#shared/runtime/fan-out.ts';
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
});
