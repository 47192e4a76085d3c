import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareSemver, computeLatestVersion, formatSemver, parseSemver } from '#shared/providers/desired/semver.ts';

function cmp(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  assert.ok(x && y);
  return compareSemver(x, y);
}

describe('parseSemver', () => {
  const invalid = ['1.2', 'v1.2.x', 'v01.2.3', 'latest', '', 'v1.2.3-', 'v1.2.3+'];
  for (const v of invalid) test(`rejects ${JSON.stringify(v)}`, () => assert.equal(parseSemver(v), undefined));

  test('reads pre-release and build parts', () => {
    assert.deepEqual(parseSemver('v1.2.3-rc.1+build.5'), {
      major: 1,
      minor: 2,
      patch: 3,
      prerelease: ['rc', '1'],
      build: ['build', '5'],
    });
  });
});

describe('compareSemver', () => {
  // The ordering example of semver 2 §11.
  const ordered = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.1.0',
    '2.0.0',
  ];
  for (let i = 0; i + 1 < ordered.length; i++) {
    const a = ordered[i] ?? '';
    const b = ordered[i + 1] ?? '';
    test(`orders ${a} before ${b}`, () => {
      assert.equal(cmp(a, b), -1);
      assert.equal(cmp(b, a), 1);
    });
  }

  test('ignores build metadata', () => assert.equal(cmp('v1.0.0+a', 'v1.0.0+b'), 0));

  test('is antisymmetric and round-trips through formatSemver', () => {
    const version = fc
      .tuple(
        fc.nat(20),
        fc.nat(20),
        fc.nat(20),
        fc.array(fc.oneof(fc.constantFrom('rc', 'alpha', 'b'), fc.nat(30).map(String)), { maxLength: 3 }),
      )
      .map(([a, b, c, pre]) => `v${a}.${b}.${c}${pre.length ? `-${pre.join('.')}` : ''}`);
    fc.assert(
      fc.property(version, version, (a, b) => {
        assert.equal(cmp(a, b), -cmp(b, a));
        assert.equal(formatSemver(parseSemver(a) ?? assert.fail()), a);
      }),
    );
  });
});

describe('computeLatestVersion', () => {
  test('picks the highest release, skipping invalid versions', () => {
    assert.equal(computeLatestVersion(['v1.8.5', 'garbage', 'v1.9.0-rc.0', '1.9.0', 'v1.9.0-rc.1']), 'v1.9.0');
  });
  test('returns undefined when nothing parses', () => assert.equal(computeLatestVersion(['x']), undefined));
});
