import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  TemplateExecError,
  TemplateParseError,
  hermeticSprigFuncs,
  parseTemplate,
  executeTemplate,
} from '#shared/lang/gotemplate/index.ts';
import type { MissingKey } from '#shared/lang/gotemplate/index.ts';

type GoldenCase = {
  readonly name: string;
  readonly template: string;
  readonly data?: unknown;
  readonly functions?: 'sprig' | 'builtin';
  readonly missingKey?: MissingKey;
};
type GoldenResult = {
  readonly name: string;
  readonly output?: string;
  readonly error?: boolean;
  readonly phase?: 'parse' | 'exec';
  readonly detail?: string;
};
type Golden = { readonly hermeticFuncs: readonly string[]; readonly results: readonly GoldenResult[] };

const fixture = (file: string): unknown =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../support/fixtures/golden/${file}`, import.meta.url)), 'utf8'));
const cases = fixture('gotemplate-cases.json') as GoldenCase[];
const golden = fixture('gotemplate-golden.json') as Golden;
const goldenByName = new Map(golden.results.map((r) => [r.name, r]));

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function render(c: GoldenCase): string {
  const options = {
    functions: c.functions ?? 'sprig',
    ...(c.missingKey === undefined ? {} : { missingKey: c.missingKey }),
  } as const;
  return executeTemplate(parseTemplate('tpl', c.template, options), deepFreeze(structuredClone(c.data ?? null)));
}

/**
 * Cases where the evaluator knowingly differs from Go; each asserts the documented difference so that a fix shows up.
 */
const knownDifferences: Record<
  string,
  { readonly why: string; readonly check: (c: GoldenCase, want: GoldenResult) => void }
> = {
  'unsupported sprig function errors': {
    why: 'date functions (toDate and friends) read the local time zone, so the evaluator rejects them by name',
    check: (c) =>
      assert.throws(
        () => render(c),
        (err: unknown) => err instanceof TemplateExecError && /"toDate" is not supported/.test(err.message),
      ),
  },
  'trunc cuts inside a multibyte character': {
    why: 'Go strings are bytes and may hold invalid UTF-8; JavaScript strings replace the cut character with U+FFFD',
    check: (c, want) => assert.notEqual(render(c), want.output),
  },
};

describe('Go text/template golden cases (outputs recorded from Go and sprig)', () => {
  test('every case has a golden result', () => {
    assert.equal(golden.results.length, cases.length);
    for (const c of cases) assert.ok(goldenByName.has(c.name), c.name);
  });

  test('every function of sprig.HermeticTxtFuncMap is known to the evaluator', () => {
    const missing = golden.hermeticFuncs.filter((name) => !hermeticSprigFuncs.has(name));
    assert.deepEqual(missing, []);
    const extra = [...hermeticSprigFuncs.keys()].filter((name) => !golden.hermeticFuncs.includes(name));
    assert.deepEqual(extra, []);
  });

  for (const c of cases) {
    const want = goldenByName.get(c.name);
    test(c.name, () => {
      assert.ok(want, `no golden result for ${c.name}`);
      const known = knownDifferences[c.name];
      if (known) {
        known.check(c, want);
      } else if (want.error) {
        const errorClass = want.phase === 'parse' ? TemplateParseError : TemplateExecError;
        assert.throws(() => render(c), errorClass, `Go fails with: ${want.detail ?? ''}`);
      } else {
        assert.equal(render(c), want.output ?? '');
      }
    });
  }
});
