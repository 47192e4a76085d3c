// sprig's string functions (strings.go, regex.go and the string entries of functions.go).
import { sprint } from './go-fmt.ts';
import { checkListLength, checkStringLength, TEMPLATE_LIMITS } from './limits.ts';
import { quote as strconvQuote } from '#shared/lang/go/strconv.ts';
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { compileRegexp, quoteMeta } from '#shared/lang/go/regexp.ts';
import type { GoRegexp } from '#shared/lang/go/regexp.ts';
import { strslice, strval } from './sprig-convert.ts';
import { GoMap, GoSlice, goInt, goInt64, stringSlice } from './values.ts';
import type { GoInt } from './values.ts';
import type { GoValue } from './values.ts';

const S = (v: GoValue): string => v as string;
const N = (v: GoValue): number => Number((v as GoInt).value);

const goSpace = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const isSpace = (ch: string): boolean => goSpace.test(ch);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytesOf = (s: string): Uint8Array => encoder.encode(s);
const byteLen = (s: string): number => bytesOf(s).length;
/** s[a:b] on the UTF-8 bytes, as Go slices strings. */
const byteSlice = (s: string, a: number, b?: number): string => decoder.decode(bytesOf(s).slice(a, b));

/** strings.TrimSpace. */
export function trimSpace(s: string): string {
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && isSpace(chars[a]!)) a++;
  while (b > a && isSpace(chars[b - 1]!)) b--;
  return chars.slice(a, b).join('');
}

/** unicode.ToUpper/ToLower applied rune by rune (no multi-rune expansions such as ß → SS). */
function mapCase(s: string, upper: boolean): string {
  let out = '';
  for (const ch of s) {
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    out += [...m].length === 1 ? m : ch;
  }
  return out;
}

/** strings.Title: upper-case the first letter of each word. */
function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    const sep = /^[A-Za-z0-9_]$/.test(prev)
      ? false
      : prev.charCodeAt(0) < 0x80
        ? true
        : /^[\p{L}\p{Nd}]$/u.test(prev)
          ? false
          : isSpace(prev);
    out += sep ? mapCase(ch, true) : ch;
    prev = ch;
  }
  return out;
}

/** strings.Trim with a cutset. */
function trimCutset(s: string, cutset: string): string {
  const cut = new Set([...cutset]);
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && cut.has(chars[a]!)) a++;
  while (b > a && cut.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join('');
}

/** strings.Split (an empty separator splits into UTF-8 sequences). */
function goSplit(s: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = [...s];
    if (n > 0 && chars.length > n) return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
    return chars;
  }
  const parts = s.split(sep);
  if (n > 0 && parts.length > n) return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
  return parts;
}

function abbreviateFull(str: string, offsetIn: number, maxWidth: number): string {
  if (str === '') return '';
  const len = byteLen(str);
  if (len <= maxWidth) return str;
  let offset = Math.min(offsetIn, len);
  if (len - offset < maxWidth - 3) offset = len - (maxWidth - 3);
  if (offset <= 4) return `${byteSlice(str, 0, maxWidth - 3)}...`;
  if (offset + maxWidth - 3 < len) return `...${abbreviateFull(byteSlice(str, offset), 0, maxWidth - 3)}`;
  return `...${byteSlice(str, len - (maxWidth - 3))}`;
}

/** Regexp.Split returns a nil slice for n == 0 (toJson prints `null`). */
function splitResult(parts: string[], n: number): GoSlice {
  return n === 0 ? new GoSlice('string', [], true) : stringSlice(parts);
}

/**
 * goutils.Initials: NOTE it walks bytes, not runes, so the first byte of a multibyte character comes out as the
 * Latin-1 character of that byte (`initials "é"` is `Ã`), and bytes 0x85 and 0xA0 count as spaces.
 */
function initials(s: string): string {
  let out = '';
  let lastWasGap = true;
  for (const byte of new TextEncoder().encode(s)) {
    const ch = String.fromCharCode(byte);
    if (isSpace(ch)) lastWasGap = true;
    else if (lastWasGap) {
      out += ch;
      lastWasGap = false;
    }
  }
  return out;
}

