// The CEL environment x-kubernetes-validations rules run in: `self` and `oldSelf`, CEL's standard library, and the
// parts of the Kubernetes CEL libraries the API server enables that are implemented here (see README "CEL rules").
import { Environment } from '@marcbachmann/cel-js';
import { translateGoRegexp } from '#shared/topology/variables/go-regexp.ts';

/** A CEL error as a Go-style message: the first line of the library's message, without its source excerpt. */
export function celErrorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').trim();
}

/** Thrown by the functions below for a runtime failure; the evaluator reports it like any CEL error. */
class CelFunctionError extends Error {}

/** A Go (RE2) pattern as a JavaScript RegExp; `global` to find every match. */
function goRegexp(pattern: string, global = false): RegExp {
  const translated = translateGoRegexp(pattern);
  if (typeof translated === 'string') throw new CelFunctionError(`error parsing regexp: ${translated}`);
  return new RegExp(translated.source, `${translated.flags}u${global ? 'g' : ''}`);
}

function codePoints(s: string): string[] {
  return [...s];
}

type Comparable = bigint | number | string | boolean;

function compare(a: Comparable, b: Comparable): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

function listMin(list: readonly Comparable[]): Comparable {
  if (list.length === 0) throw new CelFunctionError('min called on empty list');
  return list.reduce((m, x) => (compare(x, m) < 0 ? x : m));
}

function listMax(list: readonly Comparable[]): Comparable {
  if (list.length === 0) throw new CelFunctionError('max called on empty list');
  return list.reduce((m, x) => (compare(x, m) > 0 ? x : m));
}

function replaceN(s: string, from: string, to: string, n: bigint): string {
  if (n < 0n) return s.split(from).join(to);
  let out = s;
  let start = 0;
  for (let i = 0n; i < n; i++) {
    const at = out.indexOf(from, start);
    if (at < 0) break;
    out = out.slice(0, at) + to + out.slice(at + from.length);
    start = at + to.length + (from === '' ? 1 : 0);
  }
  return out;
}

/**
 * A new CEL environment for x-kubernetes-validations rules (run expressions through withGoMatches first). `self` and `oldSelf` are dynamically typed, so type
 * mismatches show when a rule runs rather than when it is compiled. Functions: CEL's standard library, and from the Kubernetes libraries: strings (`charAt`, `replace`,
 * `reverse`, `split`, `join`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `trim`, `substring`), lists
 * (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`) and regex (`find`, `findAll`); regexps use Go's RE2
 * syntax.
 *
 * @example
 * const env = newCelEnvironment();
 * env.evaluate('self.matches("^[a-z]+$")', { self: 'abc', oldSelf: null }); // true
 */
export function newCelEnvironment(): Environment {
  return new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', 'dyn')
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = codePoints(s);
      if (i < 0n || i > BigInt(chars.length)) throw new CelFunctionError(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) =>
      replaceN(s, from, to, -1n),
    )
    .registerFunction('string.replace(string, string, int): string', replaceN)
    .registerFunction('string.reverse(): string', (s: string) => codePoints(s).reverse().join(''))
    .registerFunction(
      'string.find(string): string',
      (s: string, pattern: string) => goRegexp(pattern).exec(s)?.[0] ?? '',
    )
    .registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) =>
      [...s.matchAll(goRegexp(pattern, true))].map((m) => m[0]),
    )
    .registerFunction('string.findAll(string, int): list<string>', (s: string, pattern: string, n: bigint) => {
      const all = [...s.matchAll(goRegexp(pattern, true))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    })
    .registerFunction('string.matchesRE2(string): bool', (s: string, pattern: string) => goRegexp(pattern).test(s))
    .registerFunction('matchesRE2(string, string): bool', (s: string, pattern: string) => goRegexp(pattern).test(s))
    .registerFunction('list.isSorted(): bool', (list: readonly Comparable[]) =>
      list.every((x, i) => i === 0 || compare(list[i - 1] as Comparable, x) <= 0),
    )
    .registerFunction('list.sum(): dyn', (list: readonly (bigint | number)[]) =>
      list.length === 0
        ? 0n
        : list.reduce<bigint | number>(
            (a, b) => (typeof a === 'bigint' && typeof b === 'bigint' ? a + b : Number(a) + Number(b)),
            typeof list[0] === 'bigint' ? 0n : 0,
          ),
    )
    .registerFunction('list.min(): dyn', listMin)
    .registerFunction('list.max(): dyn', listMax)
    .registerFunction('list.indexOf(dyn): int', (list: readonly unknown[], x: unknown) => BigInt(list.indexOf(x)))
    .registerFunction('list.lastIndexOf(dyn): int', (list: readonly unknown[], x: unknown) =>
      BigInt(list.lastIndexOf(x)),
    );
}

const stringLiteral = /(['"])(?:\\.|(?!\1)[^\\])*\1/g;

/**
 * The expression with CEL's `matches` replaced by `matchesRE2` outside string literals: cel-js's own `matches` uses
 * JavaScript's regexp syntax and cannot be overridden, and Kubernetes rules are written for Go's (`(?i)`, …).
 *
 * @example
 * withGoMatches('self.matches("(?i)^a")'); // 'self.matchesRE2("(?i)^a")'
 */
export function withGoMatches(expression: string): string {
  let out = '';
  let last = 0;
  for (const literal of expression.matchAll(stringLiteral)) {
    out += expression.slice(last, literal.index).replace(/\bmatches\(/g, 'matchesRE2(') + literal[0];
    last = literal.index + literal[0].length;
  }
  return out + expression.slice(last).replace(/\bmatches\(/g, 'matchesRE2(');
}
