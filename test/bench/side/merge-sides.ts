// Merges two one-sided runs of `npm run bench:side` (BENCH_SIDE_ONLY=A and =B, started at the same time, each in a
// network namespace of its own so both have the in-memory backend's fixed port) into one side-by-side result:
// `node --import tsx test/bench/side/merge-sides.ts side-a side-b` writes side-by-side.json and side-by-side.md.
import { readFileSync } from 'node:fs';
import { writeFormatted } from '#test/bench/report.ts';
import { computeSideMarkdown, type SideBenchResult } from './side-report.ts';

const resultsDir = new URL('../results/', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(`${name}.json`, resultsDir), 'utf8')) as SideBenchResult;
const [aName = 'side-a', bName = 'side-b'] = process.argv.slice(2);
const [a, b] = [read(aName), read(bName)];
if (!a.sides.A || !b.sides.B) throw new Error(`${aName} must hold side A and ${bName} side B`);
const startA = Date.parse(a.date);
const startB = Date.parse(b.date);
const start = Math.min(startA, startB);
const result: SideBenchResult = {
  date: new Date(start).toISOString(),
  machine: a.machine,
  config: { ...b.config, sides: ['A', 'B'], concurrent: true, startOffsetMs: Math.abs(startA - startB) },
  durationMs: Math.max(startA + a.durationMs, startB + b.durationMs) - start,
  sides: { A: a.sides.A, B: b.sides.B },
};
await writeFormatted(new URL('side-by-side.json', resultsDir), JSON.stringify(result, null, 2));
const markdown = computeSideMarkdown(result);
await writeFormatted(new URL('side-by-side.md', resultsDir), markdown);
process.stdout.write(`${markdown}\n`);
