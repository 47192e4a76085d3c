// Go's regexp package: RE2 syntax, leftmost-first semantics and linear-time matching, on re2js (a port of RE2/J, itself
// a port of Go's regexp). One implementation for every caller: ClusterClass variable `pattern`s, CEL `matches`, `find`
// and `findAll`, sprig's regex functions and Masterminds/semver's constraint parsing.
//
// NOTE: positions are UTF-16 indexes into the JavaScript string, where Go's are byte offsets; both step over a whole
// character after an empty match, so the matched substrings are the same.
import { RE2JS, RE2JSSyntaxException } from 're2js';
import { CapiError } from '#shared/errors/index.ts';
import { renameRepeatedCaptures } from '#shared/lang/go/regexp-capture-names.ts';

type Engine = ReturnType<RE2JS['re2']>;

/**
 * A pattern Go's regexp.Compile refuses, worded as Go words it: `error parsing regexp: <code>: \`<expr>\``.
 *
 * @example
 * new RegexpSyntaxError('missing closing )', '(a').message; // 'error parsing regexp: missing closing ): `(a`'
 */
export class RegexpSyntaxError extends CapiError {
  /** syntax.ErrorCode's text, e.g. `missing closing )`. */
  readonly code: string;
  /** The part of the pattern Go names. */
  readonly expr: string;

  constructor(code: string, expr: string, options?: { cause?: unknown }) {
    super(`error parsing regexp: ${code}: \`${expr}\``, { reason: 'InvalidRegexp' }, options);
    this.code = code;
    this.expr = expr;
  }
}

/** A compiled Go regular expression (regexp.Regexp). Stateless: safe to share between callers. */
export class GoRegexp {
  /** The pattern as given (regexp.Regexp.String). */
  readonly source: string;
  readonly #engine: Engine;
  readonly #names: readonly string[];

  constructor(source: string, engine: Engine, names: readonly string[]) {
    this.source = source;
    this.#engine = engine;
    this.#names = names;
  }

  /** Regexp.MatchString: whether the text contains a match. */
  matchString(s: string): boolean {
    return this.#engine.match(s) as boolean;
  }

  /** Regexp.FindString: the leftmost match, or '' if there is none. */
  findString(s: string): string {
    return this.#engine.find(s) as string;
  }

  /** Regexp.FindStringSubmatch: the leftmost match and its groups (undefined for a group that took no part). */
  findStringSubmatch(s: string): (string | undefined)[] | undefined {
    const m = this.#engine.findSubmatchIndex(s) as number[] | null;
    return m ? groupsOf(s, m) : undefined;
  }

  /** Regexp.FindAllStringSubmatchIndex: up to n matches (all if n < 0), each as [start, end] pairs per group. */
  findAllStringSubmatchIndex(s: string, n: number): number[][] {
    if (n === 0) return [];
    return (this.#engine.findAllSubmatchIndex(s, n) as number[][] | null) ?? [];
  }

  /** Regexp.FindAllString: up to n successive matches (all if n < 0); an empty match right after a match is skipped. */
  findAllString(s: string, n: number): string[] {
    return this.findAllStringSubmatchIndex(s, n).map((m) => s.slice(m[0], m[1]));
  }

  /** Regexp.FindAllStringSubmatch. */
  findAllStringSubmatch(s: string, n: number): (string | undefined)[][] {
    return this.findAllStringSubmatchIndex(s, n).map((m) => groupsOf(s, m));
  }

  /** Regexp.SubexpNames: '' for the whole match and for unnamed groups. */
  subexpNames(): readonly string[] {
    return this.#names;
  }

  /**
   * Regexp.ReplaceAllString: every match replaced by `repl` with `$1`, `${1}`, `$name` and `${name}` expanded.
   *
   * @example
   * compileRegexp('a(x*)b').replaceAllString('-ab-axxb-', '${1}W'); // '-W-xxW-'
   */
  replaceAllString(src: string, repl: string): string {
    return this.#replaceAll(src, (m) => this.#expand(repl, src, m));
  }

  /** Regexp.ReplaceAllLiteralString: every match replaced by `repl` as it is. */
  replaceAllLiteralString(src: string, repl: string): string {
    return this.#replaceAll(src, () => repl);
  }

  /**
   * Regexp.Split: the substrings between matches, at most n of them (all if n < 0; none if n == 0).
   *
   * @example
   * compileRegexp('a*').split('abaabaccadaaae', 5); // ['', 'b', 'b', 'c', 'cadaaae']
   */
  split(s: string, n: number): string[] {
    if (n === 0) return [];
    if (this.source.length > 0 && s.length === 0) return [''];
    const out: string[] = [];
    let beg = 0;
    let end = 0;
    for (const m of this.findAllStringSubmatchIndex(s, n)) {
      if (n > 0 && out.length === n - 1) break;
      end = m[0] ?? 0;
      if (m[1] !== 0) out.push(s.slice(beg, end));
      beg = m[1] ?? 0;
    }
    if (end !== s.length) out.push(s.slice(beg));
    return out;
  }

  #replaceAll(src: string, replacement: (match: readonly number[]) => string): string {
    // NOTE: Go's replaceAll skips an empty match right after a match and advances one character past an empty
    // match, which are the rules of FindAll too: so the matches to replace are FindAll's.
    let out = '';
    let lastEnd = 0;
    for (const m of this.findAllStringSubmatchIndex(src, -1)) {
      const [start = 0, end = 0] = m;
      out += src.slice(lastEnd, start) + replacement(m);
      lastEnd = end;
    }
    return out + src.slice(lastEnd);
  }

