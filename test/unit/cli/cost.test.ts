import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCost } from '#shared/cli/cost.ts';

function cost(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCost(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-cost-'));
const pricesFile = (content: string) => {
  const path = join(dir, `${Math.random()}.json`);
  writeFileSync(path, content);
  return path;
};

describe('capi-serverless cost', () => {
  test('prints 100, 1,000 and 10,000 Clusters by default, each line with its basis', () => {
    const { code, stdout, stderr } = cost([]);
    assert.equal(code, 0, stderr);
    for (const n of ['100 Clusters', '1,000 Clusters', '10,000 Clusters']) assert.ok(stdout.includes(n), stdout);
    assert.ok(stdout.includes('measured') && stdout.includes('modelled'));
  });

  test('a prices file overrides list prices: a dearer NAT gateway costs more', () => {
    const args = ['--clusters', '100', '--network', 'vpc-nat', '-o', 'json'];
    const base = JSON.parse(cost(args).stdout) as { results: { totalB: number }[] };
    const dear = JSON.parse(cost([...args, '--prices', pricesFile('{"natGatewayPerHour": 0.1}')]).stdout) as {
      results: { totalB: number }[];
    };
    assert.ok((dear.results[0]?.totalB ?? 0) > (base.results[0]?.totalB ?? 0));
  });

  const refused: [string, string[], RegExp][] = [
    ['an unknown network path', ['--network', 'satellite'], /--network must be one of/],
    ['a negative fleet size', ['--clusters', '-5'], /--clusters needs a number/],
    ['an unknown price key', ['--prices', pricesFile('{"natGatewayPerHr": 1}')], /natGatewayPerHr|Unrecognized/],
    ['a price that is not a number', ['--prices', pricesFile('{"natGatewayPerHour": "cheap"}')], /natGatewayPerHour/],
    ['a prices file that is not JSON', ['--prices', pricesFile('{')], /failed to read prices file/],
  ];
  for (const [name, args, message] of refused)
    test(`refuses ${name} with exit code 2`, () => {
      const { code, stderr } = cost(args);
      assert.equal(code, 2);
      assert.match(stderr, message);
    });
});
