import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Checkpoint } from '#shared/checkpoint/index.ts';
import { computeCheckpoint, type CheckpointInput } from '#shared/runtime/compute-checkpoint.ts';
import { computeTickDecision } from '#shared/runtime/compute-tick-decision.ts';

const now = 1_000_000;
const facts = Object.freeze({ uid: 'u1', generation: 3, resourceVersion: '42', inputHash: 'h1' });
const backoff = Object.freeze({ baseMs: 1_000, maxMs: 8_000, jitter: () => 0 });
const failed: Checkpoint = Object.freeze({
  observedGeneration: 3,
  inputHash: 'h1',
  resourceVersion: '40',
  result: 'Error',
  attempts: 3,
  nextAttemptAt: now - 1,
  lastError: 'boom',
  lastPassId: 'p0',
  updatedAt: now - 10_000,
});
const base = (over: Partial<CheckpointInput>): CheckpointInput => {
  const input: CheckpointInput = {
    previous: undefined,
    facts,
    outcome: { result: 'Success', changed: [] },
    passId: 'p1',
    now,
    backoff,
    requeueAfterMs: 30_000,
    ...over,
  };
  return Object.freeze(input);
};

describe('computeCheckpoint', () => {
  const cases: { name: string; input: CheckpointInput; expect: Partial<Checkpoint> }[] = [
    {
      name: 'a success resets the attempts and clears the next attempt and the last error',
      input: base({ previous: failed }),
      expect: { result: 'Success', attempts: 0, nextAttemptAt: undefined, lastError: undefined, resourceVersion: '42' },
    },
    {
      name: 'a success keeps the resourceVersion after the pass own writes',
      input: base({ outcome: { result: 'Success', changed: ['x'], resourceVersion: '50' } }),
      expect: { resourceVersion: '50' },
    },
    {
      name: 'a first error waits the base delay (jitter 0 gives half of it)',
      input: base({ outcome: { result: 'Error', changed: [], error: 'nope' } }),
      expect: { result: 'Error', attempts: 1, nextAttemptAt: now + 500, lastError: 'nope' },
    },
    {
      name: 'a fourth consecutive error doubles three times',
      input: base({ previous: failed, outcome: { result: 'Error', changed: [], error: 'again' } }),
      expect: { attempts: 4, nextAttemptAt: now + 4_000 },
    },
    {
      name: 'an error after a spec change keeps counting (controller-runtime forgets the failures only on success)',
      input: base({
        previous: failed,
        facts: { ...facts, generation: 4, inputHash: 'h2' },
        outcome: { result: 'Error', changed: [], error: 'another' },
      }),
      expect: { attempts: 4, nextAttemptAt: now + 4_000, observedGeneration: 4, lastError: 'another' },
    },
    {
      name: 'an error after a requeue starts again from the base delay',
      input: base({
        previous: { ...failed, result: 'Requeue', attempts: 0 },
        outcome: { result: 'Error', changed: [], error: 'boom' },
      }),
      expect: { attempts: 1, nextAttemptAt: now + 500 },
    },
    {
      name: 'the delay stops growing at the cap',
      input: base({
        previous: { ...failed, attempts: 20 },
        outcome: { result: 'Error', changed: [], error: 'boom' },
      }),
      expect: { attempts: 21, nextAttemptAt: now + 4_000 },
    },
    {
      name: 'a requeue waits what the pass asked without counting an attempt',
      input: base({ previous: failed, outcome: { result: 'Requeue', changed: [], requeueAfterMs: 2_500 } }),
      expect: { result: 'Requeue', attempts: 0, nextAttemptAt: now + 2_500 },
    },
    {
      name: 'a requeue without a delay waits the configured default',
      input: base({ outcome: { result: 'Requeue', changed: [] } }),
      expect: { nextAttemptAt: now + 30_000 },
    },
    {
      name: 'a requeue waiting for the owned objects says so, for their changes to wake it',
      input: base({ outcome: { result: 'Requeue', changed: [], wakeOnOwnedChange: true } }),
      expect: { result: 'Requeue', wakeOnOwnedChange: true },
    },
    {
      name: 'a requeue for another reason (a hook retry) is not woken early',
      input: base({ outcome: { result: 'Requeue', changed: [], requeueAfterMs: 20_000 } }),
      expect: { wakeOnOwnedChange: undefined },
    },
    {
      name: 'a success records the generation the pass left each owned object at',
      input: base({
        outcome: { result: 'Success', changed: [], ownedGenerations: { 'MachineDeployment ns/md-0': 4 } },
      }),
      expect: { ownedGenerations: { 'MachineDeployment ns/md-0': 4 } },
    },
    {
      name: 'a requeue records them too (an upgrade in progress still puts a user edit back)',
      input: base({
        outcome: { result: 'Requeue', changed: [], ownedGenerations: { 'MachineDeployment ns/md-0': 4 } },
      }),
      expect: { result: 'Requeue', ownedGenerations: { 'MachineDeployment ns/md-0': 4 } },
    },
    {
      name: 'an error keeps no owned generations, not even the previous ones (its retry is due anyway)',
      input: base({
        previous: { ...failed, ownedGenerations: { 'MachineDeployment ns/md-0': 4 } },
        outcome: { result: 'Error', changed: [], error: 'boom' },
      }),
      expect: { ownedGenerations: undefined },
    },
    {
      name: "a success records the versions its own writes left objects at (a class pass's template owner references)",
      input: base({ outcome: { result: 'Success', changed: ['x'], ownWrites: { 'T default/t': '17' } } }),
      expect: { ownWrites: { 'T default/t': '17' } },
    },
    {
      name: 'an error records no own writes (its retry is due anyway)',
      input: base({ outcome: { result: 'Error', changed: [], error: 'boom', ownWrites: { 'T default/t': '17' } } }),
      expect: { ownWrites: undefined },
    },
    {
      name: 'a success never carries the wake mark',
      input: base({ outcome: { result: 'Success', changed: [], wakeOnOwnedChange: true } }),
      expect: { result: 'Success', wakeOnOwnedChange: undefined },
    },
    {
      name: 'a success that awaits another controller on an owned object names it (the cluster shim waiting for adoption)',
      input: base({
        outcome: { result: 'Success', changed: [], wakeOnChangeOf: ['KubeadmControlPlane ns/cp'] },
      }),
      expect: { result: 'Success', wakeOnChangeOf: ['KubeadmControlPlane ns/cp'] },
    },
    {
      name: 'a requeue names it too',
      input: base({
        outcome: { result: 'Requeue', changed: [], wakeOnChangeOf: ['KubeadmControlPlane ns/cp'] },
      }),
      expect: { result: 'Requeue', wakeOnChangeOf: ['KubeadmControlPlane ns/cp'] },
    },
    {
      name: 'an error awaits nothing (its retry is due anyway)',
      input: base({
        previous: { ...failed, wakeOnChangeOf: ['KubeadmControlPlane ns/cp'] },
        outcome: { result: 'Error', changed: [], error: 'boom' },
      }),
      expect: { wakeOnChangeOf: undefined },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const checkpoint = computeCheckpoint(c.input);
      for (const [field, value] of Object.entries(c.expect))
        assert.deepEqual(checkpoint[field as keyof Checkpoint], value, field);
      assert.equal(checkpoint.lastPassId, 'p1');
      assert.equal(checkpoint.updatedAt, now);
    });
  }
});

