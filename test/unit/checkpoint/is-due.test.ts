import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Checkpoint } from '#shared/checkpoint/checkpoint.ts';
import type { OwnedChange } from '#shared/checkpoint/lease.ts';
import {
  computeAwaitedOwnedObject,
  computeDueReason,
  computeEditedOwnedObject,
  isDue,
} from '#shared/checkpoint/is-due.ts';
import type { DueFacts, DueReason } from '#shared/checkpoint/is-due.ts';

const now = Date.UTC(2025, 0, 1, 12, 0, 0);

function checkpoint(overrides: Partial<Checkpoint>): Checkpoint {
  return Object.freeze({
    observedGeneration: 4,
    inputHash: 'h1',
    resourceVersion: '100',
    result: 'Success',
    attempts: 0,
    lastPassId: 'req-1',
    updatedAt: now - 60_000,
    ...overrides,
  } satisfies Checkpoint);
}

const facts: DueFacts = Object.freeze({ now, generation: 4, inputHash: 'h1' });

describe('isDue', () => {
  const cases: {
    name: string;
    checkpoint: Checkpoint | undefined;
    facts?: DueFacts;
    reason: DueReason;
    due: boolean;
  }[] = [
    { name: 'is due for an object never reconciled', checkpoint: undefined, reason: 'NoCheckpoint', due: true },
    {
      name: 'is not due after a success with the same generation and inputs',
      checkpoint: checkpoint({}),
      reason: 'UpToDate',
      due: false,
    },
    {
      name: 'is due when the generation moved on since the last success',
      checkpoint: checkpoint({ observedGeneration: 3 }),
      reason: 'GenerationChanged',
      due: true,
    },
    {
      name: 'is due when the inputs changed though the generation did not',
      checkpoint: checkpoint({ inputHash: 'h0' }),
      reason: 'InputsChanged',
      due: true,
    },
    {
      name: 'is not due while backing off from an error',
      checkpoint: checkpoint({ result: 'Error', attempts: 2, nextAttemptAt: now + 1 }),
      reason: 'BackingOff',
      due: false,
    },
    {
      name: 'is due once the retry time of an error has come',
      checkpoint: checkpoint({ result: 'Error', attempts: 2, nextAttemptAt: now }),
      reason: 'RetryDue',
      due: true,
    },
    {
      name: 'is due once the requeue time has passed',
      checkpoint: checkpoint({ result: 'Requeue', attempts: 1, nextAttemptAt: now - 1 }),
      reason: 'RetryDue',
      due: true,
    },
    {
      name: 'is not due before the requeue time',
      checkpoint: checkpoint({ result: 'Requeue', attempts: 1, nextAttemptAt: now + 30_000 }),
      reason: 'BackingOff',
      due: false,
    },
    {
      name: 'is due at once after an error without a retry time',
      checkpoint: checkpoint({ result: 'Error', attempts: 1 }),
      reason: 'RetryDue',
      due: true,
    },
    {
      name: 'cuts a backoff short when the generation changes',
      checkpoint: checkpoint({ result: 'Error', attempts: 5, nextAttemptAt: now + 600_000, observedGeneration: 3 }),
      reason: 'GenerationChanged',
      due: true,
    },
    {
      name: 'cuts a backoff short when the inputs change',
      checkpoint: checkpoint({ result: 'Error', attempts: 5, nextAttemptAt: now + 600_000 }),
      facts: Object.freeze({ ...facts, inputHash: 'h2' }),
      reason: 'InputsChanged',
      due: true,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const f = c.facts ?? facts;
      assert.equal(computeDueReason(c.checkpoint, f), c.reason);
      assert.equal(isDue(c.checkpoint, f), c.due);
    });
  }
});