  /** Regexp.expand: `$$` is `$`; a `$` that starts no name or number is kept; unknown groups expand to ''. */
  #expand(template: string, src: string, m: readonly number[]): string {
    let out = '';
    let rest = template;
    for (let i = rest.indexOf('$'); i >= 0; i = rest.indexOf('$')) {
      out += rest.slice(0, i);
      rest = rest.slice(i + 1);
      if (rest.startsWith('$')) {
        out += '$';
        rest = rest.slice(1);
        continue;
      }
      const ref = /^(?:\{([\p{L}\p{Nd}_]+)\}|([\p{L}\p{Nd}_]+))/u.exec(rest);
      const name = ref?.[1] ?? ref?.[2];
      if (!ref || name === undefined) {
        out += '$';
        continue;
      }
      rest = rest.slice(ref[0].length);
      out += this.#group(name, src, m);
    }
    return out + rest;
  }

  #group(name: string, src: string, m: readonly number[]): string {
    // NOTE: a number is at most 9 digits without a leading zero; anything else is looked up as a name, first use first.
    const num = /^(?:0|[1-9][0-9]{0,8})$/.test(name) ? Number(name) : -1;
    const indexes = num >= 0 ? [num] : this.#names.flatMap((n, i) => (n === name ? [i] : []));
    for (const i of indexes) {
      const start = m[2 * i];
      const end = m[2 * i + 1];
      if (start !== undefined && end !== undefined && start >= 0) return src.slice(start, end);
    }
    return '';
  }
}

function groupsOf(s: string, m: readonly number[]): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  for (let i = 0; i + 1 < m.length; i += 2) {
    const start = m[i] ?? -1;
    out.push(start < 0 ? undefined : s.slice(start, m[i + 1]));
  }
  return out;
}

const wholePatternErrors = new Set(['expression too large', 'expression nests too deeply']);

function syntaxError(err: unknown, pattern: string, compiled: string): RegexpSyntaxError {
  if (!(err instanceof RE2JSSyntaxException))
    return new RegexpSyntaxError('regexp/syntax: internal error', pattern, { cause: err });
  // NOTE: Go names the whole pattern for "expression too large" and "expression nests too deeply"; re2js names none.
  const fragment = wholePatternErrors.has(err.error) ? compiled : (err.input ?? '');
  const at = compiled === pattern ? -1 : compiled.indexOf(fragment);
  const expr = at < 0 ? fragment : pattern.slice(at, at + fragment.length);
  return new RegexpSyntaxError(err.error, compiled === pattern ? fragment : expr, { cause: err });
}

function compileUncached(pattern: string): GoRegexp {
  try {
    const engine = RE2JS.compile(pattern).re2();
    return new GoRegexp(pattern, engine, namesOf(engine, new Map()));
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException) || err.error !== 'duplicate capture group name')
      throw syntaxError(err, pattern, pattern);
  }
  const renamed = renameRepeatedCaptures(pattern);
  try {
    const engine = RE2JS.compile(renamed.pattern).re2();
    return new GoRegexp(pattern, engine, namesOf(engine, renamed.originalNames));
  } catch (err) {
    throw syntaxError(err, pattern, renamed.pattern);
  }
}

function namesOf(engine: Engine, originalNames: ReadonlyMap<string, string>): string[] {
  const names = Array.from({ length: (engine.numberOfCapturingGroups() as number) + 1 }, () => '');
  for (const [name, index] of Object.entries(engine.namedGroups)) names[index] = originalNames.get(name) ?? name;
  return names;
}

const cache = new Map<string, GoRegexp | RegexpSyntaxError>();
const cacheLimit = 1000;

/**
 * regexp.Compile: the pattern compiled, or a RegexpSyntaxError with Go's message. Results are memoised (patterns
 * repeat across variables, rules and passes).
 *
 * @example
 * compileRegexp('^(?P<major>\\d+)\\.\\d+$').matchString('1.29'); // true
 * compileRegexp('(a'); // throws RegexpSyntaxError: error parsing regexp: missing closing ): `(a`
 */
export function compileRegexp(pattern: string): GoRegexp {
  let result = cache.get(pattern);
  if (result === undefined) {
    try {
      result = compileUncached(pattern);
    } catch (err) {
      result = err instanceof RegexpSyntaxError ? err : new RegexpSyntaxError('regexp/syntax: internal error', pattern);
    }
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(pattern, result);
  }
  if (result instanceof RegexpSyntaxError)
    throw new RegexpSyntaxError(result.code, result.expr, { cause: result.cause });
  return result;
}

/**
 * The error Go's regexp.Compile returns for the pattern, or undefined if it compiles.
 *
 * @example
 * regexpSyntaxError('a{1001}')?.message; // 'error parsing regexp: invalid repeat count: `{1001}`'
 */
export function regexpSyntaxError(pattern: string): RegexpSyntaxError | undefined {
  try {
    compileRegexp(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof RegexpSyntaxError) return err;
    throw err;
  }
}

/**
 * regexp.QuoteMeta: the text with every regexp metacharacter escaped.
 *
 * @example
 * quoteMeta('1.5-2.0?'); // '1\\.5-2\\.0\\?'
 */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, (c) => `\\${c}`);
}
