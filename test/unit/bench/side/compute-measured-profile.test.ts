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
    const [wakeUps, counts, init, webhooks, passes] = [
      option('wake-ups'),
      option('counts'),
      option('init'),
      option('webhooks'),
      option('passes'),
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
    });
    assert.deepEqual(JSON.parse(JSON.stringify(computed)), JSON.parse(JSON.stringify(measuredProfile)));
  });
});