/** goutils.Uncapitalize: the first character of every space-separated word in lower case. */
function uncapitalize(s: string): string {
  let out = '';
  let next = true;
  for (const ch of s) {
    if (isSpace(ch)) {
      next = true;
      out += ch;
    } else if (next) {
      out += mapCase(ch, false);
      next = false;
    } else out += ch;
  }
  return out;
}

function swapCase(s: string): string {
  let out = '';
  for (const ch of s) {
    const up = mapCase(ch, true);
    const low = mapCase(ch, false);
    out += ch === up && ch !== low ? low : ch === low && ch !== up ? up : ch;
  }
  return out;
}

function substring(start: number, end: number, s: string): string {
  const len = byteLen(s);
  const check = (a: number, b: number): void => {
    if (a < 0 || b > len || a > b)
      throw new FuncError(`runtime error: slice bounds out of range [${a}:${b}] with length ${len}`);
  };
  if (start < 0) {
    check(0, end);
    return byteSlice(s, 0, end);
  }
  if (end < 0 || end > len) {
    check(start, len);
    return byteSlice(s, start);
  }
  check(start, end);
  return byteSlice(s, start, end);
}

function trunc(c: number, s: string): string {
  const len = byteLen(s);
  if (c < 0 && len + c > 0) return byteSlice(s, len + c);
  if (c >= 0 && len > c) return byteSlice(s, 0, c);
  return s;
}

function indent(spaces: number, v: string): string {
  if (spaces < 0) throw new FuncError('strings: negative Repeat count');
  const lines = v.split('\n');
  checkStringLength(v.length + spaces * lines.length);
  const pad = ' '.repeat(spaces);
  return pad + lines.join(`\n${pad}`);
}

function quote(args: GoValue[]): string {
  return args
    .filter((a) => a !== null && a !== undefined)
    .map((a) => strconvQuote(strval(a)))
    .join(' ');
}

function squote(args: GoValue[]): string {
  return args
    .filter((a) => a !== null && a !== undefined)
    .map((a) => `'${sprint([a])}'`)
    .join(' ');
}

function cat(args: GoValue[]): string {
  return args
    .filter((a) => a !== null && a !== undefined)
    .map((a) => sprint([a]))
    .join(' ');
}

function splitMap(parts: string[]): GoMap {
  return new GoMap('string', new Map(parts.map((p, i) => [`_${i}`, p])));
}

function untilStep(start: number, stop: number, step: number): GoSlice {
  const v: GoValue[] = [];
  if ((stop < start && step < 0) || (stop > start && step > 0)) checkListLength(Math.ceil((stop - start) / step));
  if (stop < start) {
    if (step >= 0) return new GoSlice('int', v);
    for (let i = start; i > stop; i += step) v.push(goInt(i));
    return new GoSlice('int', v);
  }
  if (step <= 0) return new GoSlice('int', v);
  for (let i = start; i < stop; i += step) v.push(goInt(i));
  return new GoSlice('int', v);
}

function seq(params: number[]): string {
  const join = (s: GoSlice): string => s.items.map((i) => String((i as GoInt).value)).join(' ');
  switch (params.length) {
    case 0:
      return '';
    case 1: {
      const end = params[0]!;
      const inc = end < 1 ? -1 : 1;
      return join(untilStep(1, end + inc, inc));
    }
    case 2: {
      const [start = 0, end = 0] = params;
      const step = end < start ? -1 : 1;
      return join(untilStep(start, end + step, step));
    }
    case 3: {
      const [start = 0, step = 0, end = 0] = params;
      let inc = 1;
      if (end < start) {
        inc = -1;
        if (step > 0) return '';
      }
      return join(untilStep(start, end + inc, step));
    }
    default:
      return '';
  }
}

/**
 * Refuses, before it is built, a regexp replacement whose result would exceed the template limit: each match becomes
 * the replacement, where a `$` reference expands to at most the longest match.
 */
function checkReplacement(re: GoRegexp, s: string, replacement: string, literal: boolean): GoRegexp {
  if (s.length + (s.length + 1) * replacement.length <= TEMPLATE_LIMITS.maxLength) return re;
  const matches = re.findAllString(s, -1);
  const refs = literal ? 0 : replacement.split('$').length - 1;
  const longest = matches.reduce((n, m) => Math.max(n, m.length), 0);
  checkStringLength(s.length + matches.length * (replacement.length + refs * longest));
  return re;
}

