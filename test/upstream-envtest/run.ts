// `npm run test:upstream-envtest`: upstream Cluster API v1.14.2's black-box envtest tests of the topology controller
// (core/reconcilers/topology/cluster/cluster_controller_test.go) against capi-serverless.
//   1. (host network) builds or finds the test binary (build.sh: upstream's package with suite_test.go as its suite)
//      and upstream's managers (test/support/harness; the Go module proxy only on a cold cache);
//   2. (a private network namespace, `unshare -n`) starts kube-apiserver and etcd with upstream's core manager in the
//      handoff configuration (its webhooks; topology off), applies the test provider CRDs upstream's envtest installs
//      (the binary with ENVTEST_BLACKBOX_INSTALL_CRDS=true), then starts capi-serverless doing topology (the
//      functions' handlers behind the local bus, fed by the forwarder, ticks every 5 s; its webhooks registered);
//   3. runs the black-box tests (the list below) with KUBECONFIG at that API server: upstream's in-process
//      reconcilers are not started, so what the tests' `Eventually` blocks see is capi-serverless's work;
//   4. prints one row per test from `go test -v` output; exits non-zero when a test failed.
// Arguments: test names to run instead of the whole list. UPSTREAM_ENVTEST_ARTIFACTS keeps the test output and the
// passes' log in that folder instead of a temporary one. UPSTREAM_ENVTEST_TIMEOUT_FLOOR (a Go duration, e.g. 60s)
// raises the tests' own Eventually timeouts (5 s for most) to at least that: a diagnostic for a slow machine, not a
// pass (the default is upstream's timeouts).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProduct, type RunningProduct } from '#test/e2e/product.ts';
import { inPrivateNetworkNamespace } from '#test/support/harness/extension-service.ts';
import { resolveUpstreamBinaries, startUpstreamManagementCluster } from '#test/support/harness/upstream-capi.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';

const here = dirname(fileURLToPath(import.meta.url));
const inNamespaceMarker = 'UPSTREAM_ENVTEST_IN_NETNS';
/** The core manager's `--watch-filter`: no object carries `cluster.x-k8s.io/watch-filter` with this value. */
const unmatchedWatchFilter = 'upstream-envtest-webhooks-only';

/**
 * The tests of cluster_controller_test.go that treat the controller as a black box: objects created through `env`,
 * then `Eventually` assertions on what the controller stamped. The others call the upstream Reconciler's methods
 * with fake clients (docs: the results table), so they test upstream's code, not the controller on the server.
 */
export const blackBoxTests = [
  'TestClusterReconciler_reconcileNewlyCreatedCluster',
  'TestClusterReconciler_reconcileMultipleClustersFromOneClass',
  'TestClusterReconciler_reconcileUpdateOnClusterTopology',
  'TestClusterReconciler_reconcileUpdatesOnClusterClass',
  'TestClusterReconciler_reconcileClusterClassRebase',
  'TestClusterReconciler_deleteClusterClass',
] as const;

const log = (line: string) => console.error(`upstream-envtest: ${new Date().toISOString().slice(11, 19)} ${line}`);

function selectedTests(args: readonly string[]): string[] {
  const unknown = args.filter((a) => !(blackBoxTests as readonly string[]).includes(a));
  if (unknown.length > 0) throw new Error(`unknown test(s) ${unknown.join(', ')}; known: ${blackBoxTests.join(', ')}`);
  return args.length > 0 ? [...args] : [...blackBoxTests];
}

