// Every caller of Go regular expressions answers a catastrophic-backtracking input in bounded time: ClusterClass
// variable `pattern`s, CEL `matches`/`find`/`findAll` in x-kubernetes-validations rules, sprig's regex functions,
// sprig's semverCompare (whose constraint parser is a regexp in Masterminds/semver) and the `email` string format.
// Through each caller's own API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { renderTemplate } from '#shared/lang/gotemplate/index.ts';
import { formatFieldErrors, validateClusterVariables } from '#shared/topology/variables/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

// NOTE: a generous bound, not a timing benchmark. JavaScript's backtracking RegExp needed about 35 s and more for
// these inputs (doubling with every character or two); a linear-time engine answers in milliseconds.
const boundMs = 5_000;
const nearMiss = `${'a'.repeat(40)}!`;
const long = `${'a'.repeat(10_000)}!`;

function timed<T>(f: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = f();
  return { result, ms: performance.now() - start };
}

function validate(schema: JSONSchemaProps, v: unknown): string[] {
  return formatFieldErrors(validateClusterVariables([value('v', v)], [definition('v', deepFreeze(schema))]));
}

describe('Go regexp callers answer in bounded time', () => {
  for (const input of [nearMiss, long]) {
    const size = `${input.length} characters`;

    test(`a variable pattern refuses ${size} with the OpenAPI message`, () => {
      const { result, ms } = timed(() => validate({ type: 'string', pattern: '^(a+)+$' }, input));
      assert.deepEqual(
        result.map((m) => m.replace(/a{20,}/, 'a…')),
        [`spec.topology.variables[v].value: Invalid value: "\\"a…!\\"": should match '^(a+)+$'`],
      );
      assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
    });

    test(`a CEL rule with matches, find and findAll refuses ${size}`, () => {
      const schema: JSONSchemaProps = {
        type: 'string',
        'x-kubernetes-validations': [
          { rule: "self.matches('^(a+)+$')" },
          { rule: "self.find('^(a|aa)+$') != ''" },
          { rule: "size(self.findAll('(a*)*!')) == 0" },
        ],
      };
      const { result, ms } = timed(() => validate(schema, input));
      assert.deepEqual(
        result.map((m) => m.replace(/a{20,}/, 'a…').replace(/^.*failed rule: /, '')),
        ["self.matches('^(a+)+$')", "self.find('^(a|aa)+$') != ''", "size(self.findAll('(a*)*!')) == 0"],
      );
      assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
    });

    test(`sprig's regex functions answer on ${size}`, () => {
      const text = [
        '{{ regexMatch "^(a+)+$" .s }}',
        '{{ mustRegexMatch "^(a|a?)+$" .s }}',
        '{{ len (regexFindAll "(a+)+b" .s -1) }}',
        '{{ regexFind "(a*)*b" .s }}',
        '{{ len (regexReplaceAll "^(a+)+$" .s "x") }}',
        '{{ len (regexReplaceAllLiteral "^(a+)+$" .s "x") }}',
        '{{ len (regexSplit "(a+)+b" .s -1) }}',
      ].join(',');
      const { result, ms } = timed(() => renderTemplate('t', text, { s: input }));
      assert.equal(result, `false,false,0,,${input.length},${input.length},1`);
      assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
    });
  }

  test('a variable with format email refuses 100,000 spaces in bounded time (quadratic with RegExp)', () => {
    const { result, ms } = timed(() => validate({ type: 'string', format: 'email' }, `${' '.repeat(100_000)}x`));
    assert.equal(result.length, 1);
    assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
  });

  test("sprig's semverCompare refuses a constraint of many spaced versions in bounded time", () => {
    const constraint = `${Array.from({ length: 40 }, () => '1').join('    ')} !`;
    const { result, ms } = timed(() => {
      try {
        return renderTemplate('t', '{{ semverCompare .c "1.0.0" }}', { c: constraint });
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    });
    assert.match(result, /improper constraint/);
    assert.ok(ms < boundMs, `took ${Math.round(ms)} ms`);
  });
});
