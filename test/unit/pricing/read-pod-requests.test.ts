import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { forwarderValues, readPodRequests } from '#shared/pricing/index.ts';
import { parseCpuQuantity, parseMemoryQuantity } from '#shared/pricing/read-pod-requests.ts';

describe('readPodRequests', () => {
  test("reads the forwarder's requests and limit from the chart's values.yaml", () => {
    assert.deepEqual(readPodRequests(forwarderValues), { cpu: 0.005, memoryMiB: 72, memoryLimitMiB: 128 });
  });

  test('reads a values file of the chart, and refuses one without requests', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-requests-'));
    try {
      const file = join(dir, 'values.yaml');
      writeFileSync(file, 'forwarder:\n  resources:\n    requests: { cpu: 50m, memory: 96Mi }\n');
      assert.deepEqual(readPodRequests(file), { cpu: 0.05, memoryMiB: 96 });
      writeFileSync(file, 'forwarder:\n  resources: { limits: { memory: 1Gi } }\n');
      assert.throws(() => readPodRequests(file), /forwarder\.resources\.requests needs cpu and memory/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
