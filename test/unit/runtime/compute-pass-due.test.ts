import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Checkpoint } from '#shared/checkpoint/index.ts';
import { computePassDue, type DueRequest, type PassDue } from '#shared/runtime/compute-pass-due.ts';

const now = 1_000_000;
const facts = Object.freeze({ now, generation: 3, inputHash: 'h1' });
const md = 'MachineDeployment default/md-0';
const ok: Checkpoint = Object.freeze({
  observedGeneration: 3,
  inputHash: 'h1',
  resourceVersion: '40',
  result: 'Success',
  attempts: 0,
  lastPassId: 'p0',
  updatedAt: now - 10_000,
  ownedGenerations: { [md]: 2 },
});
const failed: Checkpoint = Object.freeze({
  ...ok,
  result: 'Error',
  attempts: 2,
  nextAttemptAt: now + 5_000,
  lastError: 'boom',
});
const waiting: Checkpoint = Object.freeze({
  ...ok,
  result: 'Requeue',
  nextAttemptAt: now + 30_000,
  wakeOnOwnedChange: true,
});

describe('computePassDue', () => {
  const cases: { name: string; checkpoint: Checkpoint | undefined; request: DueRequest; want: PassDue }[] = [
    {
      name: 'runs a forced pass whatever the checkpoint says',
      checkpoint: ok,
      request: { force: true },
      want: { due: true, reason: 'Forced' },
    },
    {
      name: 'runs an object without a checkpoint',
      checkpoint: undefined,
      request: {},
      want: { due: true, reason: 'NoCheckpoint' },
    },
    { name: 'skips an object up to date', checkpoint: ok, request: {}, want: { due: false, reason: 'UpToDate' } },
    {
      name: 'skips a failed object backing off and says when it is due',
      checkpoint: failed,
      request: {},
      want: { due: false, reason: 'BackingOff', nextAttemptAt: now + 5_000 },
    },
    {
      name: 'runs a requeue that waits for its owned objects when one changed',
      checkpoint: waiting,
      request: { wake: true },
      want: { due: true, reason: 'OwnedObjectChanged' },
    },
    {
      name: 'does not wake a failed pass early (its backoff stands)',
      checkpoint: failed,
      request: { wake: true },
      want: { due: false, reason: 'BackingOff', nextAttemptAt: now + 5_000 },
    },
    {
      name: "runs when someone else wrote an owned object's spec",
      checkpoint: ok,
      request: { ownedChanges: [{ object: md, generation: 3 }] },
      want: { due: true, reason: 'OwnedObjectEdited', object: md },
    },
    {
      name: "skips the event of the pass's own write (the recorded generation)",
      checkpoint: ok,
      request: { ownedChanges: [{ object: md, generation: 2 }] },
      want: { due: false, reason: 'UpToDate' },
    },
    {
      name: 'runs when another controller acted on an awaited object',
      checkpoint: { ...ok, wakeOnChangeOf: ['KubeadmControlPlane default/c-x'] },
      request: { ownedChanges: [{ object: 'KubeadmControlPlane default/c-x', generation: 1 }] },
      want: { due: true, reason: 'AwaitedObjectChanged', object: 'KubeadmControlPlane default/c-x' },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(computePassDue(c.checkpoint, c.request, facts), c.want);
    });
  }
});
