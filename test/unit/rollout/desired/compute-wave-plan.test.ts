import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RolloutWave } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { computeWaveAssignment, computeWaveSizes, validateWaves } from '#shared/rollout/desired/compute-wave-plan.ts';

describe('computeWaveSizes', () => {
  const cases: [string, RolloutWave[], number, number[]][] = [
    ['deals a canary, three and the rest', [{ clusters: 1 }, { clusters: 3 }, { clusters: 'rest' }], 8, [1, 3, 4]],
    ['rounds percentages up', [{ clusters: '10%' }, { clusters: '50%' }, { clusters: '100%' }], 8, [1, 4, 3]],
    ['never takes more than is left', [{ clusters: 5 }, { clusters: 5 }, { clusters: 'rest' }], 8, [5, 3, 0]],
    ['puts Clusters no wave takes into the last wave', [{ clusters: 1 }, { clusters: 2 }], 8, [1, 7]],
    ['gives empty waves for an empty fleet', [{ clusters: 1 }, { clusters: 'rest' }], 0, [0, 0]],
  ];
  for (const [name, waves, total, sizes] of cases)
    test(name, () => assert.deepEqual(computeWaveSizes(waves, total), sizes));
});

test('computeWaveAssignment deals Clusters in name order, whatever order they came in', () => {
  const assignment = computeWaveAssignment(['c3', 'c1', 'c2'], [{ clusters: 1 }, { clusters: 'rest' }]);
  assert.deepEqual(
    [...assignment.entries()],
    [
      ['c1', 0],
      ['c2', 1],
      ['c3', 1],
    ],
  );
});

describe('validateWaves', () => {
  const cases: [string, RolloutWave[], string[]][] = [
    ['accepts a canary, a count and the rest', [{ clusters: 1 }, { clusters: 3 }, { clusters: 'rest' }], []],
    ['accepts percentages summing to 100%', [{ clusters: '10%' }, { clusters: '90%' }], []],
    [
      'refuses "rest" before the last wave',
      [{ clusters: 'rest' }, { clusters: 1 }],
      [
        'spec.waves[0].clusters: "rest" is only allowed in the last wave',
        'spec.waves: the waves must cover every selected Cluster: end with a wave of clusters: rest, or use percentages summing to at least 100% (they sum to 0%)',
      ],
    ],
    [
      'refuses counts that may not cover the fleet',
      [{ clusters: 1 }, { clusters: 3 }],
      [
        'spec.waves: the waves must cover every selected Cluster: end with a wave of clusters: rest, or use percentages summing to at least 100% (they sum to 0%)',
      ],
    ],
    [
      'refuses duplicate names',
      [
        { name: 'a', clusters: 1 },
        { name: 'a', clusters: 'rest' },
      ],
      ['spec.waves[1].name: duplicate wave name "a"'],
    ],
  ];
  for (const [name, waves, problems] of cases) test(name, () => assert.deepEqual(validateWaves(waves), problems));
});
