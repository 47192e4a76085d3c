import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoRegexp } from '#shared/topology/variables/go-regexp.ts';
import { canonicalJson, goFormatFloat, jsonEqual } from '#shared/topology/variables/json-value.ts';
import { applyStructuralDefaults, findUnknownFields } from '#shared/topology/variables/structural.ts';

describe('compileGoRegexp', () => {
  const matches: { pattern: string; input: string; match: boolean }[] = [
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
  for (const c of matches) {
    test(`${c.match ? 'matches' : 'does not match'} ${JSON.stringify(c.input)} with ${c.pattern}`, () => {
      const r = compileGoRegexp(c.pattern);
      assert.ok(r.ok, r.ok ? '' : r.error);
      assert.equal(r.regexp.test(c.input), c.match);
    });
  }

  const rejected: { pattern: string; error: string }[] = [
    { pattern: 'a(?=b)', error: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' },
    { pattern: '(?<!a)b', error: 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`' },
    { pattern: '(a)\\1', error: 'error parsing regexp: invalid escape sequence: `\\1`' },
    { pattern: 'a{1001}', error: 'error parsing regexp: invalid repeat count: `{1001}`' },
  ];
  for (const c of rejected) {
    test(`rejects ${c.pattern} as RE2 does`, () =>
      assert.deepEqual(compileGoRegexp(c.pattern), { ok: false, error: c.error }));
  }

  test('reports a syntax error JS finds', () => assert.equal(compileGoRegexp('a(').ok, false));
});

describe('JSON helpers', () => {
  test('compares objects regardless of key order', () =>
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })));
  test('tells arrays and objects apart', () => assert.ok(!jsonEqual([], {})));
  test('renders canonical JSON with sorted keys', () =>
    assert.equal(canonicalJson({ b: 1, a: { d: 1, c: 2 } }), '{"a":{"c":2,"d":1},"b":1}'));
  const floats: [number, string][] = [
    [1000000, '1e+06'],
    [123456, '123456'],
    [1.5, '1.5'],
    [0.00001, '1e-05'],
    [1234567.5, '1.2345675e+06'],
  ];
  for (const [n, s] of floats) test(`prints ${n} as Go's %v does: ${s}`, () => assert.equal(goFormatFloat(n), s));
});

describe('structural algorithms', () => {
  test('finds unknown fields inside arrays with their index', () => {
    const schema = {
      type: 'array' as const,
      items: { type: 'object' as const, properties: { a: { type: 'string' as const } } },
    };
    assert.deepEqual(findUnknownFields([{ a: 'x' }, { b: 1 }], schema), ['[1].b']);
  });

  test('keeps unknown fields of array items under a preserving parent', () => {
    const schema = {
      type: 'object' as const,
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { l: { type: 'array' as const, items: { type: 'object' as const } } },
    };
    assert.deepEqual(findUnknownFields({ l: [{ z: 1 }] }, schema), ['l[0].z']);
  });

  test('fills null array items with the items default', () => {
    assert.deepEqual(applyStructuralDefaults([null, 'a'], { type: 'array', items: { type: 'string', default: 'd' } }), [
      'd',
      'a',
    ]);
  });
});
