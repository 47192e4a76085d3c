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
// servers); DIFF_RERUN=<side> with it runs that side again.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { knownDifferences } from './known-differences.ts';
import { computeDiffReport, renderDiffMarkdown, renderDiffText } from './report.ts';
import { runScenarios, sides, startSide, type SideName, type SideResult } from './run-side.ts';
import { ciScenarioNames, computeScenarios } from './scenarios.ts';

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
const rawDir = join(resultsDir, 'raw');

function selectScenarios() {
  let scenarios = computeScenarios();
  const pattern = process.env['DIFF_SCENARIOS'];
  if (pattern) scenarios = scenarios.filter((s) => new RegExp(pattern).test(s.name));
  else if (process.env['DIFF_ALL'] !== '1') scenarios = scenarios.filter((s) => ciScenarioNames.includes(s.name));
  const limit = Number(process.env['DIFF_LIMIT'] ?? 0);
  if (limit > 0) scenarios = scenarios.slice(0, limit);
  return scenarios;
}

/**
 * One side's results for `scenarios`: with DIFF_REUSE=1 the saved ones (test/diff/results/raw/<side>.json) are kept
 * and only the scenarios they lack run (DIFF_RERUN=<side> drops that side's saved results first); the file keeps every
 * scenario ever saved, so a subset re-run of one side compares against the other side's earlier run.
 */
async function runSide(name: SideName, scenarios: ReturnType<typeof computeScenarios>): Promise<SideResult> {
  const rawPath = join(rawDir, `${name}.json`);
  const reuse = process.env['DIFF_REUSE'] === '1' && process.env['DIFF_RERUN'] !== name && existsSync(rawPath);
  const saved = reuse ? (JSON.parse(readFileSync(rawPath, 'utf8')) as SideResult) : undefined;
  const missing = scenarios.filter((s) => saved?.scenarios[s.name] === undefined);
  if (saved && missing.length === 0) return saved;
  const started = Date.now();
  const side = await startSide(name);
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
    assert.ok(scenarios.length > 0, 'no scenario selected');
    const results: Partial<Record<SideName, SideResult>> = {};
    for (const name of sides) results[name] = await runSide(name, scenarios);
    const report = computeDiffReport(scenarios, results.upstream!, results['capi-serverless']!, knownDifferences);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'report.json'), `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(join(resultsDir, 'report.md'), renderDiffMarkdown(report));
    const text = renderDiffText(report);
    if (text) console.log(text);
    console.log(
      `differential: ${report.scenarios} scenarios, ${report.steps} steps, ${report.objectsCompared} objects compared; ${report.unknownDifferences} unknown and ${report.knownDifferences} known differences (report: test/diff/results/report.md)`,
    );
    assert.deepEqual(report.errors, [], 'every scenario ran on both sides');
    assert.equal(
      report.steps,
      scenarios.reduce((n, s) => n + s.steps.length, 0),
      'every step was compared',
    );
    assert.equal(report.unknownDifferences, 0, `unlisted differences:\n${text}`);
  },
);
