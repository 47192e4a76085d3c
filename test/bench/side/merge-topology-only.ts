// Joins two one-sided runs of `npm run bench:topology-only` (BENCH_TOPO_ONLY=A and =B, same N, same machine) into
// one result, side A from the first and side B from the second, saying whether they ran at the same time (then each
// side's times share the machine with the other's):
// `node --import tsx test/bench/side/merge-topology-only.ts <run A> <run B> <out>` (names in test/bench/results/,
// without .json) writes <out>.json and <out>.md.
import { readFileSync } from 'node:fs';
import { writeFormatted } from '#test/bench/report.ts';
import { computeTopologyOnlyMarkdown, type TopologyOnlyResult } from './topology-only-report.ts';

const resultsDir = new URL('../results/', import.meta.url);
const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`${name}.json`, resultsDir), 'utf8')) as TopologyOnlyResult;
const [aName, bName, outName] = process.argv.slice(2);
if (!aName || !bName || !outName) throw new Error('usage: merge-topology-only.ts <run A> <run B> <out>');
const [a, b] = [read(aName), read(bName)];
if (!a.sides.A || !b.sides.B) throw new Error(`${aName} must hold side A and ${bName} side B`);
if (a.config.clusters !== b.config.clusters)
  throw new Error(`different fleet sizes: ${a.config.clusters} / ${b.config.clusters}`);
if (a.machine !== b.machine) throw new Error(`the runs were on different machines: ${a.machine} / ${b.machine}`);
const [startA, startB] = [Date.parse(a.date), Date.parse(b.date)];
const overlap = startA < startB + b.durationMs && startB < startA + a.durationMs;
const start = Math.min(startA, startB);
const merged: TopologyOnlyResult = {
  ...a,
  date: new Date(start).toISOString(),
  durationMs: Math.max(startA + a.durationMs, startB + b.durationMs) - start,
  config: { ...a.config, sides: ['A', 'B'], parallel: overlap },
  merged: `side A from ${aName}.json (started ${a.date}), side B from ${bName}.json (started ${b.date}); ${overlap ? 'the two runs overlapped in time, so each side shared the machine with the other' : 'one after the other'}`,
  sides: { A: a.sides.A, B: b.sides.B },
};
await writeFormatted(new URL(`${outName}.json`, resultsDir), JSON.stringify(merged, null, 2));
await writeFormatted(new URL(`${outName}.md`, resultsDir), computeTopologyOnlyMarkdown(merged));
process.stdout.write(`wrote ${outName}.json and ${outName}.md (${merged.merged})\n`);
