import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseMix, runCost } from '#shared/cli/cost.ts';
import { measuredProfile } from '#shared/pricing/measured-profile.ts';

function cost(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCost(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-cost-'));
const pricesFile = (content: string) => {
  const path = join(dir, `${Math.random()}.json`);
  writeFileSync(path, content);
  return path;
};

type Json = {
  results: { variant: string; clusters: number; byUserType: Record<string, { totalB: number; totalA: number }> }[];
};

describe('capi-serverless cost', () => {
  test('prints both variants at 100, 1,000 and 10,000 Clusters, every line, A for both user types', () => {
    const { code, stdout, stderr } = cost([]);
    assert.equal(code, 0, stderr);
    for (const variant of ['public', 'private'])
      for (const n of ['100', '1,000', '10,000'])
        assert.ok(stdout.includes(`${variant} variant, ${n} Clusters`), stdout);
    for (const item of [
      'CloudWatch alarms',
      'Lambda: webhooks (Function URL)',
      'X-Ray traces',
      "forwarder pod's node share",
    ])
      assert.ok(stdout.includes(item), item);
    assert.match(stdout, /A \(operator\) \$[\d.]+: B (≤|> A)/);
    assert.match(stdout, /A \(clusterctl\) \$[\d.]+/);
    assert.match(stdout, /change mix .*upgrade=1/);
    const upgrade = measuredProfile.changes.upgrade;
    assert.ok(upgrade !== 'not measured');
    assert.ok(
      stdout.includes(`| upgrade | ${upgrade.eventInvocations} | ${upgrade.passesRun} / ${upgrade.passesSkipped} |`) &&
        stdout.includes('phase "version upgrade"'),
      'the profile with its source',
    );
    assert.match(stdout, /\*\*B with all of them\*\*/, 'the design changes with modelled savings');
  });

  test('the mix chooses the changes: upgrades alone at 10,000 Clusters cost B more than none', () => {
    const at = (mix: string) =>
      (JSON.parse(cost(['-n', '10000', '--variant', 'public', '--mix', mix, '-o', 'json']).stdout) as Json).results[0]
        ?.byUserType['operator']?.totalB ?? 0;
    assert.ok(at('upgrade=10') > at('upgrade=0'));
  });

  test('a prices file overrides list prices: a dearer node makes A and the forwarder dearer', () => {
    const args = ['-n', '100', '--variant', 'private', '--user-type', 'operator', '-o', 'json'];
    const totals = (extra: string[]) =>
      (JSON.parse(cost([...args, ...extra]).stdout) as Json).results[0]?.byUserType['operator'];
    const base = totals([]);
    const dear = totals(['--prices', pricesFile('{"ec2T3MediumPerHour": 0.1}')]);
    assert.ok((dear?.totalA ?? 0) > (base?.totalA ?? 0));
    assert.ok((dear?.totalB ?? 0) > (base?.totalB ?? 0));
  });

  test('the markdown output is one table per variant with totals and a verdict per size', () => {
    const { stdout } = cost(['--variant', 'public', '-o', 'markdown']);
    assert.match(stdout, /\*\*public variant\*\*/);
    assert.match(stdout, /\| A operator \| \*\*total\*\*/);
    assert.match(stdout, /10,000: B (≤ A|> A by \$[\d.]+)/);
  });

  test('parseMix: named types only, the others are 0', () => {
    assert.deepEqual(parseMix('upgrade=2,class=1'), {
      variable: 0,
      scale: 0,
      upgrade: 2,
      crs: 0,
      class: 1,
      create: 0,
    });
  });

  const refused: [string, string[], RegExp][] = [
    ['an unknown variant', ['--variant', 'satellite'], /--variant must be one of/],
    ['an unknown user type', ['--user-type', 'helm'], /--user-type must be one of/],
    ['an unknown change type', ['--mix', 'reboot=1'], /unknown change type "reboot"/],
    ['a negative count', ['--mix', 'upgrade=-1'], /--mix upgrade needs a number/],
    ['a negative fleet size', ['--clusters', '-5'], /--clusters needs a number/],
    ['an unknown price key', ['--prices', pricesFile('{"natGatewayPerHr": 1}')], /natGatewayPerHr|Unrecognized/],
    ['a price that is not a number', ['--prices', pricesFile('{"natGatewayPerHour": "cheap"}')], /natGatewayPerHour/],
    ['a prices file that is not JSON', ['--prices', pricesFile('{')], /failed to read prices file/],
  ];
  for (const [name, args, message] of refused)
    test(`refuses ${name} with exit code 2`, () => {
      const { code, stderr } = cost(args);
      assert.equal(code, 2);
      assert.match(stderr, message);
    });
});
