// Measurements that need no pass: the pure desired-state computation per Cluster, and the bundled handlers' size
// and module load time (esbuild with the CDK stack's bundling options, loaded in a fresh node pinned to one CPU).
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { Controller } from '#shared/checkpoint/index.ts';
import {
  createContractResolver,
  createKubeReader,
  getBlueprint,
  getCluster,
  getClusterClass,
} from '#shared/topology/index.ts';
import { getCurrentState } from '#shared/topology/current/get-current-state.ts';
import { computeDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import { computeDefaultedTopology, validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import type { BenchEnv } from '#test/bench/bench-env.ts';
import { clusterKey } from '#test/bench/measure-passes.ts';
import { median, percentile } from '#test/bench/stats.ts';

export type DesiredStateFigures = {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
};

/**
 * Defaulting and validation of the Cluster's variables plus the desired state with patches, for up to 50 Clusters
 * read once from the server, `rounds` times each (after one warm-up round).
 */
export async function measureDesiredState(env: BenchEnv, n: number, rounds = 20): Promise<DesiredStateFigures> {
  const inputs: {
    cluster: Cluster;
    cc: ClusterClass;
    blueprint: Awaited<ReturnType<typeof getBlueprint>>;
    current: Awaited<ReturnType<typeof getCurrentState>>;
  }[] = [];
  for (let i = 0; i < Math.min(n, 50); i++) {
    const reader = createKubeReader(env.mgmt.kube);
    const read = await getCluster(env.mgmt.kube, clusterKey(i));
    if (!read) throw new Error(`Cluster ${clusterKey(i).name} is missing`);
    const cc = await getClusterClass(reader, read.cluster);
    const contracts = createContractResolver(reader);
    const blueprint = await getBlueprint(reader, contracts, cc);
    const current = await getCurrentState(reader, contracts, read.cluster);
    inputs.push({ cluster: read.cluster, cc, blueprint, current });
  }
  let suffix = 0;
  const randomSuffix = () => `b${String(suffix++ % 10000).padStart(4, '0')}`;
  const once = (input: (typeof inputs)[number]) => {
    const defaulted = computeDefaultedTopology(input.cluster, input.cc);
    if (!defaulted.ok) throw new Error(`variables of ${input.cluster.metadata.name} do not default`);
    if (validateClusterTopology(defaulted.cluster, input.cc).length > 0) throw new Error('invalid Cluster');
    return computeDesiredState(
      { cluster: defaulted.cluster, blueprint: input.blueprint, current: input.current },
      { randomSuffix },
    );
  };
  for (const input of inputs) once(input);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const input of inputs) {
      const t0 = performance.now();
      once(input);
      times.push(performance.now() - t0);
    }
  }
  return {
    samples: times.length,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: Math.max(...times),
  };
}

export type BundleFigures = Readonly<
  Record<
    Controller,
    {
      readonly bytes: number;
      readonly loadMedianMs: number;
      readonly loadSamplesMs: readonly number[];
      readonly largestPackages: Readonly<Record<string, number>>;
    }
  >
> & { readonly pinnedToOneCpu: boolean };

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Bundles each function as the CDK stack does and times `import()` of the bundle in fresh processes. */
export async function measureBundles(samples = 7): Promise<BundleFigures> {
  const outdir = join(tmpdir(), `capi-serverless-bench-bundles-${process.pid}`);
  mkdirSync(outdir, { recursive: true });
  const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const figures: Record<string, unknown> = { pinnedToOneCpu: pinned };
  for (const controller of ['topology', 'addons', 'providers'] as const) {
    const outfile = join(outdir, `${controller}.mjs`);
    const result = await build({
      entryPoints: [join(repoRoot, 'functions', `${controller}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      keepNames: true,
      sourcemap: 'external',
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      logLevel: 'error',
      metafile: true,
    });
    const inputs = result.metafile.outputs[relative(process.cwd(), outfile)]?.inputs ?? {};
    const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(outfile).href)}); console.log(performance.now() - t);`;
    const loads: number[] = [];
    for (let s = 0; s < samples; s++) {
      const args = ['--input-type=module', '-e', script];
      const run = pinned
        ? spawnSync('taskset', ['-c', '0', process.execPath, ...args], { encoding: 'utf8', env: lambdaEnv() })
        : spawnSync(process.execPath, args, { encoding: 'utf8', env: lambdaEnv() });
      const ms = Number(run.stdout.trim().split('\n').at(-1));
      if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`loading ${outfile} failed: ${run.stderr}`);
      loads.push(ms);
    }
    figures[controller] = {
      bytes: statSync(outfile).size,
      loadMedianMs: median(loads),
      loadSamplesMs: loads,
      largestPackages: computeLargestPackages(inputs),
    };
  }
  return figures as BundleFigures;
}

/** What a deployed function's environment holds at cold start (no network is touched while loading). */
function lambdaEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'capi-serverless-state',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    LEASE_TTL_MS: String(6 * 60_000),
  };
}

/** Bytes in the bundle per npm package (the project's own files as `(project)`), the 8 largest. */
function computeLargestPackages(
  inputs: Readonly<Record<string, { readonly bytesInOutput: number }>>,
): Record<string, number> {
  const sizes = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const name = match?.[1] ?? '(project)';
    sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
  }
  return Object.fromEntries([...sizes].sort((a, b) => b[1] - a[1]).slice(0, 8));
}

/**
 * Bundles `entry` the way the forwarder's Dockerfile does (esbuild, ESM, minified) into a temporary directory.
 *
 * @example
 * const file = await bundleForNode(new URL('./forwarder-probe.ts', import.meta.url));
 */
export async function bundleForNode(entry: URL): Promise<string> {
  const outdir = join(tmpdir(), `capi-serverless-bench-bundles-${process.pid}`);
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'forwarder-probe.mjs');
  await build({
    entryPoints: [fileURLToPath(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    keepNames: true,
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'error',
  });
  return outfile;
}