/** Step 1, on the host network: everything that may need the Go module proxy. */
function prepareBuilds(): string {
  log('building or finding the test binary (test/upstream-envtest/build.sh)');
  const started = Date.now();
  const out = execFileSync('bash', [join(here, 'build.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const binary = out.trim().split('\n').pop() ?? '';
  log(`test binary ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${binary}`);
  resolveUpstreamBinaries();
  return binary;
}

/** Re-runs this script in a private network namespace (its servers then share no ports with other runs). */
function reexecInNetworkNamespace(binary: string): number {
  const up = ['sh', '-c', 'ip link set lo up && exec "$@"', 'sh'];
  const flags = process.getuid?.() === 0 ? '-n' : '-rn';
  if (spawnSync('unshare', [flags, ...up, 'true'], { stdio: 'ignore' }).status !== 0)
    throw new Error(`unshare ${flags} failed: the run needs a private network namespace`);
  const result = spawnSync(
    'unshare',
    [flags, ...up, process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        [inNamespaceMarker]: binary,
        CAPI_SERVERLESS_HOST_NETNS: String(statSync('/proc/self/ns/net').ino),
      },
    },
  );
  return result.status ?? 1;
}

export type TestResult = { name: string; result: 'pass' | 'fail' | 'skip'; seconds: number; failure: string };

/**
 * One result per top-level test in `go test -v` output; a failure's text is its first gomega message (the lines after
 * the first `cluster_controller_test.go:<line>:` location), cut to 300 characters.
 *
 * @example
 * parseGoTestOutput('=== RUN   TestA\n--- PASS: TestA (1.20s)\n'); // [{ name: 'TestA', result: 'pass', seconds: 1.2, failure: '' }]
 */
export function parseGoTestOutput(output: string): TestResult[] {
  const results: TestResult[] = [];
  const lines = output.split('\n');
  const bodies = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of lines) {
    const run = /^=== (?:RUN|CONT|PAUSE|NAME)\s+(\S+)$/.exec(line);
    if (run?.[1]) {
      current = run[1].split('/')[0];
      continue;
    }
    const done = /^--- (PASS|FAIL|SKIP): (\S+) \(([\d.]+)s\)$/.exec(line);
    if (done?.[1] && done[2] && done[3]) {
      const body = bodies.get(done[2]) ?? [];
      const at = body.findIndex((l) => /\w+_test\.go:\d+:/.test(l));
      const failure =
        at < 0
          ? ''
          : body
              .slice(at, at + 8)
              .map((l) => l.trim())
              .join(' ')
              .replace(/\s+/g, ' ')
              .slice(0, 300);
      results.push({
        name: done[2],
        result: done[1] === 'PASS' ? 'pass' : done[1] === 'FAIL' ? 'fail' : 'skip',
        seconds: Number(done[3]),
        failure: done[1] === 'FAIL' ? failure : '',
      });
      current = undefined;
      continue;
    }
    if (current) bodies.set(current, [...(bodies.get(current) ?? []), line]);
  }
  return results;
}

/** Steps 2-4, inside the private network namespace. */
async function runInNamespace(binary: string, tests: readonly string[]): Promise<number> {
  if (!inPrivateNetworkNamespace()) throw new Error('not in a private network namespace');
  const artifacts = resolve(
    process.env['UPSTREAM_ENVTEST_ARTIFACTS'] ?? mkdtempSync(join(tmpdir(), 'upstream-envtest-')),
  );
  mkdirSync(artifacts, { recursive: true });
  log(`artifacts: ${artifacts}`);
  let mgmt: (TestCluster & { upstream: { logs(): string } }) | undefined;
  let product: RunningProduct | undefined;
  const started = Date.now();
  try {
    log("starting kube-apiserver, etcd and upstream's core manager (handoff configuration, webhooks only)");
    // NOTE: upstream's envtest serves every webhook but runs only the topology and ClusterClass reconcilers. The core
    // manager's other controllers would change what the tests see (its Cluster controller's finalizer holds the
    // deletion of the test's Cluster whose class does not exist: it reads the class first), so they watch only objects
    // with a watch-filter label nothing carries.
    mgmt = await startUpstreamManagementCluster({
      name: 'upstream-envtest',
      upstream: { managers: ['core'], extraArgs: { core: [`--watch-filter=${unmatchedWatchFilter}`] } },
    });
    const kubeconfig = mgmt.controlPlane.kubeconfigPath;
    const env = { ...process.env, KUBECONFIG: kubeconfig };
    log('applying the test provider CRDs (util/test/builder) through the test binary');
    execFileSync(binary, [], {
      env: { ...env, ENVTEST_BLACKBOX_INSTALL_CRDS: 'true' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    log('starting capi-serverless (topology)');
    product = await startProduct(mgmt, ['topology']);
    log(`plane up in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const args = [`-test.run=^(${tests.join('|')})$`, '-test.v', '-test.timeout=30m', '-test.count=1'];
    log(`running ${binary} ${args.join(' ')}`);
    const runStarted = Date.now();
    const outputPath = join(artifacts, 'go-test.log');
    const output = createWriteStream(outputPath);
    const code = await new Promise<number>((done) => {
      const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: artifacts, env });
      for (const stream of [child.stdout, child.stderr]) {
        stream.on('data', (chunk: Buffer) => {
          process.stdout.write(chunk);
          output.write(chunk);
        });
      }
      child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0)));
    });
    await new Promise<void>((done) => output.end(done));
    log(`tests ran in ${((Date.now() - runStarted) / 1000).toFixed(0)} s (binary exit ${code})`);
    writeFileSync(join(artifacts, 'capi-serverless-passes.log'), product.passLines.join('\n'));
    writeFileSync(join(artifacts, 'upstream-managers.log'), mgmt.upstream.logs());
    return printResults(parseGoTestOutput(readFileSync(outputPath, 'utf8')), tests, code);
  } finally {
    await product?.stop();
    await mgmt?.stop();
    log(`total ${((Date.now() - started) / 1000).toFixed(0)} s; artifacts in ${artifacts}`);
  }
}

function printResults(results: readonly TestResult[], tests: readonly string[], exitCode: number): number {
  console.log('\n| test | result | time | failure |\n| --- | --- | --- | --- |');
  for (const r of results)
    console.log(`| ${r.name} | ${r.result} | ${r.seconds.toFixed(1)} s | ${r.failure.replaceAll('|', '\\|')} |`);
  const missing = tests.filter((t) => !results.some((r) => r.name === t));
  for (const t of missing) console.log(`| ${t} | no result | | the binary exited ${exitCode} before it finished |`);
  const passed = results.filter((r) => r.result === 'pass').length;
  const failed = results.filter((r) => r.result === 'fail').length + missing.length;
  console.log(`\nupstream-envtest: ${passed} passed, ${failed} failed`);
  return failed > 0 || passed === 0 || exitCode !== 0 ? 1 : 0;
}

async function main(): Promise<number> {
  const tests = selectedTests(process.argv.slice(2));
  const binary = process.env[inNamespaceMarker];
  if (binary) return runInNamespace(binary, tests);
  return reexecInNetworkNamespace(prepareBuilds());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main();
