// The CEL environment x-kubernetes-validations rules run in: `self` and `oldSelf`, CEL's standard library, and the
// parts of the Kubernetes CEL libraries the API server enables that are implemented here (see docs/differences.md, "CEL rules").
import { Environment } from '@marcbachmann/cel-js';
import { compileRegexp, RegexpSyntaxError } from '#shared/lang/go/regexp.ts';
import type { GoRegexp } from '#shared/lang/go/regexp.ts';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { chargeCelCost, meterEnvironment } from '#shared/lang/cel/cost.ts';
import { registerCollectionLibraries } from '#shared/lang/cel/collections.ts';
import { registerFormatLibrary } from '#shared/lang/cel/format.ts';
import { registerMacros } from '#shared/lang/cel/macros.ts';
import { registerIpLibraries } from '#shared/lang/cel/ip.ts';
import { registerQuantityLibrary } from '#shared/lang/cel/quantity.ts';
import { registerSemverLibrary } from '#shared/lang/cel/semver.ts';
import { registerUrlLibrary } from '#shared/lang/cel/url.ts';
import { formatFloat } from '#shared/lang/go/format-float.ts';
import { quote, quoteBytes } from '#shared/lang/go/strconv.ts';

/** cel-js's runtime messages that cel-go words differently. */
const goMessages: Readonly<Record<string, string>> = {
  'Optional value is not present': 'optional.none() dereference',
};

/** A CEL error as a Go-style message: the first line of the library's message, without its source excerpt. */
export function celErrorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const first = (text.split('\n')[0] ?? '').trim().replace(/\b(\w+)K8s\b/g, '$1');
  return goMessages[first] ?? first;
}

/** A Go (RE2) pattern compiled as regexp.Compile does; a bad pattern is the function's error. */
function goRegexp(pattern: string): GoRegexp {
  try {
    return compileRegexp(pattern);
  } catch (err) {
    if (err instanceof RegexpSyntaxError) throw new CelFunctionError(err.message);
    throw err;
  }
}

function codePoints(s: string): string[] {
  return [...s];
}

/** cel-go's strings (v0.29): indexes count code points; a negative or out-of-range index is an error. */
function indexOutOfRange(i: bigint): CelFunctionError {
  return new CelFunctionError(`index out of range: ${i}`);
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

function matchesAt(chars: readonly string[], needle: readonly string[], i: number): boolean {
  return needle.every((c, j) => chars[i + j] === c);
}

function stringIndexOf(s: string, sub: string, from: bigint): bigint {
  if (from < 0n) throw indexOutOfRange(from);
  const chars = codePoints(s);
  if (sub === '') return from > BigInt(chars.length) ? BigInt(chars.length) : from;
  if (from >= BigInt(chars.length)) return -1n;
  const needle = codePoints(sub);
  for (let i = Number(from); i + needle.length <= chars.length; i++) if (matchesAt(chars, needle, i)) return BigInt(i);
  return -1n;
}

function stringLastIndexOf(s: string, sub: string, from: bigint): bigint {
  if (from < 0n) throw indexOutOfRange(from);
  const chars = codePoints(s);
  if (sub === '') return from > BigInt(chars.length) ? BigInt(chars.length) : from;
  if (from >= BigInt(chars.length)) return -1n;
  const needle = codePoints(sub);
  for (let i = Math.min(Number(from), chars.length - needle.length); i >= 0; i--)
    if (matchesAt(chars, needle, i)) return BigInt(i);
  return -1n;
}

function substring(s: string, start: bigint, end: bigint): string {
  const chars = codePoints(s);
  if (start > end) throw new CelFunctionError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > BigInt(chars.length)) throw indexOutOfRange(start);
  if (end < 0n || end > BigInt(chars.length)) throw indexOutOfRange(end);
  return chars.slice(Number(start), Number(end)).join('');
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

/** How many times `from` occurs in `s` (Go's strings.Count: an empty `from` occurs between every code point). */
function countOccurrences(s: string, from: string): number {
  if (from === '') return codePoints(s).length + 1;
  let count = 0;
  for (let at = s.indexOf(from); at >= 0; at = s.indexOf(from, at + from.length)) count++;
  return count;
}

function replaceN(s: string, from: string, to: string, n: bigint): string {
  // NOTE: priced by what it builds before it builds it: `s.replace("", s)` is quadratic in the length of s.
  if (to.length > from.length) {
    const count = countOccurrences(s, from);
    const replaced = n < 0n ? count : Math.min(count, Number(n));
    chargeCelCost((s.length + replaced * (to.length - from.length)) * 0.1);
  }
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

/** A timestamp as Go prints it (RFC 3339 with the fraction's trailing zeros trimmed). */
function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d*?)0*Z$/, (_, fraction: string) => (fraction ? `.${fraction}Z` : 'Z'));
}

