import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compareVersions,
  compareWithBuildTags,
  formatVersion,
  parseVersionSemantic,
  parseVersionTolerant,
} from '#shared/lang/semver/semver.ts';

function cmp(a: string, b: string): number {
  const x = parseVersionSemantic(a);
  const y = parseVersionSemantic(b);
  assert.ok(x && y);
  return compareVersions(x, y, false);
}

describe('parseVersionSemantic (apimachinery version.ParseSemantic)', () => {
  const invalid = ['1.2', 'v1.2.x', 'v01.2.3', 'latest', '', 'v1.2.3-', 'v1.2.3+'];
  for (const v of invalid) test(`rejects ${JSON.stringify(v)}`, () => assert.equal(parseVersionSemantic(v), undefined));

  test('reads pre-release and build parts', () => {
    assert.deepEqual(parseVersionSemantic('v1.2.3-rc.1+build.5'), {
      major: 1,
      minor: 2,
      patch: 3,
      pre: ['rc', '1'],
      build: ['build', '5'],
    });
  });
});

describe('compareVersions', () => {
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

  test('is antisymmetric and round-trips through formatVersion', () => {
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
        assert.equal(`v${formatVersion(parseVersionSemantic(a) ?? assert.fail())}`, a);
      }),
    );
  });
});

describe('parseVersionTolerant (blang semver.ParseTolerant)', () => {
  const cases: readonly (readonly [string, string, string | undefined])[] = [
    ['fills a missing minor and patch with zeros', 'v1', '1.0.0'],
    ['accepts surrounding spaces and a leading v', ' v1.30 ', '1.30.0'],
    ['drops leading zeros', '01.02.03', '1.2.3'],
    ['keeps pre-release and build', 'v1.30.1-rc.0+build.1', '1.30.1-rc.0+build.1'],
    ['refuses text that is no version', 'latest', undefined],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      const v = parseVersionTolerant(text);
      assert.equal(v === undefined ? undefined : formatVersion(v), want);
    });
  }
});

describe('compareWithBuildTags (util/version.Compare with WithBuildTags)', () => {
  const v = (s: string) => parseVersionTolerant(s) ?? assert.fail(s);
  test('orders numeric build identifiers numerically', () =>
    assert.equal(compareWithBuildTags(v('1.0.0+2'), v('1.0.0+10')), -1));
  test('cannot order two different non-numeric build identifiers', () =>
    assert.equal(compareWithBuildTags(v('1.0.0+a'), v('1.0.0+b')), 2));
  test('compares build metadata when compareVersions is asked to', () => {
    assert.equal(compareVersions(v('1.0.0'), v('1.0.0+a')), -1);
    assert.equal(compareVersions(v('1.0.0'), v('1.0.0+a'), false), 0);
  });
  test('orders numeric pre-release identifiers past 2^53 exactly', () =>
    assert.equal(compareVersions(v('1.0.0-9007199254740993'), v('1.0.0-9007199254740992')), 1));
});
