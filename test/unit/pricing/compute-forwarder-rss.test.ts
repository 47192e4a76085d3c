import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeForwarderRss, type RssPoint } from '#shared/pricing/compute-forwarder-rss.ts';

const lean: readonly RssPoint[] = Object.freeze([
  Object.freeze({ watchedObjects: 50_002, rssMiB: 101.4 }),
  Object.freeze({ watchedObjects: 10_002, rssMiB: 73.6 }),
]);
const slope = (101.4 - 73.6) / 40_000;

describe('computeForwarderRss', () => {
  const cases: [string, readonly RssPoint[], number, number, string][] = [
    ['a measured count gives its measured RSS', lean, 10_002, 73.6, 'measured'],
    ['between two points it is linear', lean, 30_002, 73.6 + slope * 20_000, 'interpolated'],
    ['beyond the last point it follows the last segment', lean, 80_000, 101.4 + slope * 29_998, 'extrapolated'],
    ['below the first point it follows the first segment', lean, 800, 73.6 - slope * 9_202, 'extrapolated'],
    ['one point is taken as flat', [{ watchedObjects: 10_000, rssMiB: 48 }], 80_000, 48, 'extrapolated'],
    [
      'never below zero',
      [
        { watchedObjects: 1_000, rssMiB: 10 },
        { watchedObjects: 2_000, rssMiB: 100 },
      ],
      0,
      0,
      'extrapolated',
    ],
  ];
  for (const [name, points, watched, rss, basis] of cases)
    test(name, () => {
      const r = computeForwarderRss(points, watched);
      assert.ok(Math.abs(r.rssMiB - rss) < 1e-9, `${r.rssMiB} ≠ ${rss}`);
      assert.equal(r.basis, basis);
    });

  test('names the points it is derived from', () => {
    assert.deepEqual(
      computeForwarderRss(lean, 30_002).from.map((p) => p.watchedObjects),
      [10_002, 50_002],
    );
  });

  test('without a measured point it throws', () => assert.throws(() => computeForwarderRss([], 1), RangeError));
});
