import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { controllers } from '#shared/checkpoint/index.ts';
import {
  computeAtExpression,
  computeWakeUpAction,
  computeWakeUpDeletes,
  computeWakeUpScheduleName,
  parseAtExpression,
} from '#shared/runtime/compute-wake-up.ts';
import { computeWakeUpRequests } from '#shared/runtime/create-controller-handler.ts';
import type { PassReport } from '#shared/runtime/types.ts';

const cluster = Object.freeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  namespace: 'default',
  name: 'c1',
});

describe('computeWakeUpScheduleName', () => {
  test('is the same for every request about one object of one function', () => {
    assert.equal(computeWakeUpScheduleName('topology', cluster), computeWakeUpScheduleName('topology', { ...cluster }));
    assert.match(computeWakeUpScheduleName('topology', cluster), /^topology-Cluster-[0-9a-f]{24}$/);
  });

  test('differs between functions and between objects', () => {
    const names = new Set([
      computeWakeUpScheduleName('topology', cluster),
      computeWakeUpScheduleName('addons', cluster),
      computeWakeUpScheduleName('topology', { ...cluster, name: 'c2' }),
      computeWakeUpScheduleName('topology', { ...cluster, namespace: 'other' }),
    ]);
    assert.equal(names.size, 4);
  });

  test('is a valid Scheduler name (at most 64 of [0-9a-zA-Z-_.]) for any kind and key', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...controllers),
        fc.string({ maxLength: 80 }),
        fc.string({ maxLength: 63 }),
        fc.string({ minLength: 1, maxLength: 253 }),
        (controller, kind, namespace, name) => {
          const scheduleName = computeWakeUpScheduleName(controller, { apiVersion: 'v1', kind, namespace, name });
          assert.ok(scheduleName.length <= 64, scheduleName);
          assert.match(scheduleName, /^[0-9a-zA-Z\-_.]+$/);
        },
      ),
    );
  });
});

describe('computeAtExpression and parseAtExpression', () => {
  const cases = [
    { name: 'keeps a whole second', at: Date.UTC(2026, 10, 27, 16, 30, 0), expect: 'at(2026-11-27T16:30:00)' },
    {
      name: 'rounds up a fraction, so the schedule never fires before the due time',
      at: Date.UTC(2026, 10, 27, 16, 30, 0, 1),
      expect: 'at(2026-11-27T16:30:01)',
    },
    {
      name: 'writes UTC across midnight',
      at: Date.UTC(2026, 11, 31, 23, 59, 59, 500),
      expect: 'at(2027-01-01T00:00:00)',
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      assert.equal(computeAtExpression(c.at), c.expect);
      assert.equal(parseAtExpression(c.expect), Math.ceil(c.at / 1000) * 1000);
    });

  test('reads nothing from a rate, a cron or a malformed expression', () => {
    for (const e of ['rate(1 hour)', 'cron(0 * * * ? *)', 'at(2026-11-27)', undefined])
      assert.equal(parseAtExpression(e), undefined);
  });
});

describe('computeWakeUpAction', () => {
  const now = 1_000_000;
  const cases = [
    {
      name: 'keeps an existing schedule that fires earlier',
      existingAtMs: now + 60_000,
      requestedAtMs: now + 600_000,
      expect: 'Keep',
    },
    {
      name: 'keeps an existing schedule at the same second',
      existingAtMs: now + 60_000,
      requestedAtMs: now + 59_500,
      expect: 'Keep',
    },
    {
      name: 'moves a later schedule to the earlier request',
      existingAtMs: now + 600_000,
      requestedAtMs: now + 60_000,
      expect: 'Update',
    },
    {
      name: 'replaces a schedule whose time has passed (it fired)',
      existingAtMs: now - 1,
      requestedAtMs: now + 60_000,
      expect: 'Update',
    },
    {
      name: 'replaces a schedule that is not one-time',
      existingAtMs: undefined,
      requestedAtMs: now + 60_000,
      expect: 'Update',
    },
  ] as const;
  for (const c of cases) test(c.name, () => assert.equal(computeWakeUpAction({ ...c, now }), c.expect));
});

