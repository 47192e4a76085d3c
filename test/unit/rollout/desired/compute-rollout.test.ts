import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterRollout, ClusterRolloutSpec } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { computeRollout } from '#shared/rollout/desired/compute-rollout.ts';
import { computeStatusAfterApply } from '#shared/rollout/desired/compute-status-after-apply.ts';
import type { DesiredRollout, RolloutClusterFacts } from '#shared/rollout/types.ts';
import { computeClusterFacts } from '#shared/rollout/current/list-rollout-clusters.ts';
import { cluster, fleet, health, newTopology, oldTopology, rollout } from '#test/support/builders/rollout.ts';
import { rebaseSteps, type GateStep } from '#test/support/builders/rollout-upstream.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const t0 = Date.parse('2026-11-27T13:00:00Z');
const min = 60_000;

/** One pass with frozen inputs (a mutation throws). */
function pass(r: ClusterRollout, clusters: readonly RolloutClusterFacts[], now: number): DesiredRollout {
  return computeRollout(deepFreeze({ rollout: structuredClone(r), clusters: structuredClone(clusters), now }));
}

/** The rollout as the next pass reads it: the status written, the generation unchanged. */
const after = (r: ClusterRollout, d: DesiredRollout, spec: Partial<ClusterRolloutSpec> = {}): ClusterRollout => ({
  ...r,
  spec: { ...r.spec, ...spec },
  status: d.status,
});

/** The Clusters once `changes` were written: at the new version, healthy unless listed in `sick`. */
function changed(clusters: readonly RolloutClusterFacts[], d: DesiredRollout, sick: readonly string[] = []) {
  const names = new Set(d.changes.map((c) => c.name));
  return clusters.map((c) =>
    names.has(c.name)
      ? { ...c, topology: newTopology, health: sick.includes(c.name) ? health(['ControlPlaneAvailable']) : health() }
      : c,
  );
}

const states = (d: DesiredRollout) => Object.fromEntries((d.status.clusters ?? []).map((e) => [e.name, e.state]));
const entry = (d: DesiredRollout, name: string) => d.status.clusters?.find((e) => e.name === name);
const condition = (d: DesiredRollout, type: string) => d.status.conditions?.find((c) => c.type === type);

