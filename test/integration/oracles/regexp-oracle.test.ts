// Property test: our two Go-regexp translations (variable `pattern` validation, sprig's regex functions) against
// Go's own regexp package, run by the Go oracle. Same compile verdict, same match verdict on every input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileGo, matchString } from '#shared/topology/gotemplate/go-regexp.ts';
import { compileGoRegexp } from '#shared/topology/variables/index.ts';
import { inputs, pattern } from '#test/oracles/regexp-arbitraries.ts';
import { oracleRunSettings, startGoOracle } from '#test/oracles/go-oracle.ts';
import type { GoOracle } from '#test/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

describe('Go regexp oracle', () => {
  test('variable pattern validation compiles and matches like Go regexp', async () => {
    await fc.assert(
      fc.asyncProperty(pattern, inputs, async (p, strings) => {
        const want = await go.ask({ op: 'regexp', pattern: p, inputs: strings });
        const got = compileGoRegexp(p);
        assert.equal(got.ok, want.compileError === undefined, `compiles: Go says ${want.compileError ?? 'ok'}`);
        if (got.ok)
          assert.deepEqual(
            strings.map((s) => got.regexp.test(s)),
            want.matches,
            'matches',
          );
      }),
      oracleRunSettings(300),
    );
  });

  test("sprig's regex functions compile and match like Go regexp", async () => {
    await fc.assert(
      fc.asyncProperty(pattern, inputs, async (p, strings) => {
        const want = await go.ask({ op: 'regexp', pattern: p, inputs: strings });
        let got: ReturnType<typeof compileGo> | undefined;
        try {
          got = compileGo(p);
        } catch {
          got = undefined;
        }
        assert.equal(
          got !== undefined,
          want.compileError === undefined,
          `compiles: Go says ${want.compileError ?? 'ok'}`,
        );
        if (got) {
          const r = got;
          assert.deepEqual(
            strings.map((s) => matchString(r, s)),
            want.matches,
            'matches',
          );
        }
      }),
      oracleRunSettings(300),
    );
  });
});