// NOTE: cel-js does not export its Duration class; its values are told by their constructor's name.
const isDuration = (value: unknown) => typeof value === 'object' && value?.constructor.name === 'Duration';

/** A value inside a list or map as cel-go's `%s` prints it: as a CEL literal (strings quoted, doubles `%.6f`). */
function formatMember(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value instanceof Date) return `timestamp(${quote(formatTimestamp(value))})`;
  if (isDuration(value)) return `duration(${quote(String(value))})`;
  if (value instanceof Uint8Array) return `b${quoteBytes(value)}`;
  if (typeof value === 'number') return Number.isFinite(value) ? value.toFixed(6) : quote(formatValue(value));
  return formatValue(value);
}

function formatEntries(entries: readonly (readonly [unknown, unknown])[]): string {
  const pairs = entries.map(([k, v]) => [formatMember(k), formatMember(v)] as const);
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

/** A value as the Kubernetes strings library's `%s` prints it (cel-go's FormatString). */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
    return Number.isInteger(value) ? value.toFixed(1) : String(value);
  }
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) return formatTimestamp(value);
  if (Array.isArray(value)) return `[${value.map(formatMember).join(', ')}]`;
  if (value instanceof Map) return formatEntries([...value.entries()]);
  if (typeof value === 'object' && value.constructor === Object) return formatEntries(Object.entries(value));
  return String(value);
}

function formatInteger(value: unknown, radix: number, verb: string): string {
  if (typeof value === 'bigint') return value.toString(radix);
  if (typeof value === 'number' && Number.isInteger(value)) return value.toString(radix);
  if (typeof value === 'string' && radix === 16) return Buffer.from(value, 'utf8').toString('hex');
  throw new CelFunctionError(`error during formatting: ${verb} is not supported for ${typeof value}`);
}

/**
 * cel-go's fixed-point (`%f`) and scientific (`%e`) clauses: the double's digits as Go's strconv rounds them (halves to
 * even, on the binary value), negative zero printed as zero. NOTE: cel-go prints through golang.org/x/text's printer,
 * which also groups thousands (`1,234,567.89`), writes `%e` as `2.500000×10⁰⁰` and pads NaN and ∞; those are not done
 * here (docs/differences.md, "CEL rules").
 */
function formatFixedOrScientific(value: number, fmt: 'f' | 'e', precision: string | undefined): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return formatFloat(value + 0, fmt, precision === undefined ? 6 : Number(precision));
}

/**
 * The Kubernetes strings library's `format` (cel-go ext.Strings): `%s`, `%d`, `%f`/`%.Nf`, `%e`, `%b`, `%o`, `%x`,
 * `%X` and `%%`, each verb taking the next argument.
 *
 * @example
 * formatString('got %s of %d', ['a', 2n]); // 'got a of 2'
 */
function formatString(template: string, args: readonly unknown[]): string {
  let next = 0;
  const take = () => {
    if (next >= args.length) throw new CelFunctionError(`index ${next} out of range`);
    return args[next++];
  };
  return template.replace(/%(?:\.(\d+))?([sdfeboxX%])/g, (_, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const value = take();
    switch (verb) {
      case 's':
        return formatValue(value);
      case 'd':
        return formatInteger(value, 10, '%d');
      case 'b':
        return formatInteger(value, 2, '%b');
      case 'o':
        return formatInteger(value, 8, '%o');
      case 'x':
        return formatInteger(value, 16, '%x');
      case 'X':
        return formatInteger(value, 16, '%X').toUpperCase();
      default:
        return formatFixedOrScientific(Number(value), verb === 'f' ? 'f' : 'e', precision);
    }
  });
}

/**
 * A new CEL environment for x-kubernetes-validations rules (run expressions through withKubernetesFunctions first).
 * `self` has the given type (dynamic by default) and `oldSelf` is dynamically typed. Functions: CEL's standard library, and from the Kubernetes libraries: strings (`charAt`, `format`, `replace`, `split`, `join`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `trim`, `substring`), lists
 * (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`) and regex (`find`, `findAll`); regexps use Go's RE2
 * syntax.
 *
 * @example
 * const env = newCelEnvironment();
 * env.evaluate('self.matches("^[a-z]+$")', { self: 'abc', oldSelf: null }); // true
 */
