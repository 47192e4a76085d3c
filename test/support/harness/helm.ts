// helm (built from its Go module by test/support/harness/build-helm.sh, cached; .ci/run builds it first) for the chart tests:
// render, lint and install infra/chart/capi-serverless.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '#shared/kube/index.ts';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

let helmPath: Promise<string> | undefined;

/** The cached helm binary's path (builds it on first use when missing: needs the Go module proxy). */
export function getHelm(): Promise<string> {
  helmPath ??= run('bash', [join(repoRoot, 'test', 'support', 'harness', 'build-helm.sh')]).then(
    ({ stdout }) => stdout.trim().split('\n').at(-1) ?? '',
  );
  return helmPath;
}

export type HelmResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

/**
 * Runs helm with `args`; resolves with its exit code and output (never throws on a non-zero exit).
 *
 * @example
 * const { code, stderr } = await runHelm(['lint', '--strict', chartDir]);
 */
export async function runHelm(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<HelmResult> {
  const helm = await getHelm();
  // NOTE: helm keeps its cache, config and data under HOME; keep them out of the user's.
  const home = join(tmpdir(), 'capi-serverless-helm-test');
  try {
    const { stdout, stderr } = await run(helm, [...args], {
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * `helm template` of a chart: the rendered objects, or throws with helm's message.
 *
 * @example
 * const objects = await renderChart(chartDir, ['-n', 'capi-serverless-system', '-f', valuesFile]);
 */
export async function renderChart(chart: string, args: readonly string[]): Promise<KubeObject[]> {
  const { code, stdout, stderr } = await runHelm(['template', 'capi-serverless', chart, ...args]);
  if (code !== 0) throw new Error(stderr.trim() || `helm template exited ${code}`);
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/**
 * `helm upgrade --install` of the chart into the cluster of `kubeconfigPath` (namespace capi-serverless-system,
 * created when missing) with `values` as its values file; throws with helm's message.
 *
 * @example
 * await installChart(mgmt.controlPlane.kubeconfigPath, { region: 'us-east-1', ... });
 */
export async function installChart(
  kubeconfigPath: string,
  values: Readonly<Record<string, unknown>>,
  opts: { release?: string; namespace?: string } = {},
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chart-values-'));
  try {
    const file = join(dir, 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const { code, stdout, stderr } = await runHelm([
      'upgrade',
      '--install',
      opts.release ?? 'capi-serverless',
      join(repoRoot, 'infra', 'chart', 'capi-serverless'),
      '--kubeconfig',
      kubeconfigPath,
      '-n',
      opts.namespace ?? 'capi-serverless-system',
      '--create-namespace',
      '-f',
      file,
    ]);
    if (code !== 0) throw new Error(`helm upgrade --install failed: ${stderr.trim() || stdout.trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
