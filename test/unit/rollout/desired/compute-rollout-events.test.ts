import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeRollout } from '#shared/rollout/desired/compute-rollout.ts';
import { computeRolloutEvents } from '#shared/rollout/desired/compute-rollout-events.ts';
import { fleet, health, newTopology, rollout } from '#test/support/builders/rollout.ts';

const t0 = Date.parse('2026-11-27T13:00:00Z');

test('a pass that changes the canary records an Event on the Cluster and on the rollout, and the phase', () => {
  const r = rollout();
  const d = computeRollout({ rollout: r, clusters: fleet(3), now: t0 });
  assert.deepEqual(computeRolloutEvents('fleet/v134', r.status, d.status, d.changes), [
    {
      regarding: { kind: 'Cluster', name: 'c01' },
      type: 'Normal',
      reason: 'TopologyChanged',
      message: 'ClusterRollout fleet/v134 (wave-1) changed spec.topology from dev@v1.33.0 to dev@v1.34.1',
    },
    {
      regarding: { kind: 'ClusterRollout' },
      type: 'Normal',
      reason: 'ClusterChanged',
      message: 'changed Cluster c01: dev@v1.33.0 -> dev@v1.34.1',
    },
    {
      regarding: { kind: 'ClusterRollout' },
      type: 'Normal',
      reason: 'RolloutProgressing',
      message: 'wave-1 is rolling out',
    },
  ]);
});

test('a failed Cluster gets a Warning on itself and on the rollout; a halt is a Warning', () => {
  const r = rollout({ healthGate: { timeout: '1m' } });
  const d1 = computeRollout({ rollout: r, clusters: fleet(3), now: t0 });
  const sick = fleet(3).map((c) =>
    c.name === 'c01' ? { ...c, topology: newTopology, health: health(['WorkersAvailable']) } : c,
  );
  const d2 = computeRollout({ rollout: { ...r, status: d1.status }, clusters: sick, now: t0 + 120_000 });
  const events = computeRolloutEvents('fleet/v134', d1.status, d2.status, d2.changes);
  assert.deepEqual(
    events.map((e) => [e.regarding.kind, e.type, e.reason]),
    [
      ['Cluster', 'Warning', 'RolloutHealthGateFailed'],
      ['ClusterRollout', 'Warning', 'ClusterFailed'],
      ['ClusterRollout', 'Warning', 'RolloutHalted'],
    ],
  );
  assert.match(events[2]?.message ?? '', /wave-1 failed its health gate: c01 \(HealthGateTimeout/);
});
