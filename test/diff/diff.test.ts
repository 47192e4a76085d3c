// The differential of the topology pass against upstream's own topology controller (`npm run test:diff`, not part of
// `npm test`): the corpus (test/diff/scenarios.ts) runs on a management cluster where upstream Cluster API's core
// manager runs its own topology controller, then on one where capi-serverless's topology pass does the work beside
// upstream's other managers (the handoff of the e2e). The sides run one after the other: upstream's Docker in-memory
// manager always binds port 19000 (the harness lock queues them). After each step both sides' topology objects are
// snapshotted once quiet and compared; the report goes to test/diff/results/ (report.md, report.json).
//
// Environment: without DIFF_ALL=1 or DIFF_SCENARIOS the CI subset runs (ciScenarioNames, 6 scenarios); DIFF_ALL=1 runs
// the whole corpus; DIFF_SCENARIOS=<regexp> runs the matching scenarios of the corpus only; DIFF_LIMIT=<n> the first n;
// DIFF_CONCURRENCY=<n> scenarios at a time per side (default 4); DIFF_REUSE=1 compares the sides' saved raw results
// (test/diff/results/raw/) and runs only the scenarios a side has not saved (to iterate on normalisation without
// servers); DIFF_RERUN=<side> with it runs that side's selected scenarios again (the others stay saved); DIFF_ALL=1
// with DIFF_SCENARIOS re-runs those into the whole corpus's results (test/diff/results/full/). DIFF_SHARD=<i>/<n> runs every n-th selected scenario
// (the i-th of each n, from 1) and writes to test/diff/results/shards/<i>-of-<n>/, so shards can run as separate
// `node test/run.mjs` invocations at once (each has its own network namespace); DIFF_MERGE_SHARDS=1 merges the shards'
// raw results into the results' raw/ before comparing (`DIFF_ALL=1 DIFF_REUSE=1 DIFF_MERGE_SHARDS=1`: the whole
// corpus's report, test/diff/results/full/, without servers).
// DIFF_REPORT_NAME=<name> writes the report as <name>.md/.json (e.g. extension-report for the extension scenarios,
// d62-d65); scenarios marked `extension` start upstream's test Runtime Extension on each side.
// The run fails on an unknown difference, on a step that did not settle on either side before its time limit, and, in
// a whole-corpus run, on a known difference (test/diff/known-differences.ts) that matched nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { knownDifferences } from './known-differences.ts';
import { computeDiffReport, computeRunFailures, renderDiffMarkdown, renderDiffText } from './report.ts';
import { runScenarios, sides, startSide, type ScenarioResult, type SideName, type SideResult } from './run-side.ts';
import { ciScenarioNames, computeScenarios } from './scenarios.ts';

const shard = parseShard(process.env['DIFF_SHARD']);
const baseResultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
// NOTE: the whole corpus's report (DIFF_ALL=1) goes to results/full/, so it does not replace the CI subset's; with
// DIFF_SCENARIOS too, the matching scenarios are re-run into the whole corpus's saved results (and report on just them).
const resultsDir = shard
  ? join(baseResultsDir, 'shards', `${shard.index}-of-${shard.count}`)
  : process.env['DIFF_ALL'] === '1'
    ? join(baseResultsDir, 'full')
    : baseResultsDir;
const rawDir = join(resultsDir, 'raw');

function parseShard(value: string | undefined): { index: number; count: number } | undefined {
  if (!value) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count)
    throw new Error(`DIFF_SHARD=${value}: expected <i>/<n>, 1 <= i <= n`);
  return { index, count };
}

/**
 * DIFF_MERGE_SHARDS=1: every shard's saved scenarios, per side, into the results' raw/<side>.json; of a scenario saved
 * more than once (a shard, a later re-run with DIFF_ALL=1 DIFF_SCENARIOS) the latest run wins.
 */
function mergeShards(): void {
  const shardsDir = join(baseResultsDir, 'shards');
  if (!existsSync(shardsDir)) return;
  for (const name of sides) {
    // NOTE: the results' own raw/ first, so that of two runs without an end time (older files) the shard's wins.
    const parts = [
      join(rawDir, `${name}.json`),
      ...readdirSync(shardsDir).map((d) => join(shardsDir, d, 'raw', `${name}.json`)),
    ]
      .filter((p) => existsSync(p))
      .map((p) => JSON.parse(readFileSync(p, 'utf8')) as SideResult);
    const shardParts = parts.slice(existsSync(join(rawDir, `${name}.json`)) ? 1 : 0);
    if (shardParts.length === 0) continue;
    const scenarios: Record<string, ScenarioResult> = {};
    for (const part of parts)
      for (const [scenario, result] of Object.entries(part.scenarios)) {
        const kept = scenarios[scenario];
        if (!kept || (result.finishedAt ?? '') >= (kept.finishedAt ?? '')) scenarios[scenario] = result;
      }
    const merged: SideResult = {
      ...shardParts[0]!,
      startMs: Math.max(...shardParts.map((p) => p.startMs)),
      durationMs: Math.max(...shardParts.map((p) => p.durationMs)),
      concurrency: shardParts.reduce((n, p) => n + p.concurrency, 0),
      scenarios,
    };
    mkdirSync(rawDir, { recursive: true });
    writeFileSync(join(rawDir, `${name}.json`), JSON.stringify(merged, null, 1));
  }
}

