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

  test('coalesces status changes of the objects one topology owns into one entry per Cluster', async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    const owned = (kind: string, name: string, cluster: string, type: ObjectChange['type'] = 'MODIFIED') =>
      Object.freeze({ apiVersion: 'x/v1', kind, namespace: 'ns', name, cluster, type });
    outbox.add(owned('KubeadmControlPlane', 'c1-cp', 'c1'));
    outbox.add(owned('MachineDeployment', 'c1-md-0', 'c1'));
    outbox.add(owned('MachineDeployment', 'c1-md-1', 'c1'));
    outbox.add(owned('MachineDeployment', 'c2-md-0', 'c2'));
    await outbox.stop();
    assert.deepEqual(
      sent.map((c) => `${c.cluster} ${c.name}`),
      ['c1 c1-md-1', 'c2 c2-md-0'],
    );
  });

  test('coalescing changes of one Cluster names every controller either change concerns', async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    const cluster = (resourceVersion: string, controllers?: ObjectChange['controllers']): ObjectChange =>
      Object.freeze({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: 'ns',
        name: 'c1',
        resourceVersion,
        type: 'MODIFIED',
        ...(controllers ? { controllers } : {}),
      });
    outbox.add(cluster('1', ['topology', 'rollout']));
    outbox.add(cluster('2', ['rollout']));
    outbox.add(cluster('3', ['addons']));
    outbox.add(cluster('4', ['rollout']));
    await outbox.flush();
    outbox.add(cluster('5', ['rollout']));
    outbox.add(cluster('6'));
    await outbox.stop();
    assert.deepEqual(
      sent.map((c) => [c.resourceVersion, c.controllers]),
      [
        ['4', ['addons', 'rollout', 'topology']],
        ['6', undefined],
      ],
    );
  });

  test('a deleted owned object is not hidden by a later status change of a sibling', async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    const owned = (name: string, type: ObjectChange['type']) =>
      Object.freeze({ apiVersion: 'x/v1', kind: 'MachineDeployment', namespace: 'ns', name, cluster: 'c1', type });
    outbox.add(owned('md-0', 'DELETED'));
    outbox.add(owned('md-1', 'MODIFIED'));
    await outbox.stop();
    assert.deepEqual(
      sent.map((c) => `${c.name} ${c.type}`),
      ['md-0 DELETED'],
    );
  });

  test("a spec change of an owned object keeps its own entry: a sibling's later status change does not hide its generation", async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    const owned = (kind: string, name: string, generation: number, generationChanged?: true) =>
      Object.freeze({
        apiVersion: 'x/v1',
        kind,
        namespace: 'ns',
        name,
        cluster: 'c1',
        generation,
        type: 'MODIFIED' as const,
        ...(generationChanged ? { generationChanged } : {}),
      });
    outbox.add(owned('MachineDeployment', 'md-0', 3, true));
    outbox.add(owned('MachineDeployment', 'md-0', 4, true));
    outbox.add(owned('MachineDeployment', 'md-1', 5, true));
    outbox.add(owned('KubeadmControlPlane', 'cp', 2));
    outbox.add(owned('MachineDeployment', 'md-1', 5));
    await outbox.stop();
    assert.deepEqual(
      sent.map((c) => `${c.kind} ${c.name} ${c.generation}${c.generationChanged ? ' spec' : ''}`).sort(),
      ['MachineDeployment md-0 4 spec', 'MachineDeployment md-1 5', 'MachineDeployment md-1 5 spec'],
    );
  });

  test("a change of a template a topology owns keeps its own entry: a sibling's later status change does not hide it", async () => {
    const sent: ObjectChange[] = [];
    const outbox = createEventBatcher({ sink: (b) => (sent.push(...b), Promise.resolve([])), coalesceMs: 1_000 });
    const owned = (kind: string, name: string, generation: number) =>
      Object.freeze({
        apiVersion: 'x/v1',
        kind,
        namespace: 'ns',
        name,
        cluster: 'c1',
        generation,
        type: 'MODIFIED' as const,
      });
    outbox.add(owned('KubeadmConfigTemplate', 'c1-md-0-x', 2));
    outbox.add(owned('MachineDeployment', 'md-0', 3));
    outbox.add(owned('KubeadmControlPlane', 'cp', 2));
    await outbox.stop();
    assert.deepEqual(sent.map((c) => `${c.kind} ${c.name} ${c.generation}`).sort(), [
      'KubeadmConfigTemplate c1-md-0-x 2',
      'KubeadmControlPlane cp 2',
    ]);
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

describe('createEventBatcher leading edge', () => {
  /** An outbox with a long window, recording when each entry was sent. */
  function outboxWithLongWindow() {
    const sent: { at: number; change: ObjectChange }[] = [];
    const outbox = createEventBatcher({
      sink: (b) => (sent.push(...b.map((change) => ({ at: Date.now(), change }))), Promise.resolve([])),
      coalesceMs: 60_000,
    });
    return { sent, outbox };
  }
  const settle = () => new Promise((r) => setTimeout(r, 20));

  test('a change of an object with nothing sent in the window goes at once, not after the window', async () => {
    const { sent, outbox } = outboxWithLongWindow();
    outbox.add({ ...change('new', '1'), type: 'ADDED' });
    await settle();
    assert.deepEqual(
      sent.map((s) => s.change.name),
      ['new'],
    );
    await outbox.stop();
  });

  test('changes of one watch chunk sent at once share a request', async () => {
    const batches: number[] = [];
    const outbox = createEventBatcher({
      sink: (b) => (batches.push(b.length), Promise.resolve([])),
      coalesceMs: 60_000,
    });
    for (let i = 0; i < 12; i++) outbox.add(change(`cm-${i}`, '1'));
    await settle();
    assert.deepEqual(batches, [10, 2]);
    await outbox.stop();
  });

  test('a change that follows within the window waits for it, coalesced with the ones after it', async () => {
    const { sent, outbox } = outboxWithLongWindow();
    outbox.add(change('busy', '1'));
    await settle();
    outbox.add(change('busy', '2'));
    outbox.add(change('busy', '3'));
    await settle();
    assert.deepEqual(
      sent.map((s) => s.change.resourceVersion),
      ['1'],
      'the second change waits for the window',
    );
    await outbox.stop();
    assert.deepEqual(
      sent.map((s) => s.change.resourceVersion),
      ['1', '3'],
    );
  });

  test("status changes of a topology's objects and a relist's SYNCs wait for the window", async () => {
    const { sent, outbox } = outboxWithLongWindow();
    outbox.add(Object.freeze({ ...change('c1-md-0', '1'), kind: 'MachineDeployment', cluster: 'c1' }));
    outbox.add({ ...change('relisted', '1'), type: 'SYNC' });
    await settle();
    assert.deepEqual(sent, []);
    await outbox.stop();
    assert.equal(sent.length, 2);
  });
});

describe('createEventBatcher per-kind counts', () => {
  test('counts added, coalesced, sent and failed entries per kind, and when PutEvents last accepted one', async () => {
    let fail = true;
    const outbox = createEventBatcher({
      sink: (b) => Promise.resolve(fail ? b.filter((c) => c.kind === 'Secret') : []),
      coalesceMs: 1_000,
      retryBaseMs: 1,
      now: () => 42_000,
    });
    outbox.add(change('a', '1'));
    outbox.add(change('a', '2'));
    outbox.add(Object.freeze({ ...change('s', '1'), kind: 'Secret' }));
    await outbox.flush();
    fail = false;
    await outbox.stop();
    assert.deepEqual(outbox.stats.byKind.get('ConfigMap'), { added: 2, coalesced: 1, sent: 1, failed: 0, dropped: 0 });
    assert.deepEqual(outbox.stats.byKind.get('Secret'), { added: 1, coalesced: 0, sent: 1, failed: 1, dropped: 0 });
    assert.equal(outbox.stats.lastSentAtMs, 42_000);
    assert.equal(outbox.pending(), 0);
  });
});