describe('computeWakeUpRequests', () => {
  const report = (r: Partial<PassReport>): PassReport => ({
    key: cluster,
    passId: 'p',
    status: 'Ran',
    reason: '',
    ...r,
  });
  const cases = [
    {
      name: 'a requeued pass asks for its due time',
      passes: [report({ result: 'Requeue', nextAttemptAt: 5 })],
      fromSchedule: false,
      expect: [5],
    },
    {
      name: 'a failed pass asks for its backoff',
      passes: [report({ result: 'Error', nextAttemptAt: 7 })],
      fromSchedule: false,
      expect: [7],
    },
    {
      name: 'a successful pass asks for nothing',
      passes: [report({ result: 'Success' })],
      fromSchedule: false,
      expect: [],
    },
    {
      name: 'a pass that recorded nothing asks for nothing (Lambda retries its event)',
      passes: [report({ result: 'Error', nextAttemptAt: 7, unrecorded: true })],
      fromSchedule: false,
      expect: [],
    },
    {
      name: 'a pass an event finds backing off asks for nothing (its schedule exists)',
      passes: [report({ status: 'Skipped', reason: 'BackingOff', nextAttemptAt: 9 })],
      fromSchedule: false,
      expect: [],
    },
    {
      name: 'a pass its schedule woke too early moves the schedule to the checkpoint’s time',
      passes: [report({ status: 'Skipped', reason: 'BackingOff', nextAttemptAt: 9 })],
      fromSchedule: true,
      expect: [9],
    },
  ];
  for (const c of cases)
    test(c.name, () =>
      assert.deepEqual(
        computeWakeUpRequests(c.passes, c.fromSchedule).map((r) => r.dueAtMs),
        c.expect,
      ),
    );
});

describe('computeWakeUpDeletes', () => {
  const now = 1_000_000;
  const other = Object.freeze({ ...cluster, name: 'c2' });
  const report = (r: Partial<PassReport>): PassReport =>
    Object.freeze({ key: cluster, passId: 'p', status: 'Ran' as const, reason: '', ...r });
  const cases: { name: string; passes: PassReport[]; expect: string[] }[] = [
    {
      name: 'a pass that succeeds before its requeue fires deletes the schedule',
      passes: [report({ result: 'Success', previousNextAttemptAt: now + 300_000 })],
      expect: ['c1'],
    },
    {
      name: 'a pass that succeeds while an error backs off deletes the schedule',
      passes: [report({ result: 'Success', previousNextAttemptAt: now + 2_000 })],
      expect: ['c1'],
    },
    {
      name: 'a pass that finds its object gone deletes the schedule',
      passes: [report({ status: 'Skipped', reason: 'NotFound', previousNextAttemptAt: now + 60_000 })],
      expect: ['c1'],
    },
    {
      name: 'a successful pass whose checkpoint held no due time sends no delete',
      passes: [report({ result: 'Success' })],
      expect: [],
    },
    {
      name: 'a pass that asks to run again keeps the schedule (its own request moves it)',
      passes: [report({ result: 'Requeue', nextAttemptAt: now + 300_000, previousNextAttemptAt: now + 60_000 })],
      expect: [],
    },
    {
      name: 'a pass that fails again keeps the schedule',
      passes: [report({ result: 'Error', nextAttemptAt: now + 4_000, previousNextAttemptAt: now + 2_000 })],
      expect: [],
    },
    {
      name: 'a pass its schedule woke sends no delete: the schedule fired and deletes itself',
      passes: [report({ result: 'Success', previousNextAttemptAt: now })],
      expect: [],
    },
    {
      name: 'a due time whose at(...) second has come sends no delete: that schedule has fired',
      passes: [report({ result: 'Success', previousNextAttemptAt: now - 400 })],
      expect: [],
    },
    {
      name: 'a due time just after now is still to fire (its at(...) second is later)',
      passes: [report({ result: 'Success', previousNextAttemptAt: now + 1 })],
      expect: ['c1'],
    },
    {
      name: 'a pass that recorded nothing deletes nothing',
      passes: [report({ result: 'Error', unrecorded: true, previousNextAttemptAt: now + 60_000 })],
      expect: [],
    },
    {
      name: 'an object another pass of the invocation still has a due time for keeps its schedule',
      passes: [
        report({ result: 'Success', previousNextAttemptAt: now + 60_000 }),
        report({ status: 'Skipped', reason: 'BackingOff', nextAttemptAt: now + 60_000 }),
      ],
      expect: [],
    },
    {
      name: 'one delete per object, in the order the passes ran',
      passes: [
        report({ key: other, result: 'Success', previousNextAttemptAt: now + 60_000 }),
        report({ result: 'Success', previousNextAttemptAt: now + 60_000 }),
        report({ key: other, result: 'Success', previousNextAttemptAt: now + 60_000 }),
      ],
      expect: ['c2', 'c1'],
    },
  ];
  for (const c of cases)
    test(c.name, () =>
      assert.deepEqual(
        computeWakeUpDeletes(Object.freeze(c.passes), now).map((k) => k.name),
        c.expect,
      ),
    );
});
