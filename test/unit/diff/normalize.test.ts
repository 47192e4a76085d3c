import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeNormalizedSnapshot } from '#test/diff/normalize.ts';
import type { RawSnapshot } from '#test/diff/snapshot.ts';

const variables = [
  {
    name: 'kubeadmControlPlaneMaxSurge',
    definitions: [{ from: 'test-patch', required: false, schema: { openAPIV3Schema: { type: 'string' } } }],
  },
];

function classWith(status: Record<string, unknown>): KubeObject {
  return Object.freeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'ClusterClass',
    metadata: { name: 'in-memory', namespace: 'd62', generation: 3, resourceVersion: '17' },
    status,
  });
}

const readyAt = (time: string, observedGeneration: number) => ({
  observedGeneration,
  variables,
  conditions: [
    { type: 'VariablesReady', status: 'True', reason: 'VariablesReady', lastTransitionTime: time, observedGeneration },
    { type: 'Paused', status: 'False', reason: 'NotPaused', lastTransitionTime: time },
  ],
});

describe('computeNormalizedSnapshot: the ClusterClass', () => {
  test('keeps status.variables and VariablesReady, drops times, generations and other conditions', () => {
    const raw: RawSnapshot = {
      objects: {},
      leftovers: [],
      clusterClass: classWith(readyAt('2026-11-26T15:00:00Z', 3)),
    };
    assert.deepEqual(computeNormalizedSnapshot(raw)['ClusterClass'], {
      name: 'in-memory',
      variables,
      variablesReady: { status: 'True', reason: 'VariablesReady', message: '' },
    });
  });

  test('two sides that differ only in times and generations compare equal', () => {
    const a = computeNormalizedSnapshot({
      objects: {},
      leftovers: [],
      clusterClass: classWith(readyAt('2026-11-26T15:00:00Z', 3)),
    });
    const b = computeNormalizedSnapshot({
      objects: {},
      leftovers: [],
      clusterClass: classWith(readyAt('2026-11-26T15:07:31Z', 1)),
    });
    assert.deepEqual(a, b);
  });

  test('a variable the other side lacks shows', () => {
    const a = computeNormalizedSnapshot({ objects: {}, leftovers: [], clusterClass: classWith(readyAt('t', 1)) });
    const b = computeNormalizedSnapshot({ objects: {}, leftovers: [], clusterClass: classWith({ variables: [] }) });
    assert.notDeepEqual(a['ClusterClass'], b['ClusterClass']);
  });

  test('without a ClusterClass read (the inline scenarios) there is no ClusterClass entry', () => {
    assert.equal('ClusterClass' in computeNormalizedSnapshot({ objects: {}, leftovers: [] }), false);
  });
});