/** The whole corpus, every scenario run or re-used (DIFF_ALL=1 without a selection, a limit or a shard). */
function isFullRun(): boolean {
  return (
    process.env['DIFF_ALL'] === '1' &&
    !process.env['DIFF_SCENARIOS'] &&
    !Number(process.env['DIFF_LIMIT'] ?? 0) &&
    !shard
  );
}

function selectScenarios() {
  let scenarios = computeScenarios();
  const pattern = process.env['DIFF_SCENARIOS'];
  if (pattern) scenarios = scenarios.filter((s) => new RegExp(pattern).test(s.name));
  else if (process.env['DIFF_ALL'] !== '1') scenarios = scenarios.filter((s) => ciScenarioNames.includes(s.name));
  const limit = Number(process.env['DIFF_LIMIT'] ?? 0);
  if (limit > 0) scenarios = scenarios.slice(0, limit);
  if (shard) scenarios = scenarios.filter((_, i) => i % shard.count === shard.index - 1);
  return scenarios;
}

/**
 * One side's results for `scenarios`: with DIFF_REUSE=1 the saved ones (test/diff/results/raw/<side>.json) are kept
 * and only the scenarios they lack run (DIFF_RERUN=<side> drops that side's saved results first); the file keeps every
 * scenario ever saved, so a subset re-run of one side compares against the other side's earlier run.
 */
async function runSide(name: SideName, scenarios: ReturnType<typeof computeScenarios>): Promise<SideResult> {
  const rawPath = join(rawDir, `${name}.json`);
  const reuse = process.env['DIFF_REUSE'] === '1' && existsSync(rawPath);
  const saved = reuse ? (JSON.parse(readFileSync(rawPath, 'utf8')) as SideResult) : undefined;
  // NOTE: a re-run side runs every selected scenario again; the saved ones it does not select are kept.
  const rerun = process.env['DIFF_RERUN'] === name;
  const missing = scenarios.filter((s) => rerun || saved?.scenarios[s.name] === undefined);
  if (saved && missing.length === 0) return saved;
  const started = Date.now();
  const side = await startSide(name, { extension: missing.some((s) => s.extension) });
  const startMs = Date.now() - started;
  process.stderr.write(`[${name}] started in ${(startMs / 1000).toFixed(0)} s\n`);
  try {
    const result = await runScenarios(side, missing, {
      concurrency: Number(process.env['DIFF_CONCURRENCY'] ?? 4),
      startMs,
    });
    const failed = Object.values(result.scenarios).some((r) => r.error);
    if (failed) process.stderr.write(`${side.diagnostics()}\n`);
    const merged: SideResult = saved ? { ...result, scenarios: { ...saved.scenarios, ...result.scenarios } } : result;
    mkdirSync(rawDir, { recursive: true });
    writeFileSync(rawPath, JSON.stringify(merged, null, 1));
    const passes = side.passLog();
    if (passes) writeFileSync(join(rawDir, `${name}-passes.log`), passes);
    return merged;
  } finally {
    await side.stop();
  }
}

test(
  'the topology pass agrees with upstream topology controller, scenario by scenario',
  { timeout: 4 * 3600_000 },
  async () => {
    const scenarios = selectScenarios();
    if (process.env['DIFF_MERGE_SHARDS'] === '1') mergeShards();
    assert.ok(scenarios.length > 0, 'no scenario selected');
    const results: Partial<Record<SideName, SideResult>> = {};
    for (const name of sides) results[name] = await runSide(name, scenarios);
    const report = computeDiffReport(scenarios, results.upstream!, results['capi-serverless']!, knownDifferences);
    mkdirSync(resultsDir, { recursive: true });
    // NOTE: a re-run of some scenarios of the whole corpus reports on them beside the whole corpus's report
    // (DIFF_REPORT_NAME=<name> names that report, so one re-run's report does not replace another's).
    const reportName =
      process.env['DIFF_REPORT_NAME'] ??
      (process.env['DIFF_ALL'] === '1' && process.env['DIFF_SCENARIOS'] && !shard ? 'rerun-report' : 'report');
    writeFileSync(join(resultsDir, `${reportName}.json`), `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(join(resultsDir, `${reportName}.md`), renderDiffMarkdown(report));
    const text = renderDiffText(report);
    if (text) console.log(text);
    console.log(
      `differential: ${report.scenarios} scenarios, ${report.steps} steps, ${report.objectsCompared} entries (${report.kubeObjectsCompared} Kubernetes objects) compared; ${report.unknownDifferences} unknown and ${report.knownDifferences} known differences (report: ${join(resultsDir, reportName)}.md)`,
    );
    assert.deepEqual(report.errors, [], 'every scenario ran on both sides');
    assert.equal(
      report.steps,
      scenarios.reduce((n, s) => n + s.steps.length, 0),
      'every step was compared',
    );
    assert.equal(report.unknownDifferences, 0, `unlisted differences:\n${text}`);
    assert.deepEqual(computeRunFailures(report, { fullRun: isFullRun() }), []);
  },
);
