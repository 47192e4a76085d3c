// shared/pricing/measured-profile.ts is generated from committed bench results: it must be what those results give
// now, so the cost model prices what was measured (a hand edit, or a new result not regenerated, fails here).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { measuredProfile } from '#shared/pricing/measured-profile.ts';
import { computeMeasuredProfile } from '#test/bench/side/compute-measured-profile.ts';

const root = new URL('../../../../', import.meta.url);
const generated = readFileSync(new URL('shared/pricing/measured-profile.ts', root), 'utf8');
const command = /print-profile\.ts --write ([^`]+)`/.exec(generated)?.[1]?.split(' ') ?? [];
const option = (name: string) => command.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const files = command.filter((a) => !a.startsWith('--'));
const read = (file: string) => ({ file, result: JSON.parse(readFileSync(new URL(file, root), 'utf8')) as never });

describe('the measured profile', () => {
  test('names the results it was generated from', () => assert.equal(files.filter(Boolean).length, 3));

  test('is what the named results give (regenerate with print-profile.ts --write)', () => {
    const [side = '', bench = '', forwarder = ''] = files;
    const [wakeUps, counts, init, webhooks, passes, idle] = [
      option('wake-ups'),
      option('counts'),
      option('init'),
      option('webhooks'),
      option('passes'),
      option('idle'),
    ];
    const computed = computeMeasuredProfile({
      side: read(side),
      bench: read(bench),
      forwarder: read(forwarder),
      ...(wakeUps ? { wakeUps: read(wakeUps) } : {}),
      ...(counts ? { counts: read(counts) } : {}),
      ...(init ? { init: read(init) } : {}),
      ...(webhooks ? { webhooks: read(webhooks) } : {}),
      ...(passes ? { passes: read(passes) } : {}),
      ...(idle ? { idle: read(idle) } : {}),
    });
    assert.deepEqual(JSON.parse(JSON.stringify(computed)), JSON.parse(JSON.stringify(measuredProfile)));
  });

  test("a run with a longer idle window replaces B's idle counts, not A's idle figures", () => {
    const [side = '', bench = '', forwarder = ''] = files;
    const idleRun = 'test/bench/results/side-b-10-profile.json';
    const base = { side: read(side), bench: read(bench), forwarder: read(forwarder) };
    const without = computeMeasuredProfile(base);
    const withIdle = computeMeasuredProfile({ ...base, idle: read(idleRun) });
    // That run's 1-minute idle window on 10 Clusters saw no webhook call; the side-by-side run's 10 minutes saw one.
    assert.equal(without.idle.webhookCallsPerClusterHour, 0.06);
    assert.equal(withIdle.idle.webhookCallsPerClusterHour, 0);
    assert.equal(withIdle.idle.replacedCpuSecondsPerHour, without.idle.replacedCpuSecondsPerHour);
    assert.match(
      withIdle.idle.source,
      /^B: test\/bench\/results\/side-b-10-profile\.json, idle window \(1 min, 10 Clusters\); A: /,
    );
  });
});
