// Properties of the rollout's pure step over random fleets, wave lists and health: every Cluster lands in exactly one
// wave, a pass only ever changes Pending Clusters of the wave in progress (never one outside the selector or of a later
// wave), never more than maxConcurrent at once, and computing twice gives the same result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { RolloutWave } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { computeRollout } from '#shared/rollout/desired/compute-rollout.ts';
import { computeWaveSizes } from '#shared/rollout/desired/compute-wave-plan.ts';
import type { RolloutClusterFacts } from '#shared/rollout/types.ts';
import { fleet, health, newTopology, rollout } from '#test/support/builders/rollout.ts';

const waveSize = fc.oneof(
  fc.integer({ min: 1, max: 6 }),
  fc.integer({ min: 1, max: 100 }).map((p) => `${p}%`),
);
const waves = fc
  .tuple(fc.array(waveSize, { maxLength: 4 }), waveSize)
  .map(([head]): RolloutWave[] => [...head.map((clusters) => ({ clusters })), { clusters: 'rest' }]);

test('every Cluster lands in exactly one wave', () => {
  fc.assert(
    fc.property(waves, fc.integer({ min: 0, max: 60 }), (w, total) => {
      const sizes = computeWaveSizes(w, total);
      assert.equal(sizes.length, w.length);
      assert.equal(
        sizes.reduce((a, b) => a + b, 0),
        total,
      );
      assert.ok(sizes.every((s) => s >= 0));
    }),
  );
});

test('a run only changes Pending Clusters of the wave in progress, at most maxConcurrent at once, and is deterministic', () => {
  fc.assert(
    fc.property(
      waves,
      fc.integer({ min: 0, max: 16 }),
      fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      (w, n, maxConcurrent, coin) => {
        let r = rollout({
          waves: w,
          bakeTime: '1m',
          healthGate: { timeout: '5m' },
          ...(maxConcurrent ? { maxConcurrent } : {}),
        });
        // NOTE: odd Clusters are not selected: they must never be written.
        let clusters: RolloutClusterFacts[] = fleet(n, (name) => ({ selected: Number(name.slice(1)) % 2 === 0 }));
        let now = Date.parse('2026-11-27T13:00:00Z');
        for (let step = 0; step < 40; step++) {
          const input = { rollout: r, clusters: clusters.filter((c) => c.selected), now };
          const d = computeRollout(input);
          assert.deepEqual(computeRollout(input), d);
          const before = new Map((r.status?.clusters ?? []).map((e) => [e.name, e]));
          const current = (d.status.currentWave ?? 1) - 1;
          assert.ok(d.changes.length <= (maxConcurrent ?? Number.POSITIVE_INFINITY));
          for (const change of d.changes) {
            assert.ok(clusters.find((c) => c.name === change.name)?.selected, `${change.name} is selected`);
            assert.equal(change.wave, current, `${change.name} is in the wave in progress`);
            const was = before.get(change.name)?.state;
            assert.ok(was === undefined || was === 'Pending', `${change.name} was ${was}`);
          }
          const changed = new Set(d.changes.map((c) => c.name));
          // NOTE: a changed Cluster turns out healthy or not at random; half a minute to five minutes pass.
          clusters = clusters.map((c) =>
            changed.has(c.name)
              ? { ...c, topology: newTopology, health: coin[step] ? health() : health(['WorkersAvailable']) }
              : c,
          );
          r = { ...r, status: d.status };
          now = d.nextDueAt ?? now + 30_000;
        }
      },
    ),
    { numRuns: 60 },
  );
});
