import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { computeResourceHash } from '#shared/addons/desired/resource-hash.ts';
import { ResourceParseError } from '#shared/addons/desired/resource-data.ts';
import { configMap, hashInputs, secret } from '#test/support/fixtures/addons.ts';

describe('computeResourceHash', () => {
  // Expected values printed by a Go program running upstream's normalizeData + computeHash (crypto/sha256, sort.Strings,
  // base64.StdEncoding) over test/support/fixtures/addons/hash-inputs.json, with Go 1.26.
  const goVectors: Record<string, string> = {
    'ConfigMap/calico-addon': 'sha256:9d96d04ec632913539d1abb6e15f310d62b6a270aec840755a0a6762cf1f1254',
    'Secret/db-secret': 'sha256:284c99ee33aa90b9ffff066ede2a2481e56bea2ad74b4e5f171fc3f4d7e5297c',
    'ConfigMap/big': 'sha256:87b39a18038e2340332d62d97aa539c7f9971405c8018947583cf1210cc123c6',
  };
  for (const content of hashInputs) {
    const id = `${content.kind}/${content.name}`;
    test(`matches the hash Go computes for ${id}`, () => {
      assert.equal(computeResourceHash(content), goVectors[id]);
    });
  }

  test('hashes the values concatenated in sorted key order, without the keys', () => {
    const expected = `sha256:${createHash('sha256').update('hello world').digest('hex')}`;
    assert.equal(computeResourceHash(configMap('cm', { b: 'world', a: 'hello ' })), expected);
    assert.equal(computeResourceHash(configMap('cm', { z: 'hello ', zz: 'world' })), expected);
  });

  test('hashes a Secret by its decoded bytes, so it equals the ConfigMap with the same text', () => {
    assert.equal(
      computeResourceHash(secret('s', { k: 'kind: A\n' })),
      computeResourceHash(configMap('c', { k: 'kind: A\n' })),
    );
  });

  test('changes when any value changes', () => {
    assert.notEqual(
      computeResourceHash(configMap('cm', { a: 'x', b: 'y' })),
      computeResourceHash(configMap('cm', { a: 'x', b: 'z' })),
    );
  });

  test('throws ResourceParseError for a resource without data', () => {
    assert.throws(() => computeResourceHash(configMap('cm', {})), ResourceParseError);
  });
});
