import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Checkpoint } from '#shared/checkpoint/checkpoint.ts';
import { computeDueReason, isDue } from '#shared/checkpoint/is-due.ts';
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