/** regexp.Compile inside a `must*` function: a bad pattern is the function's error. */
function regex(pattern: string): GoRegexp {
  try {
    return compileRegexp(pattern);
  } catch (err) {
    throw new FuncError(err instanceof Error ? err.message : String(err));
  }
}

/** Like Go's regexp.MustCompile inside a sprig function: a bad pattern panics, which the template reports. */
function mustCompile(pattern: string): GoRegexp {
  try {
    return compileRegexp(pattern);
  } catch (err) {
    throw new FuncError(
      `regexp: Compile(${strconvQuote(pattern)}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export const stringFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['hello', fn([], () => 'Hello!')],
  ['abbrev', fn(['int', 'string'], ([w, s]) => (N(w) < 4 ? S(s) : abbreviateFull(S(s), 0, N(w))))],
  [
    'abbrevboth',
    fn(['int', 'int', 'string'], ([l, r, s]) => {
      const [left, right] = [N(l), N(r)];
      if (right < 4 || (left > 0 && right < 7)) return S(s);
      return abbreviateFull(S(s), left, right);
    }),
  ],
  ['trunc', fn(['int', 'string'], ([c, s]) => trunc(N(c), S(s)))],
  ['trim', fn(['string'], ([s]) => trimSpace(S(s)))],
  ['upper', fn(['string'], ([s]) => mapCase(S(s), true))],
  ['lower', fn(['string'], ([s]) => mapCase(S(s), false))],
  ['title', fn(['string'], ([s]) => title(S(s)))],
  ['untitle', fn(['string'], ([s]) => uncapitalize(S(s)))],
  ['substr', fn(['int', 'int', 'string'], ([a, b, s]) => substring(N(a), N(b), S(s)))],
  [
    'repeat',
    fn(['int', 'string'], ([c, s]) => {
      if (N(c) < 0) throw new FuncError('strings: negative Repeat count');
      checkStringLength(N(c) * S(s).length);
      return S(s).repeat(N(c));
    }),
  ],
  ['trimall', fn(['string', 'string'], ([a, b]) => trimCutset(S(b), S(a)))],
  ['trimAll', fn(['string', 'string'], ([a, b]) => trimCutset(S(b), S(a)))],
  [
    'trimSuffix',
    fn(['string', 'string'], ([a, b]) =>
      S(a) !== '' && S(b).endsWith(S(a)) ? S(b).slice(0, S(b).length - S(a).length) : S(b),
    ),
  ],
  ['trimPrefix', fn(['string', 'string'], ([a, b]) => (S(b).startsWith(S(a)) ? S(b).slice(S(a).length) : S(b)))],
  ['nospace', fn(['string'], ([s]) => [...S(s)].filter((c) => !isSpace(c)).join(''))],
  ['initials', fn(['string'], ([s]) => initials(S(s)))],
  ['swapcase', fn(['string'], ([s]) => swapCase(S(s)))],
  ['contains', fn(['string', 'string'], ([a, b]) => S(b).includes(S(a)))],
  ['hasPrefix', fn(['string', 'string'], ([a, b]) => S(b).startsWith(S(a)))],
  ['hasSuffix', fn(['string', 'string'], ([a, b]) => S(b).endsWith(S(a)))],
  ['quote', fn([], quote, 'any')],
  ['squote', fn([], squote, 'any')],
  ['cat', fn([], cat, 'any')],
  ['indent', fn(['int', 'string'], ([n, s]) => indent(N(n), S(s)))],
  ['nindent', fn(['int', 'string'], ([n, s]) => `\n${indent(N(n), S(s))}`)],
  [
    'replace',
    fn(['string', 'string', 'string'], ([o, n, s]) => {
      const parts = S(o) === '' ? ['', ...S(s), ''] : S(s).split(S(o));
      checkStringLength(S(s).length + (parts.length - 1) * (S(n).length - S(o).length));
      return S(o) === '' ? S(n) + [...S(s)].map((c) => c + S(n)).join('') : parts.join(S(n));
    }),
  ],
  ['plural', fn(['string', 'string', 'int'], ([one, many, c]) => (N(c) === 1 ? S(one) : S(many)))],
  ['toString', fn(['any'], ([v]) => strval(v))],
  [
    'atoi',
    fn(['string'], ([a]) => {
      const m = /^[+-]?\d+$/.test(S(a)) ? BigInt(S(a)) : 0n;
      return goInt(m < -(2n ** 63n) || m > 2n ** 63n - 1n ? 0n : m);
    }),
  ],
  ['seq', fn([], (params) => seq(params.map(N)), 'int')],
  [
    'toDecimal',
    fn(['any'], ([v]) => {
      const s = sprint([v ?? null]);
      // strconv.ParseInt(s, 8, 64); sprig gives 0 for anything it rejects, out-of-range values included.
      const m = /^([+-]?)([0-7]+)$/.exec(s);
      const n = m ? (m[1] === '-' ? -1n : 1n) * BigInt(`0o${m[2] ?? '0'}`) : 0n;
      return goInt64(n < -(2n ** 63n) || n >= 2n ** 63n ? 0n : n);
    }),
  ],
  ['split', fn(['string', 'string'], ([sep, s]) => splitMap(goSplit(S(s), S(sep))))],
  ['splitList', fn(['string', 'string'], ([sep, s]) => stringSlice(goSplit(S(s), S(sep))))],
  ['splitn', fn(['string', 'int', 'string'], ([sep, n, s]) => splitMap(goSplit(S(s), S(sep), N(n))))],
  ['toStrings', fn(['any'], ([v]) => strslice(v))],
  ['until', fn(['int'], ([c]) => untilStep(0, N(c), N(c) < 0 ? -1 : 1))],
  ['untilStep', fn(['int', 'int', 'int'], ([a, b, c]) => untilStep(N(a), N(b), N(c)))],
  [
    'join',
    fn(['string', 'any'], ([sep, v]) => {
      const items = strslice(v).items as string[];
      checkStringLength(items.reduce((n, item) => n + item.length, 0) + Math.max(0, items.length - 1) * S(sep).length);
      return items.join(S(sep));
    }),
  ],
  // Regular expressions.
  [
    'regexMatch',
    fn(['string', 'string'], ([r, s]) =>
      (() => {
        try {
          return regex(S(r)).matchString(S(s));
        } catch {
          return false;
        }
      })(),
    ),
  ],
  ['mustRegexMatch', fn(['string', 'string'], ([r, s]) => regex(S(r)).matchString(S(s)))],
  [
    'regexFindAll',
    fn(['string', 'string', 'int'], ([r, s, n]) => stringSlice(mustCompile(S(r)).findAllString(S(s), N(n)))),
  ],
  [
    'mustRegexFindAll',
    fn(['string', 'string', 'int'], ([r, s, n]) => stringSlice(regex(S(r)).findAllString(S(s), N(n)))),
  ],
  ['regexFind', fn(['string', 'string'], ([r, s]) => mustCompile(S(r)).findString(S(s)))],
  ['mustRegexFind', fn(['string', 'string'], ([r, s]) => regex(S(r)).findString(S(s)))],
  [
    'regexReplaceAll',
    fn(['string', 'string', 'string'], ([r, s, p]) =>
      checkReplacement(mustCompile(S(r)), S(s), S(p), false).replaceAllString(S(s), S(p)),
    ),
  ],
  [
    'mustRegexReplaceAll',
    fn(['string', 'string', 'string'], ([r, s, p]) =>
      checkReplacement(regex(S(r)), S(s), S(p), false).replaceAllString(S(s), S(p)),
    ),
  ],
  [
    'regexReplaceAllLiteral',
    fn(['string', 'string', 'string'], ([r, s, p]) =>
      checkReplacement(mustCompile(S(r)), S(s), S(p), true).replaceAllLiteralString(S(s), S(p)),
    ),
  ],
  [
    'mustRegexReplaceAllLiteral',
    fn(['string', 'string', 'string'], ([r, s, p]) =>
      checkReplacement(regex(S(r)), S(s), S(p), true).replaceAllLiteralString(S(s), S(p)),
    ),
  ],
  [
    'regexSplit',
    fn(['string', 'string', 'int'], ([r, s, n]) => splitResult(mustCompile(S(r)).split(S(s), N(n)), N(n))),
  ],
  ['mustRegexSplit', fn(['string', 'string', 'int'], ([r, s, n]) => splitResult(regex(S(r)).split(S(s), N(n)), N(n)))],
  ['regexQuoteMeta', fn(['string'], ([s]) => quoteMeta(S(s)))],
]);