describe('computeRollout: waves', () => {
  const base = rollout({ bakeTime: '10m' });
  const clusters = fleet(8);

  test('plans the selected Clusters in name order and changes only the canary', () => {
    const d = pass(base, [...clusters].reverse(), t0);
    assert.deepEqual(
      d.changes.map((c) => [c.name, c.set, c.wave]),
      // NOTE: the classRef the rollout does not change is sent too (its field manager keeps owning both fields).
      [['c01', { classRef: { name: 'dev' }, version: 'v1.34.1' }, 0]],
    );
    assert.deepEqual(
      (d.status.clusters ?? []).map((e) => [e.name, e.wave, e.state]),
      [
        ['c01', 0, 'Changing'],
        ['c02', 1, 'Pending'],
        ['c03', 1, 'Pending'],
        ['c04', 1, 'Pending'],
        ['c05', 2, 'Pending'],
        ['c06', 2, 'Pending'],
        ['c07', 2, 'Pending'],
        ['c08', 2, 'Pending'],
      ],
    );
    assert.equal(d.status.phase, 'Progressing');
    assert.equal(d.status.progress, '1/8');
    assert.equal(d.status.currentWave, 1);
    assert.deepEqual(entry(d, 'c02')?.original, oldTopology);
    assert.equal(d.nextDueAt, t0 + 30 * min, 'due at the canary health gate timeout');
  });

  test('keeps a changed Cluster Changing while its gate fails, due at its timeout', () => {
    const d1 = pass(base, clusters, t0);
    const d2 = pass(after(base, d1), changed(clusters, d1, ['c01']), t0 + 5 * min);
    assert.equal(entry(d2, 'c01')?.state, 'Changing');
    assert.match(entry(d2, 'c01')?.message ?? '', /waiting for its health gate: ControlPlaneAvailable failing/);
    assert.deepEqual(d2.changes, []);
    assert.equal(d2.nextDueAt, t0 + 30 * min);
    assert.equal(condition(d2, 'HealthGate')?.reason, 'Waiting');
  });

  test('bakes a wave once its Clusters are healthy and starts the next one when the bake is over', () => {
    const d1 = pass(base, clusters, t0);
    const c1 = changed(clusters, d1);
    const d2 = pass(after(base, d1), c1, t0 + 2 * min);
    assert.equal(entry(d2, 'c01')?.state, 'Healthy');
    assert.equal(d2.status.phase, 'Baking');
    assert.equal(d2.status.waves?.[0]?.state, 'Baking');
    assert.equal(d2.nextDueAt, t0 + 12 * min);
    assert.deepEqual(d2.changes, []);
    const d3 = pass(after(base, d2), c1, t0 + 12 * min);
    assert.equal(d3.status.waves?.[0]?.state, 'Succeeded');
    assert.deepEqual(
      d3.changes.map((c) => c.name),
      ['c02', 'c03', 'c04'],
    );
    assert.equal(d3.status.currentWave, 2);
  });

  test('changes at most maxConcurrent Clusters of a wave at once', () => {
    const r = rollout({ waves: [{ clusters: 'rest' }], maxConcurrent: 2 });
    const d1 = pass(r, clusters, t0);
    assert.deepEqual(
      d1.changes.map((c) => c.name),
      ['c01', 'c02'],
    );
    const d2 = pass(after(r, d1), changed(clusters, d1), t0 + min);
    assert.deepEqual(
      d2.changes.map((c) => c.name),
      ['c03', 'c04'],
    );
  });

  test('runs to completion, changing each Cluster exactly once, wave after wave', () => {
    let r = base;
    let cs = clusters;
    let now = t0;
    const order: string[][] = [];
    for (let i = 0; i < 20 && r.status?.phase !== 'Completed'; i++) {
      const d = pass(r, cs, now);
      if (d.changes.length > 0) order.push(d.changes.map((c) => c.name));
      cs = changed(cs, d);
      r = after(r, d);
      now = d.nextDueAt ?? now + min;
    }
    assert.deepEqual(order, [['c01'], ['c02', 'c03', 'c04'], ['c05', 'c06', 'c07', 'c08']]);
    assert.equal(r.status?.phase, 'Completed');
    assert.equal(r.status?.progress, '8/8');
    assert.equal(condition({ status: r.status ?? {}, changes: [], nextDueAt: undefined }, 'Completed')?.status, 'True');
    const done = pass(r, cs, now + 60 * min);
    assert.equal(done.nextDueAt, undefined, 'a completed rollout is never due');
    assert.deepEqual(done.changes, []);
  });
});

