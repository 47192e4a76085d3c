// A lifecycle hook that blocks topology creation, as the pass outcome and the TopologyReconciled condition.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAggregatedResponse } from '#shared/runtime-sdk/index.ts';
import {
  computeHookBlockingMessage,
  computeOutcome,
  computeTopologyReconciledCondition,
  type PassState,
} from '#shared/topology/outcome.ts';

describe('a blocking BeforeClusterCreate hook', () => {
  const cases: { name: string; state: PassState; message: string; requeueAfterMs: number }[] = [
    {
      name: 'names the hook and its message, and asks for the next pass after retryAfterSeconds',
      state: { kind: 'CreationBlocked', hook: 'BeforeClusterCreate', message: 'wait', retryAfterSeconds: 30 },
      message: 'Following hooks are blocking Cluster topology creation: BeforeClusterCreate: wait',
      requeueAfterMs: 30_000,
    },
    {
      name: 'names only the hook when it says nothing',
      state: { kind: 'CreationBlocked', hook: 'BeforeClusterCreate', message: '', retryAfterSeconds: 1 },
      message: 'Following hooks are blocking Cluster topology creation: BeforeClusterCreate',
      requeueAfterMs: 1000,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const pair = computeTopologyReconciledCondition(c.state);
      assert.deepEqual(pair.condition, {
        type: 'TopologyReconciled',
        status: 'False',
        reason: 'ClusterCreating',
        message: c.message,
      });
      assert.equal(pair.v1beta1?.reason, 'ClusterCreating');
      assert.deepEqual(computeOutcome(c.state, []), {
        result: 'Requeue',
        requeueAfterMs: c.requeueAfterMs,
        changed: [],
      });
    });
  }

  test('computeHookBlockingMessage reads like upstream AggregateMessage', () => {
    assert.equal(
      computeHookBlockingMessage('upgrade', 'AfterControlPlaneUpgrade', ''),
      'Following hooks are blocking upgrade: AfterControlPlaneUpgrade',
    );
  });
});

describe('computeAggregatedResponse', () => {
  const cases: {
    name: string;
    answers: { retryAfterSeconds?: number; message?: string }[];
    expected: { retryAfterSeconds: number; message: string; handlers: number };
  }[] = [
    { name: 'no handlers: not blocking', answers: [], expected: { retryAfterSeconds: 0, message: '', handlers: 0 } },
    {
      name: 'takes the lowest non-zero retryAfterSeconds',
      answers: [{ retryAfterSeconds: 30 }, { retryAfterSeconds: 0 }, { retryAfterSeconds: 10 }],
      expected: { retryAfterSeconds: 10, message: '', handlers: 3 },
    },
    {
      name: 'joins the non-empty messages with ", "',
      answers: [{ message: 'a' }, { message: '' }, { message: 'b', retryAfterSeconds: 5 }],
      expected: { retryAfterSeconds: 5, message: 'a, b', handlers: 3 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(computeAggregatedResponse(c.answers), c.expected));
  }
});
