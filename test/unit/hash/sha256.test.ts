import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { computeSha256, sha256Hex } from '#shared/hash/sha256.ts';

describe('sha256Hex', () => {
  const cases: { name: string; chunks: string[]; want: string }[] = [
    {
      name: 'hashes the empty input',
      chunks: [],
      want: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    },
    {
      name: 'hashes "abc" (FIPS 180-2 vector)',
      chunks: ['abc'],
      want: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    },
    {
      name: 'hashes the two-block FIPS vector split across chunks',
      chunks: ['abcdbcdecdefdefgefghfghighij', 'hijkijkljklmklmnlmnomnopnopq'],
      want: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    },
  ];
  const enc = new TextEncoder();
  for (const c of cases) test(c.name, () => assert.equal(sha256Hex(c.chunks.map((s) => enc.encode(s))), c.want));

  test('property: agrees with node:crypto for any chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 6 }), (chunks) => {
        const node = createHash('sha256');
        for (const chunk of chunks) node.update(chunk);
        assert.equal(sha256Hex(chunks), node.digest('hex'));
      }),
      { numRuns: 300 },
    );
  });

  test('computeSha256 hashes a string as its UTF-8 bytes', () => {
    assert.equal(computeSha256('héllo'), createHash('sha256').update('héllo', 'utf8').digest('hex'));
    assert.equal(
      computeSha256(new Uint8Array([1, 2, 3])),
      createHash('sha256')
        .update(Buffer.from([1, 2, 3]))
        .digest('hex'),
    );
  });
});
