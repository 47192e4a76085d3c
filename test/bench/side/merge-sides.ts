// Merges two runs of `npm run bench:side` into one side-by-side result, side A from the first, side B from the second:
// two one-sided runs started at the same time (BENCH_SIDE_ONLY=A and =B, each in a network namespace of its own so
// both have the in-memory backend's fixed port), or side B run again later with the same configuration on the same
// machine (after a fix on capi-serverless's side: A runs only upstream's code).
// `node --import tsx test/bench/side/merge-sides.ts side-a side-b [out]` writes <out>.json and <out>.md (default
// side-by-side).
import { readFileSync } from 'node:fs';
import { writeFormatted } from '#test/bench/report.ts';
import { computeSideMarkdown, type SideBenchResult } from './side-report.ts';

const resultsDir = new URL('../results/', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(`${name}.json`, resultsDir), 'utf8')) as SideBenchResult;
const [aName = 'side-a', bName = 'side-b', outName = 'side-by-side'] = process.argv.slice(2);
const [a, b] = [read(aName), read(bName)];
if (!a.sides.A || !b.sides.B) throw new Error(`${aName} must hold side A and ${bName} side B`);
const startA = Date.parse(a.date);
const startB = Date.parse(b.date);
const start = Math.min(startA, startB);
const concurrent = startA < startB + b.durationMs && startB < startA + a.durationMs;
if (a.machine !== b.machine) throw new Error(`the runs were on different machines: ${a.machine} / ${b.machine}`);
for (const key of ['clusters', 'idleMs', 'tickMs', 'changed'])
  if (a.config[key] !== b.config[key])
    throw new Error(`the runs differ in ${key}: ${String(a.config[key])} / ${String(b.config[key])}`);
const result: SideBenchResult = {
  date: new Date(start).toISOString(),
  machine: a.machine,
  config: {
    ...b.config,
    sides: ['A', 'B'],
    concurrent,
    startOffsetMs: Math.abs(startA - startB),
    ...(concurrent ? {} : { runs: { A: a.date, B: b.date } }),
  },
  durationMs: concurrent
    ? Math.max(startA + a.durationMs, startB + b.durationMs) - start
    : a.sides.A.durationMs + b.sides.B.durationMs,
  sides: { A: a.sides.A, B: b.sides.B },
};
await writeFormatted(new URL(`${outName}.json`, resultsDir), JSON.stringify(result, null, 2));
const markdown = computeSideMarkdown(result);
await writeFormatted(new URL(`${outName}.md`, resultsDir), markdown);
process.stdout.write(`${markdown}\n`);
