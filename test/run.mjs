#!/usr/bin/env node
// Runs the test suites with node's test runner (TypeScript through tsx).
//   node test/run.mjs            unit + integration
//   node test/run.mjs unit       unit only (no servers)
//   node test/run.mjs integration
//   node test/run.mjs <file...>  the given files
//   TEST_NETNS_PER_FILE=1 …      each file in its own network namespace (npm run test:e2e)
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';

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

// Every server the suites start listens on loopback, so each run gets a private network namespace with its own
// loopback (`unshare -n`, or `unshare -rn` without root): upstream's Docker in-memory manager always binds port 19000,
// and two runs on one machine (two engineers, or CI beside a developer) would otherwise queue on that port's lock
// for the length of a suite. Inside one run, the suites that start it still take the lock (now per namespace).
// CAPI_SERVERLESS_NETNS=0 runs in the host's namespace. NOTE: nothing can reach the internet from inside, so the Go
// builds happen before (.ci/run, npm run build:upstream), never lazily from a test.
function inPrivateNetworkNamespace(command, args) {
  if (process.env.CAPI_SERVERLESS_NETNS === '0' || process.platform !== 'linux') return [command, args];
  const up = ['sh', '-c', 'ip link set lo up && exec "$@"', 'sh'];
  for (const flags of process.getuid?.() === 0 ? ['-n'] : ['-rn']) {
    const probe = spawnSync('unshare', [flags, ...up, 'true'], { stdio: 'ignore' });
    if (probe.status === 0) {
      // The namespace the run left, so a test can tell it is in another one.
      process.env.CAPI_SERVERLESS_HOST_NETNS = String(statSync('/proc/self/ns/net').ino);
      return ['unshare', [flags, ...up, command, ...args]];
    }
  }
  console.error('test/run.mjs: no private network namespace (unshare -n failed); suites share the host loopback');
  return [command, args];
}

const nodeTest = (testFiles, concurrency) => [
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  `--test-concurrency=${concurrency}`,
  ...testFiles,
];

if (process.env.TEST_NETNS_PER_FILE === '1') {
  // Each file in a network namespace of its own, up to TEST_CONCURRENCY at once: the end-to-end files all start
  // upstream's Docker in-memory manager and mostly wait on it, so in one namespace they would queue on its port.
  // Lines are streamed with the file's name in front; the run fails if any file does.
  const limit = Number(process.env.TEST_CONCURRENCY ?? '2');
  const queue = [...files];
  const failed = [];
  const runOne = (file) =>
    new Promise((resolve) => {
      const [command, commandArgs] = inPrivateNetworkNamespace(process.execPath, nodeTest([file], 1));
      const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
      const tag = `[${basename(file, '.test.ts')}] `;
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${tag}${line}\n`));
      }
      child.on('close', (code) => {
        if (code !== 0) failed.push(`${file} (exit ${code})`);
        resolve();
      });
    });
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runOne(file);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  console.log(failed.length === 0 ? `all ${files.length} files passed` : `failed: ${failed.join(', ')}`);
  process.exit(failed.length === 0 ? 0 : 1);
}

const [command, commandArgs] = inPrivateNetworkNamespace(
  process.execPath,
  nodeTest(files, process.env.TEST_CONCURRENCY ?? '2'),
);
const result = spawnSync(command, commandArgs, { stdio: 'inherit' });
process.exit(result.status ?? 1);
