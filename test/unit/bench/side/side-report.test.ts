// The side-by-side report's first sentence says how the two sides ran: at once, one after the other in one run, or
// each from its own run merged by merge-sides.ts (side B run again after a fix: the reader must see the two dates).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeSideMarkdown, type SideBenchResult } from '#test/bench/side/side-report.ts';

const result = (config: Record<string, unknown>): SideBenchResult =>
  ({
    date: '2026-11-26T19:34:45.864Z',
    machine: '2 × Intel(R) Xeon(R) Processor, 24 GiB RAM',
    config: { clusters: 100, idleMs: 600_000, tickMs: 300_000, ...config },
    durationMs: 3_000_000,
    sides: {},
  }) as unknown as SideBenchResult;

const firstLine = (config: Record<string, unknown>) => computeSideMarkdown(result(config)).split('\n')[0] ?? '';

describe('side-by-side report: how the sides ran', () => {
  test('both at once', () => {
    assert.match(firstLine({ concurrent: true }), /both sides ran at the same time on the same machine/);
  });
  test('one after the other in one run', () => {
    assert.match(firstLine({ concurrent: false }), /both sides ran one after the other on the same machine/);
  });
  test('two runs merged, with the start of each', () => {
    const line = firstLine({
      concurrent: false,
      runs: { A: '2026-11-26T19:34:45.864Z', B: '2026-11-26T21:41:07.000Z' },
    });
    assert.match(line, /each side from its own run on the same machine with the same configuration, merged/);
    assert.match(line, /side A started 2026-11-26 19:34 UTC, side B 2026-11-26 21:41 UTC/);
  });
});

describe('side-by-side report: side B pass errors', () => {
  test('lists each of side B’s pass errors under "Pass errors"', () => {
    const markdown = computeSideMarkdown({
      ...result({}),
      sides: {
        B: {
          side: 'B',
          durationMs: 1,
          phases: [],
          passErrors: [
            {
              at: '2026-11-28T13:28:05.120Z',
              controller: 'topology',
              object: 'Cluster bench/c-0003',
              what: 'pass error',
              error: 'failed to update status of Cluster bench/c-0003: Operation cannot be fulfilled',
              phase: 'create',
            },
          ],
        },
      },
    });
    assert.match(
      markdown,
      /Pass errors \(B: [^\n]*\):\n\n- 13:28:05 UTC, create: topology pass error Cluster bench\/c-0003: failed to update status/,
    );
  });
  test('says nothing about pass errors for a run that did not keep them', () => {
    assert.doesNotMatch(computeSideMarkdown(result({})), /Pass errors/);
  });
});
