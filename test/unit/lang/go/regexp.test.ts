import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RegexpSyntaxError, compileRegexp, quoteMeta, regexpSyntaxError } from '#shared/lang/go/regexp.ts';
import { pattern as goPattern } from '#test/support/oracles/regexp-arbitraries.ts';

/** Patterns a backtracking engine takes exponential (or high polynomial) time to refuse on the inputs below. */
const catastrophic: readonly { readonly pattern: string; readonly input: (n: number) => string }[] = [
  { pattern: '^(a+)+$', input: (n) => `${'a'.repeat(n)}!` },
  { pattern: '^(a*)*$', input: (n) => `${'a'.repeat(n)}!` },
  { pattern: '^(a|aa)+$', input: (n) => `${'a'.repeat(n)}!` },
  { pattern: '^(a|a?)+$', input: (n) => `${'a'.repeat(n)}!` },
  { pattern: '^([a-z]+\\d*)+$', input: (n) => `${'a1'.repeat(n / 2)}!` },
  { pattern: '^(\\w+\\s?)+$', input: (n) => `${'ab '.repeat(n / 3)}!` },
  { pattern: '(.*a){12}b', input: (n) => 'a'.repeat(n) },
  { pattern: '^(?:a+)+(?:a+)+$', input: (n) => `${'a'.repeat(n)}!` },
];

function elapsedMs(f: () => unknown): number {
  const start = performance.now();
  f();
  return performance.now() - start;
}

describe('Go regexp: linear time', () => {
  // NOTE: a generous bound, not a timing benchmark: a backtracking engine needs seconds at 30 characters and longer
  // than the age of the universe at 10,000; the linear engine answers in milliseconds.
  const boundMs = 5_000;
  test('refuses nested quantifiers on long near-misses in bounded time', () => {
    for (const n of [30, 10_000]) {
      for (const c of catastrophic) {
        const re = compileRegexp(c.pattern);
        const input = c.input(n);
        let matched: boolean | undefined;
        const ms = elapsedMs(() => (matched = re.matchString(input)));
        assert.equal(matched, false, `${c.pattern} on ${n} characters`);
        assert.ok(ms < boundMs, `${c.pattern} on ${n} characters took ${Math.round(ms)} ms`);
      }
    }
  });

  test('finds, replaces and splits in bounded time too', () => {
    const re = compileRegexp('(a+)+b');
    const input = `${'a'.repeat(10_000)}!`;
    const ms = elapsedMs(() => {
      assert.deepEqual(re.findAllString(input, -1), []);
      assert.equal(re.replaceAllString(input, 'x'), input);
      assert.deepEqual(re.split(input, -1), [input]);
    });
    assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
  });
});

describe('Go regexp: semantics', () => {
  const cases: readonly { name: string; pattern: string; input: string; match: boolean }[] = [
    { name: 'folds case under (?i)', pattern: '(?i)^abc$', input: 'ABC', match: true },
    { name: 'folds the Kelvin sign to k under (?i), as Go does', pattern: '(?i)^k$', input: '\u212a', match: true },
    { name: 'takes (?i) in the middle of a pattern', pattern: '^a(?i)b$', input: 'aB', match: true },
    { name: 'takes (?i:…) groups', pattern: '^(?i:a)b$', input: 'Ab', match: true },
    { name: 'keeps \\s ASCII only', pattern: '^a\\s$', input: 'a\u00a0', match: false },
    { name: 'reads \\pL as any letter', pattern: '^\\pL+$', input: 'héllo', match: true },
    { name: 'reads \\p{Greek} as a script', pattern: '^\\p{Greek}+$', input: 'αβγ', match: true },
    { name: 'reads POSIX classes', pattern: '^[[:alpha:]]+$', input: 'abcXYZ', match: true },
    { name: 'matches one character with . on astral code points', pattern: '^.$', input: '😀', match: true },
    { name: 'does not let . match a newline without (?s)', pattern: '^a.b$', input: 'a\nb', match: false },
    { name: 'lets $ match only at the end without (?m)', pattern: 'a$', input: 'a\n', match: false },
    { name: 'takes a capture name twice, as Go does', pattern: '(?P<n>a)(?P<n>b)', input: 'ab', match: true },
    { name: 'is ungreedy under (?U)', pattern: '(?U)^a+$', input: 'aaa', match: true },
  ];
  for (const c of cases) test(c.name, () => assert.equal(compileRegexp(c.pattern).matchString(c.input), c.match));

  // Found by the Go oracle property test (test/integration/oracles) against the earlier translation to JavaScript's
  // RegExp; expectations recorded from Go's regexp.
  const found: readonly { pattern: string; input: string; match: boolean }[] = [
    { pattern: '(?i)^abc$', input: 'ABC', match: true },
    { pattern: '^(?P<major>\\d+)\\.(\\d+)$', input: '1.29', match: true },
    { pattern: '\\Aa\\z', input: 'a', match: true },
    { pattern: '^[[:alpha:]]+$', input: 'abcXYZ', match: true },
    { pattern: '^[[:digit:]]+$', input: '12a', match: false },
    { pattern: '^\\pL+$', input: 'héllo', match: true },
    { pattern: '^\\p{Greek}+$', input: 'αβγ', match: true },
    { pattern: '^a\\-b\\#c$', input: 'a-b#c', match: true },
    { pattern: '^.$', input: '😀', match: true },
    // Found by the Go oracle property test (test/integration/oracles); expectations recorded from Go's regexp.
    { pattern: '^*a', input: 'a', match: true },
    { pattern: '\\b{2}a', input: 'a', match: true },
    { pattern: '(?P<n>a)(?P<n>b)', input: 'ab', match: true },
    { pattern: '^[[:^space:]]+$', input: 'ab', match: true },
    { pattern: '^[[:^space:]]+$', input: 'a b', match: false },
    { pattern: '^[\\pL-_]+$', input: 'a-_', match: true },
    { pattern: '(?m)\\Ab$', input: 'a\nb', match: false },
    { pattern: '(?m)^b$', input: 'a\nb', match: true },
    { pattern: '\\B', input: 'b😀B', match: false },
    { pattern: '^a\\s$', input: 'a\u00a0', match: false },
    { pattern: '^a\\s$', input: 'a\v', match: false },
    { pattern: '^[^\\S]$', input: ' ', match: true },
    { pattern: '^\\10$', input: '\b', match: true },
    { pattern: '^a\\\nb$', input: 'a\nb', match: true },
    { pattern: '^a{$', input: 'a{', match: true },
    { pattern: '^]$', input: ']', match: true },
    { pattern: '^[--[:word:]]+$', input: '-AB[', match: false },
    { pattern: '^[b-d-[:word:]]+$', input: 'a-c', match: true },
    { pattern: '^[]a-]+$', input: ']-a', match: true },
  ];
  for (const c of found)
    test(`${c.match ? 'matches' : 'does not match'} ${JSON.stringify(c.input)} with ${c.pattern}`, () =>
      assert.equal(compileRegexp(c.pattern).matchString(c.input), c.match));

  test('finds every match and skips an empty match right after one', () =>
    assert.deepEqual(compileRegexp('a*').findAllString('baaab', -1), ['', 'aaa', '']));
  test('finds at most n matches', () => assert.deepEqual(compileRegexp('a.').findAllString('a1a2a3', 2), ['a1', 'a2']));
  test('expands $1, ${1}, $name and $$ in replacements', () =>
    assert.equal(compileRegexp('(?P<word>\\w+)-(\\d)').replaceAllString('ab-1 cd-2', '${2}$word$$$1x'), '1ab$ 2cd$'));
  test('expands a repeated name to the first group that took part', () =>
    assert.equal(compileRegexp('(?P<n>a)|(?P<n>b)').replaceAllString('ab', '[$n]'), '[a][b]'));
  test('replaces literally', () => assert.equal(compileRegexp('a(x*)').replaceAllLiteralString('axx', '$1'), '$1'));
  test('splits as Go does', () =>
    assert.deepEqual(compileRegexp('a*').split('abaabaccadaaae', 5), ['', 'b', 'b', 'c', 'cadaaae']));
  test('splits nothing into one empty string', () => assert.deepEqual(compileRegexp(',').split('', -1), ['']));
  test('returns groups that took no part as undefined', () =>
    assert.deepEqual(compileRegexp('(a)|(b)').findStringSubmatch('b'), ['b', undefined, 'b']));
  test('quotes metacharacters', () => assert.equal(quoteMeta('1.5-2.0?[x]'), '1\\.5-2\\.0\\?\\[x\\]'));
});

