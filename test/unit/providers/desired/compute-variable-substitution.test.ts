import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapiError } from '#shared/errors/index.ts';
import {
  computeVariableSubstitution,
  listVariableDefaults,
  listVariables,
} from '#shared/providers/desired/compute-variable-substitution.ts';
import { MissingVariablesError, VariableSyntaxError } from '#shared/providers/desired/provider-components-error.ts';

describe('computeVariableSubstitution', () => {
  const cases: ReadonlyArray<{ name: string; text: string; values: Record<string, string>; want: string }> = [
    {
      name: 'replaces a variable with its value',
      text: 'region: ${AWS_REGION}',
      values: { AWS_REGION: 'eu-west-1' },
      want: 'region: eu-west-1',
    },
    { name: 'uses the := default when the variable is unset', text: 'r: ${REPLICAS:=1}', values: {}, want: 'r: 1' },
    { name: 'uses the :- default when the variable is unset', text: 'a: ${ADDR:-:8443}', values: {}, want: 'a: :8443' },
    {
      name: 'uses the default when the variable is set but empty',
      text: 'x: ${X:=fallback}',
      values: { X: '' },
      want: 'x: fallback',
    },
    { name: 'prefers the value over the default', text: 'r: ${REPLICAS:=1}', values: { REPLICAS: '3' }, want: 'r: 3' },
    {
      name: 'keeps slashes and colons in defaults',
      text: '${L:=node-role.kubernetes.io/control-plane}',
      values: {},
      want: 'node-role.kubernetes.io/control-plane',
    },
    { name: 'renders a nested variable inside a default', text: '${A:=${B}-x}', values: { B: 'b' }, want: 'b-x' },
    { name: 'substitutes an empty value as empty', text: 'v: "${V}"', values: { V: '' }, want: 'v: ""' },
    {
      name: 'leaves a bare $VAR alone (envsubst only knows ${...})',
      text: 'echo $HOME',
      values: { HOME: '/root' },
      want: 'echo $HOME',
    },
    { name: 'turns $${VAR} into a literal ${VAR}', text: 'x: $${NOT_A_VAR}', values: {}, want: 'x: ${NOT_A_VAR}' },
    { name: 'turns $$ into a single $', text: 'cost: $$5', values: {}, want: 'cost: $5' },
    { name: 'accepts the legacy spaced form ${ VAR }', text: '${ NAME }', values: { NAME: 'n' }, want: 'n' },
    { name: 'lower-cases with ,,', text: '${V,,}', values: { V: 'MiXed' }, want: 'mixed' },
    { name: 'upper-cases the first letter with ^', text: '${V^}', values: { V: 'word' }, want: 'Word' },
    { name: 'returns the byte length with #', text: '${#V}', values: { V: 'héllo' }, want: '6' },
    { name: 'takes a substring with :offset:length', text: '${V:1:3}', values: { V: 'abcdef' }, want: 'bcd' },
    { name: 'replaces all matches with //', text: '${V//-/_}', values: { V: 'a-b-c' }, want: 'a_b_c' },
    { name: 'trims the shortest matching prefix with #', text: '${V#*/}', values: { V: 'a/b/c' }, want: 'b/c' },
    { name: 'trims the longest matching suffix with %%', text: '${V%%.*}', values: { V: 'a.b.c' }, want: 'a' },
    {
      name: 'matches * like Go path.Match, never across a slash',
      text: '${V%%/*}',
      values: { V: 'a/b/c' },
      want: 'a/b',
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(computeVariableSubstitution(c.text, Object.freeze({ ...c.values })), c.want));
  }

  test('trims with a many-star glob in bounded time (it matches in linear time, not by backtracking)', () => {
    const V = 'a'.repeat(300);
    const start = performance.now();
    assert.equal(computeVariableSubstitution('${V#*a*a*a*a*a*a*a*b}', Object.freeze({ V })), V);
    // NOTE: a generous bound; JavaScript's backtracking RegExp did not answer within 2 minutes.
    assert.ok(performance.now() - start < 5_000);
  });

  test('reports every missing variable at once, sorted and deduplicated', () => {
    const text = 'a: ${ZETA}\nb: ${ALPHA}\nc: ${MID:=ok}\nd: ${ALPHA}\ne: ${BETA}';
    assert.throws(
      () =>
        computeVariableSubstitution(
          text,
          { BETA: 'set' },
          { source: 'components.yaml', object: { kind: 'CoreProvider', name: 'cluster-api' } },
        ),
      (err: unknown) => {
        assert.ok(err instanceof MissingVariablesError);
        assert.deepEqual(err.missing, ['ALPHA', 'ZETA']);
        assert.equal(err.reason, 'ComponentsFetchError');
        assert.equal(err.kind, 'CoreProvider');
        assert.equal(
          err.message,
          'failed to perform variable substitution: value for variables [ALPHA, ZETA] is not set. Please set the value using os environment variables or the clusterctl config file (components.yaml)',
        );
        return true;
      },
    );
  });

  test('treats a variable as optional when its first use has a default', () => {
    assert.equal(computeVariableSubstitution('${A:=x} ${A}', {}), 'x ');
  });

  test('does not require variables nested in a default', () => {
    assert.equal(computeVariableSubstitution('${A:=${B}}', {}), '');
  });

  test('does not treat inherited object properties as values', () => {
    assert.throws(() => computeVariableSubstitution('${constructor}', {}), MissingVariablesError);
  });

  const syntaxErrors: ReadonlyArray<{ name: string; text: string; want: RegExp }> = [
    { name: 'rejects an empty name', text: '${}', want: /unable to parse variable name/ },
    { name: 'rejects an unterminated expression', text: 'x: ${A', want: /missing closing brace/ },
    { name: 'rejects an unterminated default', text: '${A:=x', want: /unable to parse substitution within function/ },
    { name: 'rejects a bash-only ${A-x} default', text: '${A-x}', want: /missing closing brace/ },
  ];
  for (const c of syntaxErrors) {
    test(c.name, () => {
      assert.throws(
        () => computeVariableSubstitution(c.text, {}),
        (err: unknown) => err instanceof VariableSyntaxError && c.want.test(err.message),
      );
    });
  }
});

