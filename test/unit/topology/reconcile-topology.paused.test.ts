import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeOutcome, computeTopologyReconciledCondition } from '#shared/topology/outcome.ts';
import { computePausedMessage } from '#shared/topology/reconcile-topology.ts';

// NOTE: the differential's d70-family-paused found this (issue 35): upstream sets TopologyReconciled False/Paused on a
// paused Cluster; capi-serverless left the last condition (True/ReconcileSucceeded) in place.
describe('a paused Cluster', () => {
  const cases: [string, Parameters<typeof computePausedMessage>[0], string | undefined][] = [
    ['says nothing when the Cluster is not paused', { metadata: {}, spec: {} }, undefined],
    ['names spec.paused', { metadata: {}, spec: { paused: true } }, 'Cluster spec.paused is set to true'],
    [
      'names the paused annotation',
      { metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } }, spec: {} },
      'Cluster has the cluster.x-k8s.io/paused annotation',
    ],
    [
      'names both, spec.paused first, as upstream joins them',
      { metadata: { annotations: { 'cluster.x-k8s.io/paused': 'true' } }, spec: { paused: true } },
      'Cluster spec.paused is set to true, Cluster has the cluster.x-k8s.io/paused annotation',
    ],
  ];
  for (const [name, cluster, want] of cases)
    test(name, () => assert.equal(computePausedMessage(Object.freeze(cluster)), want));

  test('gets TopologyReconciled False with reason Paused (v1beta1: Paused, severity Info)', () => {
    const message = 'Cluster spec.paused is set to true';
    assert.deepEqual(computeTopologyReconciledCondition({ kind: 'Paused', message }), {
      condition: { type: 'TopologyReconciled', status: 'False', reason: 'Paused', message },
      v1beta1: { type: 'TopologyReconciled', status: 'False', reason: 'Paused', severity: 'Info', message },
    });
  });

  test('ends its pass without a requeue (unpausing changes the Cluster, which runs the next pass)', () => {
    assert.deepEqual(computeOutcome({ kind: 'Paused', message: 'x' }, []), { result: 'Success', changed: [] });
  });
});
