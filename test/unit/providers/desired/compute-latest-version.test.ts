import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeLatestVersion } from '#shared/providers/desired/compute-latest-version.ts';

describe('computeLatestVersion', () => {
  test('picks the highest release, skipping invalid versions', () => {
    assert.equal(computeLatestVersion(['v1.8.5', 'garbage', 'v1.9.0-rc.0', '1.9.0', 'v1.9.0-rc.1']), 'v1.9.0');
  });
  test('returns undefined when nothing parses', () => assert.equal(computeLatestVersion(['x']), undefined));
});
