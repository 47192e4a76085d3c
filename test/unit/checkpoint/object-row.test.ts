import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Checkpoint, CheckpointKey } from '#shared/checkpoint/index.ts';
import {
  checkpointFields,
  checkpointUpdateOf,
  dueAtOfCheckpoint,
  updateExpressionOf,
} from '#shared/checkpoint/object-row.ts';
import { Checkpoint as CheckpointSchema } from '#shared/checkpoint/checkpoint.ts';

const key: CheckpointKey = { controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' };
const success: Checkpoint = Object.freeze({
  observedGeneration: 1,
  inputHash: 'sha256:a',
  resourceVersion: '1',
  result: 'Success',
  attempts: 0,
  lastPassId: 'p',
  updatedAt: 1_700_000_000_000,
});

/** The attribute → value (or 'removed') an update's parts write. */
function writes(parts: ReturnType<typeof checkpointUpdateOf>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const clause of parts.set) {
    const [name = '', value = ''] = clause.split(' = ');
    out[parts.names[name] ?? name] = parts.values[value];
  }
  for (const name of parts.remove) out[parts.names[name] ?? name] = 'removed';
  return out;
}

describe('object row', () => {
  test('names every field of the Checkpoint schema', () => {
    assert.deepEqual([...checkpointFields].sort(), Object.keys(CheckpointSchema.shape).sort());
  });

  const dueCases = [
    { name: 'a Success is never due', checkpoint: success, due: undefined },
    {
      name: 'an Error is due at its next attempt',
      checkpoint: { ...success, result: 'Error', nextAttemptAt: 5 },
      due: 5,
    },
    { name: 'a Requeue without a time is due at once', checkpoint: { ...success, result: 'Requeue' }, due: 0 },
    { name: 'no checkpoint is never due', checkpoint: undefined, due: undefined },
  ] as const;
  for (const c of dueCases) test(c.name, () => assert.equal(dueAtOfCheckpoint(c.checkpoint), c.due));

  test('a Success sets its fields, removes the others and takes the row out of the due index', () => {
    const w = writes(checkpointUpdateOf(key, success, 60));
    assert.equal(w['result'], 'Success');
    assert.equal(w['lastError'], 'removed');
    assert.equal(w['nextAttemptAt'], 'removed');
    assert.equal(w['dueShard'], 'removed');
    assert.equal(w['dueAtMs'], 'removed');
    assert.equal(w['expiresAt'], 1_700_000_000 + 60);
  });

  test('an Error puts the row in the due index at its next attempt', () => {
    const w = writes(checkpointUpdateOf(key, { ...success, result: 'Error', nextAttemptAt: 42, lastError: 'x' }, 60));
    assert.equal(w['dueAtMs'], 42);
    assert.match(String(w['dueShard']), /^topology#Cluster#[0-7]$/);
    assert.equal(w['lastError'], 'x');
  });

  test('a key without a kind never touches the due index', () => {
    const w = writes(
      checkpointUpdateOf(
        { controller: 'topology', namespace: 'default', name: 'c1' },
        { ...success, result: 'Error' },
        60,
      ),
    );
    assert.equal('dueAtMs' in w, false);
  });

  test('joins SET and REMOVE clauses, leaving out an empty one', () => {
    assert.equal(updateExpressionOf(['#a = :a'], ['#b']), 'SET #a = :a REMOVE #b');
    assert.equal(updateExpressionOf([], ['#b', '#c']), 'REMOVE #b, #c');
    assert.equal(updateExpressionOf(['#a = :a'], []), 'SET #a = :a');
  });
});
