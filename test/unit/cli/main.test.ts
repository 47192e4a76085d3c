// The CLI's front door: --version from package.json, --help on the CLI and on every subcommand (answered before the
// subcommand parses anything), and errors as one line without a source line or stack.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { main } from '#shared/cli/main.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

describe('capi-serverless CLI', () => {
  test('--version prints the package version', async () => {
    for (const flag of ['--version', '-v'])
      assert.deepEqual(await run([flag]), { code: 0, stdout: `capi-serverless ${version}\n`, stderr: '' });
  });

  for (const command of ['plan', 'cost'])
    for (const flag of ['--help', '-h'])
      test(`${command} ${flag} prints its usage and exits 0 (also after other options)`, async () => {
        for (const argv of [
          [command, flag],
          [command, '--no-such-option', flag],
        ]) {
          const { code, stdout, stderr } = await run(argv);
          assert.equal(code, 0, stderr);
          assert.match(stdout, new RegExp(`^usage: capi-serverless ${command} `));
          assert.equal(stderr, '');
        }
      });

  test('--help and help <command> print usage on stdout; no command is a usage error', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /capi-serverless --version/);
    assert.match((await run(['help', 'cost'])).stdout, /^usage: capi-serverless cost /);
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^usage:/);
    const unknown = await run(['deploy']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^unknown command "deploy"/);
  });

  test('the installed command answers --version and cost --help, and fails with one line, no source', () => {
    const bin = join(root, 'shared', 'cli', 'bin.mjs');
    const v = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    assert.equal(v.stdout, `capi-serverless ${version}\n`);
    const c = spawnSync(process.execPath, [bin, 'cost', '--help'], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stdout, /^usage: capi-serverless cost /);
    const bad = spawnSync(process.execPath, [bin, 'plan', '-f', join(root, 'no-such-file.yaml')], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.doesNotMatch(bad.stderr, /^\s+at |\^\n|\.ts:\d+/m, bad.stderr);
  });
});