describe('Go regexp: errors', () => {
  const rejected: readonly { pattern: string; message: string }[] = [
    { pattern: '(a', message: 'error parsing regexp: missing closing ): `(a`' },
    { pattern: 'a)', message: 'error parsing regexp: unexpected ): `a)`' },
    { pattern: 'a(?=b)', message: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' },
    { pattern: '(a)\\1', message: 'error parsing regexp: invalid escape sequence: `\\1`' },
    { pattern: 'a{1001}', message: 'error parsing regexp: invalid repeat count: `{1001}`' },
    { pattern: 'a**', message: 'error parsing regexp: invalid nested repetition operator: `**`' },
    { pattern: '[z-a]', message: 'error parsing regexp: invalid character class range: `z-a`' },
    { pattern: '[a', message: 'error parsing regexp: missing closing ]: `[a`' },
    {
      pattern: '(?P<n>a)(?P<n>b)(',
      message: 'error parsing regexp: missing closing ): `(?P<n>a)(?P<n>b)(`',
    },
  ];
  for (const c of rejected) {
    test(`refuses ${c.pattern} with Go's message`, () => {
      assert.throws(
        () => compileRegexp(c.pattern),
        (err: unknown) => {
          assert.ok(err instanceof RegexpSyntaxError);
          assert.equal(err.message, c.message);
          return true;
        },
      );
      assert.equal(regexpSyntaxError(c.pattern)?.message, c.message);
    });
  }
  test('names the whole pattern when it nests too deeply', () =>
    assert.equal(
      regexpSyntaxError(`${'('.repeat(1001)}a${')'.repeat(1001)}`)?.message,
      `error parsing regexp: expression nests too deeply: \`${'('.repeat(1001)}a${')'.repeat(1001)}\``,
    ));
});

describe('Go regexp: properties', () => {
  const anyPattern = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }), goPattern);
  test('compiling any string yields a regexp or a RegexpSyntaxError, never another exception', () =>
    fc.assert(
      fc.property(anyPattern, (p) => {
        try {
          compileRegexp(p);
        } catch (err) {
          assert.ok(err instanceof RegexpSyntaxError, `${p}: ${String(err)}`);
          assert.match(err.message, /^error parsing regexp: /);
        }
      }),
      { numRuns: 2000 },
    ));
  test('matching twice gives the same result', () =>
    fc.assert(
      fc.property(goPattern, fc.string({ maxLength: 12 }), (p, s) => {
        if (regexpSyntaxError(p)) return;
        const first = compileRegexp(p);
        const again = compileRegexp(p);
        assert.equal(first.matchString(s), again.matchString(s));
        assert.deepEqual(first.findAllString(s, -1), first.findAllString(s, -1));
        assert.equal(first.replaceAllString(s, '<$0>'), again.replaceAllString(s, '<$0>'));
      }),
      { numRuns: 500 },
    ));
});