export function newCelEnvironment(selfType = 'dyn'): Environment {
  const env = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true });
  registerQuantityLibrary(env);
  registerSemverLibrary(env);
  registerIpLibraries(env);
  registerUrlLibrary(env);
  registerCollectionLibraries(env);
  registerFormatLibrary(env);
  registerMacros(env);
  meterEnvironment(env);
  return env
    .registerVariable('self', selfType)
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
    .registerFunction('string.find(string): string', (s: string, pattern: string) => goRegexp(pattern).findString(s))
    .registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) =>
      goRegexp(pattern).findAllString(s, -1),
    )
    .registerFunction('string.findAll(string, int): list<string>', (s: string, pattern: string, n: bigint) =>
      goRegexp(pattern).findAllString(s, n < 0n ? -1 : Number(n)),
    )
    .registerFunction('string.matchesK8s(string): bool', (s: string, pattern: string) =>
      goRegexp(pattern).matchString(s),
    )
    .registerFunction('matchesK8s(string, string): bool', (s: string, pattern: string) =>
      goRegexp(pattern).matchString(s),
    )
    .registerFunction('string.lowerAsciiK8s(): string', (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase()))
    .registerFunction('string.upperAsciiK8s(): string', (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase()))
    .registerFunction('string.indexOfK8s(string): int', (s: string, sub: string) => stringIndexOf(s, sub, 0n))
    .registerFunction('string.indexOfK8s(string, int): int', stringIndexOf)
    .registerFunction('string.lastIndexOfK8s(string): int', (s: string, sub: string) => {
      const length = BigInt(codePoints(s).length);
      if (sub === '') return length;
      // NOTE: cel-go compares UTF-8 lengths here.
      if (utf8Length(s) < utf8Length(sub)) return -1n;
      return stringLastIndexOf(s, sub, length - 1n);
    })
    .registerFunction('string.lastIndexOfK8s(string, int): int', stringLastIndexOf)
    .registerFunction('string.substringK8s(int): string', (s: string, start: bigint) => {
      const length = BigInt(codePoints(s).length);
      if (start < 0n || start > length) throw indexOutOfRange(start);
      return substring(s, start, length);
    })
    .registerFunction('string.substringK8s(int, int): string', substring)
    .registerFunction('string.format(list<dyn>): string', formatString)
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
    .registerFunction('list.indexOfK8s(dyn): int', (list: readonly unknown[], x: unknown) => BigInt(list.indexOf(x)))
    .registerFunction('list.lastIndexOfK8s(dyn): int', (list: readonly unknown[], x: unknown) =>
      BigInt(list.lastIndexOf(x)),
    );
}

const stringLiteral = /(['"])(?:\\.|(?!\1)[^\\])*\1/g;

/** CEL functions cel-js defines with JavaScript semantics, and the names of their Kubernetes versions above. */
const kubernetesVersions = /\b(matches|lowerAscii|upperAscii|indexOf|lastIndexOf|substring)\(/g;

/** cel-js's `cel.bind`: the Kubernetes environment has no bindings extension, so it must not compile. */
const celBind = /\bcel\s*\.\s*bind\s*\(/g;

/** The cost meter's probe (see cost.ts), which rules must not call. */
const costMeterProbe = /\bcelCostMeterProbe\s*\(/g;

function renameFunctions(code: string): string {
  return code
    .replace(kubernetesVersions, (_, name: string) => `${name}K8s(`)
    .replace(celBind, 'celBindIsNotInTheKubernetesEnvironment(')
    .replace(costMeterProbe, 'celCostMeterProbeIsNotInTheKubernetesEnvironment(');
}

/**
 * The expression with the functions cel-js defines with JavaScript semantics (and cannot redefine) renamed, outside
 * string literals, to their Kubernetes versions: `matches` with Go's RE2 syntax, ASCII-only `lowerAscii` and
 * `upperAscii`, and `indexOf`, `lastIndexOf`, `substring` counting code points.
 *
 * @example
 * withKubernetesFunctions('self.matches("(?i)^a")'); // 'self.matchesK8s("(?i)^a")'
 */
export function withKubernetesFunctions(expression: string): string {
  let out = '';
  let last = 0;
  for (const literal of expression.matchAll(stringLiteral)) {
    out += renameFunctions(expression.slice(last, literal.index)) + literal[0];
    last = literal.index + literal[0].length;
  }
  return out + renameFunctions(expression.slice(last));
}
