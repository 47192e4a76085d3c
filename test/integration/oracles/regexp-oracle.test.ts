// Property test: the one Go regexp (shared/lang/go/regexp.ts, used by variable `pattern`s, CEL and sprig) against Go's
// own regexp package, run by the Go oracle: the same compile error message, and per input the same MatchString,
// FindString, FindAllString, ReplaceAllString (with $ expansion), ReplaceAllLiteralString and Split.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileRegexp, regexpSyntaxError } from '#shared/lang/go/regexp.ts';
import { inputs, pattern, replacement } from '#test/support/oracles/regexp-arbitraries.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle, RegexpAnswer } from '#test/support/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

/** What Go answered, recomputed with our regexp. */
function ours(p: string, strings: readonly string[], repl: string, n: number): RegexpAnswer {
  const error = regexpSyntaxError(p);
  if (error) return { compileError: error.message };
  const re = compileRegexp(p);
  return {
    matches: strings.map((s) => re.matchString(s)),
    find: strings.map((s) => re.findString(s)),
    findAll: strings.map((s) => re.findAllString(s, n)),
    replaced: strings.map((s) => re.replaceAllString(s, repl)),
    replacedLiteral: strings.map((s) => re.replaceAllLiteralString(s, repl)),
    split: strings.map((s) => re.split(s, n)),
  };
}

async function assertLikeGo(p: string, strings: readonly string[], repl = '', n = -1): Promise<void> {
  const want = await go.ask({ op: 'regexp', pattern: p, inputs: strings, replacement: repl, n });
  assert.deepEqual(ours(p, strings, repl, n), want, `pattern ${JSON.stringify(p)}`);
}

describe('Go regexp oracle', () => {
  test('compiles, matches, finds, replaces and splits like Go regexp', async () => {
    await fc.assert(
      fc.asyncProperty(pattern, inputs, replacement, fc.constantFrom(-1, -1, 0, 1, 2), async (p, strings, r, n) =>
        assertLikeGo(p, strings, r, n),
      ),
      oracleRunSettings(400),
    );
  });

  const errors = [
    '(a',
    'a)',
    '(?P<n>a)(?P<n>b)(',
    '(?P<n>a)(?P<n>[b',
    '(?P<n>a)(?P<n>b)\\8',
    `${'('.repeat(1001)}a${')'.repeat(1001)}`,
    '('.repeat(1001),
    '\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}\\pL{1000}',
    '((a{100}){100}){100}',
    '(?<=a)b',
    '(?P<>a)',
    '(?P<a-b>a)',
    '(?i',
    '(?z)',
    '[[:foo:]]',
    '\\p{Foo}',
    'x{2,1}',
    '\\',
    '*',
    '(*)',
    '|*',
    'a{,2}',
    '[]',
    '[^]',
  ];
  for (const p of errors.concat(['(?P<n>a)(?P<n>b)', '(?<n>a)(?<n>b)', '\\Q(?P<n>\\E(?P<n>a)', '[(?P<n>](?P<n>a)']))
    test(`answers ${JSON.stringify(p.length > 40 ? `${p.slice(0, 40)}…` : p)} as Go does`, () =>
      assertLikeGo(p, ['a', 'ab', '(?P<n>a']));

  test('expands replacement templates as Go does', async () => {
    const templates = [
      '$1',
      '${1}',
      '$1x',
      '${1}x',
      '$01',
      '$n',
      '${n}',
      '$$',
      '$',
      '${',
      '${n',
      '$é',
      '$100000000',
      '$0',
    ];
    for (const t of templates) await assertLikeGo('(?P<n>a)(b)?', ['xaby', 'a', ''], t);
  });
});
