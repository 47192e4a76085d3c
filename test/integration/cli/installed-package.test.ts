// The CLI as a user gets it without a clone: `npm pack` (whose prepack bundles the CLI with every run-time dependency
// inside, shared/cli/bundle/build-cli-bundle.ts), the tarball installed offline into an empty directory with an empty
// npm cache (so nothing can come from a registry or from the clone's node_modules), and `npx capi-serverless` run
// there: --version, --help on every command, a whole `cost` run on the templates embedded at pack time, and a `plan` of
// the Docker example (ClusterClass, templates, Cluster) with the Go-template, CEL and patch engines from the bundle.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..', '..');
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

describe('the CLI installed from the packed tarball', () => {
  let dir: string;
  let app: string;
  // NOTE: the Node that runs the tests (22), first on PATH for npm and npx; nothing else from the clone.
  const env = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: '',
    npm_config_cache: '',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const npx = (...args: string[]) =>
    run('npx', ['--offline', '--no-install', 'capi-serverless', ...args], { cwd: app, env });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'installed-cli-'));
    app = join(dir, 'app');
    mkdirSync(app);
    Object.assign(env, { HOME: join(dir, 'home'), npm_config_cache: join(dir, 'npm-cache') });
    const packed = await run('npm', ['pack', '--pack-destination', dir], {
      cwd: repoRoot,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = join(dir, packed.stdout.trim().split('\n').at(-1) ?? '');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    await run('npm', ['install', '--ignore-scripts', tarball], { cwd: app, env });
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  test('installs nothing but the package: no dev dependency, no tsx', () => {
    assert.deepEqual(
      readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.')),
      ['capi-serverless'],
    );
    const shipped = readdirSync(join(app, 'node_modules', 'capi-serverless'), { recursive: true }).map(String);
    assert.ok(shipped.includes(join('dist', 'cli', 'main.mjs')));
    assert.ok(shipped.includes(join('infra', 'chart', 'capi-serverless', 'values.schema.json')));
    assert.ok(!shipped.some((f) => f.endsWith('.ts')), 'no TypeScript source is shipped');
  });

  test('npx capi-serverless --version prints the package version', async () => {
    const { stdout } = await npx('--version');
    assert.equal(stdout, `capi-serverless ${version}\n`);
  });

  for (const command of ['cost', 'plan'])
    test(`npx capi-serverless ${command} --help prints its usage`, async () => {
      const { stdout } = await npx(command, '--help');
      assert.match(stdout, new RegExp(`^usage: capi-serverless ${command} `));
    });

  test('npx capi-serverless --help lists the commands', async () => {
    const { stdout } = await npx('--help');
    assert.match(stdout, /^usage: capi-serverless <command>/);
    assert.match(stdout, /^ {2}plan -f /m);
    assert.match(stdout, /^ {2}cost /m);
  });

  test('npx capi-serverless plan prints what a topology pass of the Docker example would create', async () => {
    const files = ['clusterclass.yaml', 'cluster.yaml'].flatMap((f) => ['-f', join(repoRoot, 'examples', 'docker', f)]);
    const { stdout } = await npx('plan', ...files);
    // NOTE: the same objects as the clone's CLI, which runs the TypeScript sources.
    const clone = await run(process.execPath, [join(repoRoot, 'shared', 'cli', 'bin.mjs'), 'plan', ...files], {
      cwd: repoRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.equal(stdout, clone.stdout);
    assert.match(stdout, /^kind: MachineDeployment$/m);
    assert.match(stdout, /^kind: KubeadmControlPlane$/m);
  });

  test('npx capi-serverless cost prices the stack templates embedded at pack time', async () => {
    const { stdout } = await npx('cost', '--clusters', '100', '-o', 'json');
    // NOTE: the same figures as the clone's CLI, which synthesizes the stack with aws-cdk-lib at run time.
    const clone = await run(
      process.execPath,
      [join(repoRoot, 'shared', 'cli', 'bin.mjs'), 'cost', '--clusters', '100', '-o', 'json'],
      {
        cwd: repoRoot,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    assert.deepEqual(JSON.parse(stdout), JSON.parse(clone.stdout));
    assert.match(stdout, /forwarder/);
  });

  test('an error is its message, without a source line or a stack', async () => {
    await assert.rejects(
      npx('cost', '--prices', join(dir, 'missing.json')),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 2);
        assert.match(err.stderr, /^failed to read prices file .*missing\.json/);
        assert.doesNotMatch(err.stderr, /^\s+at |main\.mjs/m);
        return true;
      },
    );
  });
});