describe('computeEditedOwnedObject', () => {
  const md = 'MachineDeployment ns/md-0';
  const recorded = checkpoint({ ownedGenerations: { [md]: 3, 'KubeadmControlPlane ns/cp': 2 } });
  const withMetadata = checkpoint({
    ownedGenerations: { [md]: 3, 'KubeadmControlPlane ns/cp': 2 },
    ownedMetadata: { [md]: 'as-left' },
  });
  const cases: {
    name: string;
    checkpoint: Checkpoint | undefined;
    changes: readonly OwnedChange[] | undefined;
    edited: string | undefined;
  }[] = [
    {
      name: "names an owned object whose generation is later than the pass left it at (someone else's spec write)",
      checkpoint: recorded,
      changes: [{ object: md, generation: 4 }],
      edited: md,
    },
    {
      name: "is silent about the pass's own write (the generation it recorded)",
      checkpoint: recorded,
      changes: [{ object: md, generation: 3 }],
      edited: undefined,
    },
    {
      name: 'is silent about a late event of an older generation',
      checkpoint: recorded,
      changes: [{ object: md, generation: 2 }],
      edited: undefined,
    },
    {
      name: 'is silent about an object the last pass did not record (a new one, or one it no longer owns)',
      checkpoint: recorded,
      changes: [{ object: 'MachineDeployment ns/md-9', generation: 7 }],
      edited: undefined,
    },
    {
      name: 'is silent when the checkpoint records no owned generations (written before they were recorded)',
      checkpoint: checkpoint({}),
      changes: [{ object: md, generation: 9 }],
      edited: undefined,
    },
    {
      name: 'is silent without a checkpoint',
      checkpoint: undefined,
      changes: [{ object: md, generation: 9 }],
      edited: undefined,
    },
    { name: 'is silent without changes', checkpoint: recorded, changes: undefined, edited: undefined },
    {
      name: "names an owned object whose labels or annotations hash otherwise at the recorded generation (someone else's metadata edit)",
      checkpoint: withMetadata,
      changes: [{ object: md, generation: 3, metadata: 'user-edit' }],
      edited: md,
    },
    {
      name: "is silent about the pass's own metadata write (the hash it recorded)",
      checkpoint: withMetadata,
      changes: [{ object: md, generation: 3, metadata: 'as-left' }],
      edited: undefined,
    },
    {
      name: 'is silent about another hash in a late event of an older generation',
      checkpoint: withMetadata,
      changes: [{ object: md, generation: 2, metadata: 'user-edit' }],
      edited: undefined,
    },
    {
      name: 'is silent about a change without a hash, or when the checkpoint recorded none',
      checkpoint: recorded,
      changes: [
        { object: md, generation: 3 },
        { object: md, generation: 3, metadata: 'user-edit' },
      ],
      edited: undefined,
    },
    {
      name: 'finds the edited one among several changes (a rerun carries every change asked for)',
      checkpoint: recorded,
      changes: [
        { object: md, generation: 3 },
        { object: 'KubeadmControlPlane ns/cp', generation: 3 },
      ],
      edited: 'KubeadmControlPlane ns/cp',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(computeEditedOwnedObject(c.checkpoint, c.changes), c.edited);
    });
  }
});

describe('computeAwaitedOwnedObject', () => {
  const cp = 'KubeadmControlPlane ns/cp';
  const awaiting = checkpoint({ wakeOnChangeOf: [cp], ownedGenerations: { [cp]: 2 } });
  const cases: {
    name: string;
    checkpoint: Checkpoint | undefined;
    changes: readonly OwnedChange[] | undefined;
    awaited: string | undefined;
  }[] = [
    {
      name: "names the awaited object at the generation the pass left it at (the core controller's adoption)",
      checkpoint: awaiting,
      changes: [{ object: cp, generation: 2 }],
      awaited: cp,
    },
    {
      name: 'is silent about another owned object',
      checkpoint: awaiting,
      changes: [{ object: 'MachineDeployment ns/md-0', generation: 2 }],
      awaited: undefined,
    },
    {
      name: 'is silent when the last pass awaits nothing',
      checkpoint: checkpoint({ ownedGenerations: { [cp]: 2 } }),
      changes: [{ object: cp, generation: 2 }],
      awaited: undefined,
    },
    {
      name: 'is silent without a checkpoint',
      checkpoint: undefined,
      changes: [{ object: cp, generation: 2 }],
      awaited: undefined,
    },
    { name: 'is silent without changes', checkpoint: awaiting, changes: undefined, awaited: undefined },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(computeAwaitedOwnedObject(c.checkpoint, c.changes), c.awaited);
    });
  }
});
