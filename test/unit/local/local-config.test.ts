// --help everywhere (`capi-serverless plan --help`, `npm start -- --help` documenting the environment) and an
// unreadable KUBECONFIG named in the error rather than a bare ENOENT.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { runPlan } from '#shared/cli/plan.ts';
import { KubeconfigError, loadKubeConnection } from '#shared/kube/kubeconfig.ts';
import { computeLocalConfig } from '#shared/local/local-config.ts';

const repo = new URL('../../../', import.meta.url).pathname;
const missing = '/nonexistent/capi-serverless/kubeconfig';

describe('--help', () => {
  test('capi-serverless plan --help prints the plan options and exits 0', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runPlan(['--help'], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^usage: capi-serverless plan -f/);
    assert.match(stdout, /--diff/);
    assert.equal(stderr, '');
  });

  test('npm start -- --help documents every environment option and starts nothing', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'shared/local/start.ts', '--help'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    for (const name of [
      'KUBECONFIG',
      'CAPI_SERVERLESS_EXAMPLES',
      'CAPI_SERVERLESS_TICK_MS',
      'CAPI_SERVERLESS_EXIT_WHEN_READY',
      'CAPI_SERVERLESS_READY_TIMEOUT_MS',
      'POWERTOOLS_LOG_LEVEL',
    ]) {
      assert.match(result.stdout, new RegExp(`\\b${name}\\b`), `${name} is documented`);
    }
    assert.doesNotMatch(result.stdout, /management cluster:/, 'no server was started');
  });
});

describe('an unreadable KUBECONFIG', () => {
  test('local mode names the variable and the file', () => {
    assert.throws(
      () => computeLocalConfig({ KUBECONFIG: missing }),
      (err: unknown) =>
        err instanceof Error &&
        /KUBECONFIG: cannot read \/nonexistent\/capi-serverless\/kubeconfig \(ENOENT\)/.test(err.message),
    );
  });

  test('the kube client names KUBECONFIG when the default rules read it', async () => {
    await assert.rejects(
      loadKubeConnection({ fromDefault: true }, { env: { KUBECONFIG: missing, HOME: '/nonexistent' } }),
      (err: unknown) =>
        err instanceof KubeconfigError &&
        err.message === `cannot read the kubeconfig ${missing} (set by KUBECONFIG): no such file` &&
        err.fieldPath === 'KUBECONFIG',
    );
  });
});
