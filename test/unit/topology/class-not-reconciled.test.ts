import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computeOutcome, computeTopologyReconciledCondition } from '#shared/topology/outcome.ts';
import { computeClassNotReconciledMessage } from '#shared/topology/reconcile-topology.ts';
import { ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

// NOTE: the differential's d71-family-class-paused found this (issue 35): a ClusterClass changed while paused keeps
// its old observedGeneration; upstream v1.14.2's Cluster then says False/ReconcileFailed with the error its
// reconcile returns, capi-serverless's said nothing (no pass) or, in a pass, ClusterClassNotReconciled.
const variablesReady = (status: 'True' | 'False') => ({
  type: 'VariablesReady',
  status,
  reason: status === 'True' ? 'VariablesReady' : 'VariableDiscoveryFailed',
  message: status === 'True' ? '' : 'VariableDiscovery failed: boom',
  lastTransitionTime: '2026-11-27T12:00:00Z',
});

function classAt(generation: number, status: ClusterClass['status'], paused = false): ClusterClass {
  return deepFreeze(
    new ClusterClassBuilder()
      .with((cc) => {
        cc.metadata = {
          ...cc.metadata,
          generation,
          ...(paused ? { annotations: { 'cluster.x-k8s.io/paused': '' } } : {}),
        };
        if (status) cc.status = status;
      })
      .build(),
  );
}

describe("a ClusterClass its own pass has not reconciled, as upstream's topology controller words it", () => {
  const cases: [string, ClusterClass, string | undefined][] = [
    [
      'is reconciled when VariablesReady is True and the generation is observed',
      classAt(2, { observedGeneration: 2, conditions: [variablesReady('True')] }),
      undefined,
    ],
    [
      'names the observed generation of a class changed while paused',
      classAt(2, { observedGeneration: 1, conditions: [variablesReady('True')] }, true),
      'ClusterClass is not successfully reconciled: ClusterClass.status.observedGeneration must be 2, but is 1',
    ],
    [
      'checks VariablesReady before the generation (a class never reconciled has no condition)',
      classAt(1, undefined),
      'ClusterClass is not successfully reconciled: status of VariablesReady condition on ClusterClass must be "True"',
    ],
    [
      'names VariablesReady False even at the observed generation',
      classAt(3, { observedGeneration: 3, conditions: [variablesReady('False')] }),
      'ClusterClass is not successfully reconciled: status of VariablesReady condition on ClusterClass must be "True"',
    ],
  ];
  for (const [name, cc, want] of cases) test(name, () => assert.equal(computeClassNotReconciledMessage(cc), want));

  const message =
    'ClusterClass is not successfully reconciled: ClusterClass.status.observedGeneration must be 2, but is 1';

  test('gets TopologyReconciled False with reason ReconcileFailed and the message (v1beta1: TopologyReconcileFailed, Error)', () => {
    assert.deepEqual(computeTopologyReconciledCondition({ kind: 'ClusterClassNotReconciled', message }), {
      condition: { type: 'TopologyReconciled', status: 'False', reason: 'ReconcileFailed', message },
      v1beta1: {
        type: 'TopologyReconciled',
        status: 'False',
        reason: 'TopologyReconcileFailed',
        severity: 'Error',
        message,
      },
    });
  });

  test('a paused class ends the pass with Error (backoff, as upstream retries its error), not a 10 s requeue', () => {
    assert.deepEqual(computeOutcome({ kind: 'ClusterClassNotReconciled', message, paused: true }, []), {
      result: 'Error',
      changed: [],
      error: message,
    });
  });

  test('a class whose own pass is due requeues shortly (its status change brings the next pass anyway)', () => {
    assert.deepEqual(computeOutcome({ kind: 'ClusterClassNotReconciled', message }, []), {
      result: 'Requeue',
      requeueAfterMs: 10_000,
      changed: [],
    });
  });
});