describe('computeRollout: failures and retry', () => {
  const base = rollout({ bakeTime: '10m', healthGate: { timeout: '20m' } });
  const clusters = fleet(8);
  /** Through the canary into wave 2, with c03 failing its gate. */
  function intoWave2() {
    const d1 = pass(base, clusters, t0);
    const c1 = changed(clusters, d1);
    const d2 = pass(after(base, d1), c1, t0 + min);
    const d3 = pass(after(base, d2), c1, t0 + 11 * min);
    const c3 = changed(c1, d3, ['c03']);
    return { r: after(base, d3), cs: c3 };
  }

  test('fails a Cluster not healthy by the timeout and halts the wave, naming it', () => {
    const { r, cs } = intoWave2();
    const d = pass(r, cs, t0 + 31 * min);
    assert.deepEqual(states(d), {
      c01: 'Healthy',
      c02: 'Healthy',
      c03: 'Failed',
      c04: 'Healthy',
      c05: 'Pending',
      c06: 'Pending',
      c07: 'Pending',
      c08: 'Pending',
    });
    assert.equal(entry(d, 'c03')?.reason, 'HealthGateTimeout');
    assert.equal(d.status.phase, 'Halted');
    assert.equal(d.status.waves?.[1]?.state, 'Failed');
    const progressing = condition(d, 'Progressing');
    assert.equal(progressing?.reason, 'WaveFailed');
    assert.match(progressing?.message ?? '', /wave-2 failed its health gate: c03 \(HealthGateTimeout/);
    assert.equal(condition(d, 'HealthGate')?.message, 'failing: c03');
    assert.deepEqual(d.changes, []);
    assert.equal(d.nextDueAt, undefined, 'a halted rollout waits for its retry');
    const still = pass(after(r, d), cs, t0 + 300 * min);
    assert.equal(still.status.phase, 'Halted');
    assert.deepEqual(still.changes, []);
  });

  test('raising spec.retry after the fix passes the fixed Cluster and goes on', () => {
    const { r, cs } = intoWave2();
    const halted = pass(r, cs, t0 + 31 * min);
    const fixed = cs.map((c) => (c.name === 'c03' ? { ...c, health: health() } : c));
    const stillHalted = pass(after(r, halted), fixed, t0 + 32 * min);
    assert.equal(stillHalted.status.phase, 'Halted', 'a fix alone does not resume');
    const resumed = pass(after(r, halted, { retry: 1 }), fixed, t0 + 33 * min);
    assert.equal(entry(resumed, 'c03')?.state, 'Healthy');
    assert.equal(resumed.status.phase, 'Baking');
    assert.equal(resumed.status.observedRetry, 1);
  });

  test('a Healthy Cluster that loses its health before its wave completes fails it', () => {
    const d1 = pass(base, clusters, t0);
    const c1 = changed(clusters, d1);
    const d2 = pass(after(base, d1), c1, t0 + min);
    const sick = c1.map((c) => (c.name === 'c01' ? { ...c, health: health(['NotRemediating']) } : c));
    const d3 = pass(after(base, d2), sick, t0 + 5 * min);
    assert.equal(entry(d3, 'c01')?.state, 'Failed');
    assert.equal(entry(d3, 'c01')?.reason, 'HealthLost');
    assert.equal(d3.status.phase, 'Halted');
  });

  test('a change the server refuses fails the Cluster with its message and halts', () => {
    const d1 = pass(base, clusters, t0);
    const message = 'admission webhook "validation.cluster.cluster.x-k8s.io" denied the request: version downgrade';
    const d = computeStatusAfterApply(base, d1, [{ name: 'c01', result: 'Refused', message }], t0);
    assert.equal(entry(d, 'c01')?.state, 'Failed');
    assert.equal(entry(d, 'c01')?.reason, 'ChangeRefused');
    assert.equal(entry(d, 'c01')?.message, `the change was refused: ${message}`);
    assert.equal(entry(d, 'c01')?.changedAt, undefined);
    assert.equal(d.status.phase, 'Halted');
    assert.equal(d.status.progress, '0/8');
    assert.deepEqual(d.changes, []);
    assert.equal(d.nextDueAt, undefined, 'nothing left changing: no due time');
  });

  test('a change to try again puts the Cluster back to Pending and looks again in 5 s', () => {
    const d1 = pass(base, clusters, t0);
    const d = computeStatusAfterApply(
      base,
      d1,
      [{ name: 'c01', result: 'Retry', message: 'the object has been modified' }],
      t0,
    );
    assert.equal(entry(d, 'c01')?.state, 'Pending');
    assert.equal(d.nextDueAt, t0 + 5000);
    assert.equal(d.status.phase, 'Progressing');
  });
});

describe('computeRollout: Clusters changed meanwhile, skipped or gone', () => {
  const base = rollout();
  const elsewhere = { classRef: { name: 'dev' }, version: 'v1.33.5' };

  test('reports a not yet reached Cluster changed to a third version as Conflict and never changes it', () => {
    const d1 = pass(base, fleet(8), t0);
    const cs = changed(fleet(8), d1).map((c) => (c.name === 'c02' ? { ...c, topology: elsewhere } : c));
    const d2 = pass(after(base, d1), cs, t0 + min);
    assert.equal(entry(d2, 'c02')?.state, 'Conflict');
    assert.match(
      entry(d2, 'c02')?.message ?? '',
      /changed meanwhile to dev@v1.33.5 \(was dev@v1.33.0, the rollout's target dev@v1.34.1\)/,
    );
    assert.deepEqual(
      d2.changes.map((c) => c.name),
      ['c03', 'c04'],
    );
    assert.equal(condition(d2, 'Conflicts')?.status, 'True');
  });

  test('reports a changed Cluster reverted by someone else (a newer generation at the original) as Conflict', () => {
    const d1 = pass(base, fleet(8), t0);
    const d2 = pass(
      after(base, d1),
      fleet(8, (n) => (n === 'c01' ? { generation: 3 } : {})),
      t0 + min,
    );
    assert.equal(entry(d2, 'c01')?.state, 'Conflict');
    assert.equal(entry(d2, 'c01')?.reason, 'ChangedMeanwhile');
    assert.ok(!d2.changes.some((c) => c.name === 'c01'), 'never overwritten');
  });

  test('makes a change again when the Cluster is at the same generation as before it (the write never landed)', () => {
    const d1 = pass(base, fleet(8), t0);
    assert.equal(entry(d1, 'c01')?.baseGeneration, 1);
    const d2 = pass(after(base, d1), fleet(8), t0 + min);
    assert.equal(entry(d2, 'c01')?.state, 'Changing');
    assert.deepEqual(
      d2.changes.map((c) => c.name),
      ['c01'],
    );
  });

  test('skips a reached Cluster already at the target without writing it', () => {
    const cs = fleet(8, (n) => (n === 'c01' ? { topology: newTopology } : {}));
    const d = pass(rollout({ waves: [{ clusters: 2 }, { clusters: 'rest' }] }), cs, t0);
    assert.equal(entry(d, 'c01')?.state, 'Skipped');
    assert.equal(entry(d, 'c01')?.reason, 'AlreadyAtTarget');
    assert.deepEqual(
      d.changes.map((c) => c.name),
      ['c02'],
    );
  });

  test('skips a Cluster without a topology, one no longer selected and one deleted', () => {
    const d1 = pass(
      base,
      fleet(8, (n) => (n === 'c08' ? { topology: undefined } : {})),
      t0,
    );
    assert.equal(entry(d1, 'c08')?.reason, 'NoTopology');
    const cs = changed(fleet(8), d1)
      .filter((c) => c.name !== 'c06')
      .map((c) => (c.name === 'c05' ? { ...c, selected: false } : c));
    const d2 = pass(after(base, d1), cs, t0 + min);
    assert.deepEqual(
      [entry(d2, 'c05')?.state, entry(d2, 'c05')?.reason, entry(d2, 'c06')?.state, entry(d2, 'c06')?.reason],
      ['Skipped', 'NotSelected', 'Skipped', 'Deleted'],
    );
  });

  test('a Cluster selected mid-rollout joins the last wave', () => {
    const d1 = pass(base, fleet(8), t0);
    const d2 = pass(after(base, d1), [...changed(fleet(8), d1), cluster('c00')], t0 + min);
    assert.deepEqual([entry(d2, 'c00')?.wave, entry(d2, 'c00')?.state], [2, 'Pending']);
    assert.equal(d2.status.counts?.total, 9);
  });
});

describe('computeRollout: pause, abort, window, invalid', () => {
  test('starts nothing while paused, still gating the changed Clusters', () => {
    const base = rollout();
    const d1 = pass(base, fleet(8), t0);
    const d2 = pass(after(base, d1, { paused: true }), changed(fleet(8), d1), t0 + min);
    assert.equal(d2.status.phase, 'Paused');
    assert.equal(entry(d2, 'c01')?.state, 'Healthy');
    assert.deepEqual(d2.changes, []);
    assert.equal(condition(d2, 'Progressing')?.reason, 'Paused');
    const d3 = pass(after(base, d2, { paused: false }), changed(fleet(8), d1), t0 + 2 * min);
    assert.deepEqual(
      d3.changes.map((c) => c.name),
      ['c02', 'c03', 'c04'],
    );
  });

  test('abort leaves the Clusters not yet changed untouched and lists the changed ones', () => {
    const base = rollout();
    const d1 = pass(base, fleet(8), t0);
    const cs = changed(fleet(8), d1);
    const d2 = pass(after(base, d1), cs, t0 + min);
    const d3 = pass(after(base, d2, { abort: true }), changed(cs, d2), t0 + 2 * min);
    assert.equal(d3.status.phase, 'Aborted');
    assert.deepEqual(d3.changes, []);
    assert.equal(d3.nextDueAt, undefined);
    assert.equal(entry(d3, 'c05')?.reason, 'Aborted');
    assert.equal(
      condition(d3, 'Progressing')?.message,
      'aborted; changed: c01, c02, c03, c04; left unchanged: 4 Cluster(s)',
    );
    assert.deepEqual(pass(after(base, d3, { abort: false }), cs, t0 + 3 * min).changes, [], 'abort is final');
  });

  test('outside the maintenance window nothing starts and the next pass is due at its start', () => {
    const r = rollout({
      maintenanceWindow: { days: ['Sat'], start: '22:00', end: '04:00', timeZone: 'Europe/Berlin' },
    });
    const d = pass(r, fleet(8), t0);
    assert.equal(d.status.phase, 'WaitingForWindow');
    assert.deepEqual(d.changes, []);
    assert.equal(d.nextDueAt, Date.parse('2026-11-28T21:00:00Z'));
    assert.equal(condition(d, 'Progressing')?.reason, 'WaitingForMaintenanceWindow');
    const inside = pass(after(r, d), fleet(8), Date.parse('2026-11-28T21:00:00Z'));
    assert.deepEqual(
      inside.changes.map((c) => c.name),
      ['c01'],
    );
  });

  test('an invalid spec changes nothing and says why', () => {
    const r = rollout({ waves: [{ clusters: 1 }, { clusters: 3 }] });
    const d = pass(r, fleet(8), t0);
    assert.equal(d.status.phase, 'Invalid');
    assert.deepEqual(d.changes, []);
    assert.match(condition(d, 'Progressing')?.message ?? '', /must cover every selected Cluster/);
  });

  test('waits without a due time while no Cluster is selected', () => {
    const d = pass(rollout(), [], t0);
    assert.equal(d.status.phase, 'Progressing');
    assert.equal(condition(d, 'Progressing')?.reason, 'NoClustersSelected');
    assert.equal(d.nextDueAt, undefined);
  });

  test('computing twice gives the same result', () => {
    const r = rollout({ bakeTime: '10m' });
    assert.deepEqual(pass(r, fleet(8), t0), pass(r, fleet(8), t0));
  });
});

describe('computeRollout: the health gate through a rebase as upstream v1.14 shows it (the fleet e2e at a62f375)', () => {
  const r0 = rollout({ change: { classRef: { name: 'in-memory-v2' } }, waves: [{ clusters: 'rest' }], bakeTime: '1m' });
  const steps = rebaseSteps('c05');
  const factsAt = (step: GateStep) => [computeClusterFacts(step.cluster, true, step.parts)];
  /** The passes of one rollout over `c05`, one a minute, each reading the step given. */
  function run(sequence: readonly (keyof typeof steps)[]) {
    let r = r0;
    const seen: DesiredRollout[] = [];
    for (const [i, name] of sequence.entries()) {
      const d = pass(r, factsAt(steps[name]), t0 + i * min);
      seen.push(d);
      r = after(r, d);
    }
    return seen;
  }

  test('keeps the Cluster Changing until its rollout is finished, never HealthLost', () => {
    const seen = run([
      'before',
      'written',
      'topologyApplied',
      'mdObservedNotYetRolling',
      'rollingOut',
      'finished',
      'finished',
    ]);
    assert.deepEqual(
      seen.map((d) => [entry(d, 'c05')?.state, entry(d, 'c05')?.reason]),
      [
        ['Changing', 'Changed'],
        ['Changing', 'Changed'],
        ['Changing', 'Changed'],
        ['Changing', 'Changed'],
        ['Changing', 'Changed'],
        ['Healthy', 'HealthGatePassed'],
        ['Healthy', 'HealthGatePassed'],
      ],
    );
    assert.deepEqual(
      seen[0]?.changes.map((c) => c.name),
      ['c05'],
    );
    assert.match(
      entry(seen[3] as DesiredRollout, 'c05')?.message ?? '',
      /MachineSet c05-md-0-old of an older template/,
    );
    assert.equal(seen.at(-1)?.status.phase, 'Completed');
  });

  test('gates a Healthy Cluster again when its spec moves on before its wave completes, instead of HealthLost', () => {
    const [, healthy] = run(['before', 'finished']);
    assert.equal(entry(healthy as DesiredRollout, 'c05')?.state, 'Healthy');
    assert.equal(healthy?.status.phase, 'Baking');
    const r = after(r0, healthy as DesiredRollout);
    const again = pass(r, factsAt(steps.topologyApplied), t0 + min + 10_000);
    assert.equal(entry(again, 'c05')?.state, 'Changing');
    assert.equal(entry(again, 'c05')?.reason, 'Changed');
    assert.match(entry(again, 'c05')?.message ?? '', /^changed again after it passed its health gate/);
    assert.equal(again.status.phase, 'Progressing');
    const back = pass(after(r, again), factsAt(steps.finished), t0 + 2 * min);
    assert.equal(entry(back, 'c05')?.state, 'Healthy');
    assert.equal(back.status.phase, 'Baking', 'the bake starts again');
  });

  test('still fails a Cluster that passed its gate and then lost its health with its change observed', () => {
    const [, healthy] = run(['before', 'finished']);
    const r = after(r0, healthy as DesiredRollout);
    const sick = factsAt(steps.finished).map((c) => ({
      ...c,
      health: { ...c.health, NotRemediating: { ok: false, detail: 'Remediating is True (Remediating)' } },
    }));
    const lost = pass(r, sick, t0 + min + 10_000);
    assert.equal(entry(lost, 'c05')?.state, 'Failed');
    assert.equal(entry(lost, 'c05')?.reason, 'HealthLost');
  });
});