describe('listVariables', () => {
  test('lists top-level variables sorted and once', () => {
    assert.deepEqual(listVariables('${B} ${A:=1} ${B} $${C} ${D:=${E}}'), ['A', 'B', 'D']);
  });

  test('gives the default of the first use, undefined when required', () => {
    assert.deepEqual(listVariableDefaults('${B} ${A:=x${C}y} ${B:=late}'), { A: 'x${C}y', B: undefined });
  });
});

describe('computeVariableSubstitution properties', () => {
  const anyText = fc.string({
    unit: fc.constantFrom('$', '{', '}', ':', '=', '-', '#', '%', '/', '\\', ',', '^', 'A', 'b', '1', ' ', '\n', 'é'),
  });
  const values = fc.dictionary(fc.constantFrom('A', 'b', '1', 'Ab'), fc.string({ maxLength: 5 }));

  test('only ever throws typed errors', () => {
    fc.assert(
      fc.property(anyText, values, (text, vals) => {
        try {
          computeVariableSubstitution(text, vals);
        } catch (err) {
          return (
            err instanceof CapiError && (err instanceof MissingVariablesError || err instanceof VariableSyntaxError)
          );
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  test('leaves text without $ unchanged and is idempotent once no variables are left', () => {
    const plain = fc.string({ unit: fc.constantFrom('{', '}', ':', '=', 'a', 'Z', '9', ' ', '\n', '-', 'ü') });
    fc.assert(
      fc.property(plain, values, (text, vals) => {
        const once = computeVariableSubstitution(text, vals);
        assert.equal(once, text);
        assert.equal(computeVariableSubstitution(once, vals), once);
      }),
    );
  });

  test('substituting values without $ twice gives the same result', () => {
    const name = fc.constantFrom('A', 'B', 'C');
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', ' ', ':', '}', '\n') }),
      name.map((n) => `\${${n}}`),
      name.map((n) => `\${${n}:=d}`),
    );
    const dollarFree = fc.dictionary(name, fc.string({ unit: fc.constantFrom('x', 'y', ' ', '{', '}') }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), dollarFree, (pieces, vals) => {
        const text = pieces.join('');
        let once: string;
        try {
          once = computeVariableSubstitution(text, vals);
        } catch (err) {
          return err instanceof MissingVariablesError;
        }
        assert.deepEqual(listVariables(once), []);
        assert.equal(computeVariableSubstitution(once, vals), once);
        return true;
      }),
    );
  });
});
