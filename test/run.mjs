#!/usr/bin/env node
// Runs the test suites with node's test runner (TypeScript through tsx).
//   node test/run.mjs            unit + integration
//   node test/run.mjs unit       unit only (no servers)
//   node test/run.mjs integration
//   node test/run.mjs <file...>  the given files
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  let out = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries.sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out = out.concat(find(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
let files;
if (args.length === 0) files = [...find('test/unit'), ...find('test/integration')];
else if (args.length === 1 && (args[0] === 'unit' || args[0] === 'integration')) files = find(`test/${args[0]}`);
else files = args;

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
