import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import type { MappingContinued } from '#shared/runtime/events.ts';
import { createFanOutStream } from '#shared/runtime/fan-out.ts';
import { mapChangeToFanOut } from '#shared/runtime/map-change-to-fan-out.ts';
import type { ChangedObject, MappedKey, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

const cluster = (name: string): MappedKey =>
  Object.freeze({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name });
const change: ChangedObject = Object.freeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'ClusterClass',
  namespace: 'ns',
  name: 'cc',
  type: 'MODIFIED',
});
const deps = { config: computeRuntimeConfig({ MAPPING_HAND_OFF_BEFORE_TIMEOUT_MS: '1000' }) } as RuntimeDeps;

/** A reconciler mapping through "pages" of keys; a continue token is the index of the next page. */
function pagedReconciler(pages: readonly (readonly MappedKey[])[]): Reconciler & { froms: (string | undefined)[] } {
  const froms: (string | undefined)[] = [];
  return {
    controller: 'topology',
    kinds: [],
    froms,
    getFacts: () => Promise.resolve(undefined),
    reconcile: () => Promise.reject(new Error('not in this test')),
    async mapChangeInPages(_deps, _change, paging) {
      froms.push(paging.from);
      for (let i = Number(paging.from ?? 0); i < pages.length; i++) {
        await paging.onKeys(pages[i] ?? []);
        if (i + 1 < pages.length && paging.shouldStop()) return { continue: String(i + 1) };
      }
      return {};
    },
  };
}

const pages = [[cluster('a'), cluster('b')], [cluster('c')], [cluster('d')]];

describe('mapChangeToFanOut', () => {
  test('with less time left than the hand-off margin it stops after a page and hands on where the list goes on', async () => {
    const reconciler = pagedReconciler(pages);
    const stream = createFanOutStream('topology', 't', 10, () => Promise.resolve([]));
    const handedOn: MappingContinued[] = [];
    const { continued } = await mapChangeToFanOut({
      reconciler,
      deps,
      change,
      stream,
      handOff: (rest) => Promise.resolve(handedOn.push(rest) > 0),
      remainingMs: () => 500,
    });
    assert.equal(continued, true);
    assert.deepEqual(handedOn, [{ change, continue: '1' }]);
    assert.deepEqual(
      (await stream.finish()).runHere.map((k) => k.name),
      ['a', 'b'],
    );
  });

  test('goes on from the token it is given', async () => {
    const reconciler = pagedReconciler(pages);
    const stream = createFanOutStream('topology', 't', 10, () => Promise.resolve([]));
    await mapChangeToFanOut({ reconciler, deps, change, from: '1', stream, remainingMs: () => 500 });
    assert.deepEqual(reconciler.froms, ['1']);
    assert.deepEqual(
      (await stream.finish()).runHere.map((k) => k.name),
      ['c', 'd'],
    );
  });

  test('a refused hand-off maps the rest here, to the end', async () => {
    const reconciler = pagedReconciler(pages);
    const stream = createFanOutStream('topology', 't', 10, () => Promise.resolve([]));
    const { continued } = await mapChangeToFanOut({
      reconciler,
      deps,
      change,
      stream,
      handOff: () => Promise.resolve(false),
      remainingMs: () => 500,
    });
    assert.equal(continued, false);
    assert.deepEqual(reconciler.froms, [undefined, '1']);
    assert.deepEqual(
      (await stream.finish()).runHere.map((k) => k.name),
      ['a', 'b', 'c', 'd'],
    );
  });

  test('with time enough, or without fan-out, it maps everything in one go', async () => {
    for (const remainingMs of [() => 60_000, () => 0]) {
      const reconciler = pagedReconciler(pages);
      const stream = createFanOutStream('topology', 't', 10, undefined);
      const withTime = remainingMs() > 1000;
      const { continued } = await mapChangeToFanOut({
        reconciler,
        deps,
        change,
        stream,
        ...(withTime ? { handOff: () => Promise.reject(new Error('no hand-off expected')) } : {}),
        remainingMs,
      });
      assert.equal(continued, false);
      assert.equal((await stream.finish()).runHere.length, 4);
    }
  });

  test('a change the reconciler does not map in pages is mapped at once', async () => {
    const reconciler: Reconciler = {
      controller: 'addons',
      kinds: [],
      getFacts: () => Promise.resolve(undefined),
      reconcile: () => Promise.reject(new Error('not in this test')),
      mapChange: () => Promise.resolve([cluster('x')]),
      mapChangeInPages: () => Promise.resolve(undefined),
    };
    const stream = createFanOutStream('addons', 't', 10, undefined);
    await mapChangeToFanOut({ reconciler, deps, change, stream, remainingMs: () => 0 });
    assert.deepEqual(
      (await stream.finish()).runHere.map((k) => k.name),
      ['x'],
    );
  });
});
