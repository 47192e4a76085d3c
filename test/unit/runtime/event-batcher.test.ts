import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { createEventBatcher } from '#functions/forwarder/event-batcher.ts';

const change = (name: string, resourceVersion: string): ObjectChange =>
  Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name, resourceVersion, type: 'MODIFIED' });

describe('createEventBatcher', () => {
  test('sends 23 distinct changes in batches of 10, 10 and 3', async () => {
    const batches: number[] = [];
    const outbox = createEventBatcher({
      sink: (b) => (batches.push(b.length), Promise.resolve([])),
      coalesceMs: 1_000,
    });
    for (let i = 0; i < 23; i++) outbox.add(change(`cm-${i}`, '1'));
    await outbox.stop();
    assert.deepEqual(batches, [10, 10, 3]);
  });

  test('coalesces changes of one object into the latest', async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    for (let i = 1; i <= 5; i++) outbox.add(change('same', String(i)));
    await outbox.stop();
    assert.deepEqual(
      sent.map((c) => c.resourceVersion),
      ['5'],
    );
    assert.equal(outbox.stats.coalesced, 4);
  });

  test('retries refused entries and drops them after maxAttempts', async () => {
    let calls = 0;
    const dropped: string[] = [];
    const outbox = createEventBatcher({
      sink: (b) => (calls++, Promise.resolve(b)),
      coalesceMs: 1,
      retryBaseMs: 1,
      maxAttempts: 3,
      onDrop: (c) => dropped.push(c.name),
    });
    outbox.add(change('refused', '1'));
    const deadline = Date.now() + 5_000;
    while (dropped.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await outbox.stop();
    assert.equal(calls, 3);
    assert.deepEqual(dropped, ['refused']);
  });

  test('refuses a batch size above the PutEvents limit', () => {
    assert.throws(() => createEventBatcher({ sink: () => Promise.resolve([]), maxBatch: 11 }), /1\.\.10/);
  });
});