describe('computeTickDecision', () => {
  const { nextAttemptAt: _n, lastError: _l, ...rest } = failed;
  const ok: Checkpoint = Object.freeze({ ...rest, result: 'Success', attempts: 0, updatedAt: now - 1_000 });
  const timing = { now };
  const cases = [
    { name: 'runs an object that has no checkpoint', cp: undefined, gen: 3, expect: ['NoCheckpoint', true] },
    { name: 'runs an object whose generation moved on', cp: ok, gen: 4, expect: ['GenerationChanged', true] },
    { name: 'runs a failed object whose backoff expired', cp: failed, gen: 3, expect: ['RetryDue', true] },
    {
      name: 'leaves a failed object that is still backing off',
      cp: { ...failed, nextAttemptAt: now + 1 },
      gen: 3,
      expect: ['BackingOff', false],
    },
    { name: 'leaves an up-to-date object alone', cp: ok, gen: 3, expect: ['UpToDate', false] },
    {
      name: 'leaves an object alone however long ago its last successful pass was (no per-object resync)',
      cp: { ...ok, updatedAt: now - 365 * 24 * 3_600_000 },
      gen: 3,
      expect: ['UpToDate', false],
    },
  ] as const;
  for (const c of cases) {
    test(c.name, () => {
      const d = computeTickDecision(c.cp, { generation: c.gen }, timing);
      assert.deepEqual([d.reason, d.due], c.expect);
    });
  }
  test('with the optional resync, forces a pass over an object whose last pass is older than it', () => {
    const d = computeTickDecision(
      { ...ok, updatedAt: now - 60_000 },
      { generation: 3 },
      { now, resyncAfterMs: 60_000 },
    );
    assert.deepEqual(d, { due: true, reason: 'Resync', force: true });
    const recent = computeTickDecision(ok, { generation: 3 }, { now, resyncAfterMs: 60_000 });
    assert.deepEqual([recent.reason, recent.due], ['UpToDate', false]);
  });
});
