import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import { computePausedCondition, isPaused } from '#shared/addons/desired/paused-condition.ts';
import { crs, deepFreeze } from '#test/support/fixtures/addons.ts';

const now = new Date('2024-05-06T07:08:09Z');
const paused = deepFreeze({
  ...crs('set', []),
  metadata: { ...crs('set', []).metadata, annotations: { 'cluster.x-k8s.io/paused': '' } },
});
const running = crs('set', []);

describe('computePausedCondition', () => {
  const cases: {
    name: string;
    set: typeof running;
    previous?: Condition;
    want: Condition;
  }[] = [
    {
      name: 'is True with upstream reason and message while the annotation is set (any value)',
      set: paused,
      want: {
        type: 'Paused',
        status: 'True',
        reason: 'Paused',
        message: 'ClusterResourceSet has the cluster.x-k8s.io/paused annotation',
        lastTransitionTime: '2024-05-06T07:08:09Z',
      },
    },
    {
      name: 'is False (NotPaused) without the annotation',
      set: running,
      want: {
        type: 'Paused',
        status: 'False',
        reason: 'NotPaused',
        message: '',
        lastTransitionTime: '2024-05-06T07:08:09Z',
      },
    },
    {
      name: 'keeps the transition time when nothing changed',
      set: running,
      previous: {
        type: 'Paused',
        status: 'False',
        reason: 'NotPaused',
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
      want: {
        type: 'Paused',
        status: 'False',
        reason: 'NotPaused',
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
    },
    {
      name: 'takes a new transition time when the status flips',
      set: paused,
      previous: {
        type: 'Paused',
        status: 'False',
        reason: 'NotPaused',
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
      want: {
        type: 'Paused',
        status: 'True',
        reason: 'Paused',
        message: 'ClusterResourceSet has the cluster.x-k8s.io/paused annotation',
        lastTransitionTime: '2024-05-06T07:08:09Z',
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(computePausedCondition(c.set, now, c.previous), c.want);
    });
  }

  test('carries the generation as observedGeneration, as upstream conditions.Set does', () => {
    const generation7 = deepFreeze({ ...running, metadata: { ...running.metadata, generation: 7 } });
    assert.equal(computePausedCondition(generation7, now).observedGeneration, 7);
  });

  test('isPaused reads only the annotation', () => {
    assert.equal(isPaused(paused), true);
    assert.equal(isPaused(running), false);
  });
});
