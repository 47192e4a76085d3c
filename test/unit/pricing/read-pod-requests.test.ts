import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { forwarderManifest, readPodRequests } from '#shared/pricing/index.ts';
import { parseCpuQuantity, parseMemoryQuantity } from '#shared/pricing/read-pod-requests.ts';

describe('readPodRequests', () => {
  test("reads the forwarder's requests and limit from its shipped Deployment", () => {
    assert.deepEqual(readPodRequests(forwarderManifest), { cpu: 0.02, memoryMiB: 80, memoryLimitMiB: 128 });
  });

  const quantities: [string, number, number][] = [
    ['20m', 0.02, NaN],
    ['1', 1, NaN],
    ['64Mi', NaN, 64],
    ['1Gi', NaN, 1024],
    ['512Ki', NaN, 0.5],
  ];
  for (const [q, cpu, mib] of quantities)
    test(`parses ${q}`, () => {
      if (!Number.isNaN(cpu)) assert.equal(parseCpuQuantity(q), cpu);
      if (!Number.isNaN(mib)) assert.equal(parseMemoryQuantity(q), mib);
    });

  test('refuses quantities it cannot read', () => {
    assert.throws(() => parseCpuQuantity('lots'), /unsupported CPU quantity/);
    assert.throws(() => parseMemoryQuantity('64MB'), /unsupported memory quantity/);
  });
});
