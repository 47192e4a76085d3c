// Go's regexp (RE2 syntax, leftmost-first matching) on top of JavaScript RegExp.
// NOTE: the pattern is translated rather than interpreted. Differences that remain: `(?flags)` other than at the
// very start is only supported for `i` on literal letters; `\pX` script names map to `\p{Script=X}`; positions are
// UTF-16 rather than UTF-8 (this only matters for how far an empty match advances over astral characters).
import { translateGoRegexp } from '#shared/topology/variables/go-regexp.ts';
import { FuncError } from './go-func.ts';

export type GoRegexp = { readonly re: RegExp; readonly source: string };

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const syntaxChars = '^$\\.*+?()[]{}|/';

function literal(ch: string, fold: boolean): string {
  if (fold && /^[a-zA-Z]$/.test(ch)) return `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
  if (syntaxChars.includes(ch)) return `\\${ch}`;
  return ch;
}

const bad = (why: string, pattern: string): never => {
  throw new FuncError(`error parsing regexp: ${why}: \`${pattern}\``);
};

/** Compiles a Go regular expression; throws FuncError like regexp.Compile's error. */
export function compileGo(pattern: string): GoRegexp {
  // NOTE: the variables translator is the one checked against Go's regexp by the oracle property test; this file's
  // own translation only remains for what that one does not do (flags in the middle of a pattern).
  const shared = translateGoRegexp(pattern);
  if (typeof shared !== 'string') {
    try {
      return { re: new RegExp(shared.source, `g${shared.flags}u`), source: pattern };
    } catch (err) {
      throw new FuncError(`error parsing regexp: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!/^invalid or unsupported Perl syntax: `\(\?/.test(shared))
    throw new FuncError(`error parsing regexp: ${shared}`);
  return compileGoFlagged(pattern);
}

function compileGoFlagged(pattern: string): GoRegexp {
  let p = 0;
  let flags = 'gu';
  const lead = /^\(\?([imsU]+)\)/.exec(pattern);
  if (lead) {
    const f = lead[1] ?? '';
    if (f.includes('U')) bad('ungreedy flag is not supported', pattern);
    if (f.includes('i')) flags += 'i';
    if (f.includes('m')) flags += 'm';
    if (f.includes('s')) flags += 's';
    p = lead[0].length;
  }
  const dotAll = flags.includes('s');
  let out = '';
  let depth = 0;
  const foldStack: boolean[] = [];
  let fold = false;
  let lastWasAtom = false;
  while (p < pattern.length) {
    const c = pattern[p]!;
    if (c === '\\') {
      const [js, len] = translateEscape(pattern, p, false, fold);
      out += js;
      p += len;
      lastWasAtom = true;
      continue;
    }
    if (c === '[') {
      const [js, len] = translateClass(pattern, p);
      out += js;
      p += len;
      lastWasAtom = true;
      continue;
    }
    if (c === '(') {
      foldStack.push(fold);
      depth++;
      if (pattern.startsWith('(?P<', p) || pattern.startsWith('(?<', p)) {
        const start = pattern.indexOf('<', p) + 1;
        const close = pattern.indexOf('>', start);
        const name = pattern.slice(start, close);
        if (close < 0 || !/^[A-Za-z0-9_]+$/.test(name)) bad('invalid named capture', pattern);
        if (pattern.startsWith('(?<=', p) || pattern.startsWith('(?<!', p))
          bad('invalid or unsupported Perl syntax', pattern);
        out += `(?<${name}>`;
        p = close + 1;
      } else if (pattern.startsWith('(?', p)) {
        const m = /^\(\?([imsU-]*)(:|\))/.exec(pattern.slice(p));
        if (!m) return bad('invalid or unsupported Perl syntax', pattern);
        const f = m[1] ?? '';
        if (/[msU]/.test(f)) bad('flags other than i inside the pattern are not supported', pattern);
        const on = f.includes('i') && !f.startsWith('-');
        if (m[2] === ')') {
          // `(?i)` in the middle: applies to the rest of the enclosing group.
          foldStack.pop();
          depth--;
          fold = on || (fold && !f.includes('-'));
          p += m[0].length;
          continue;
        }
        fold = on || fold;
        out += '(?:';
        p += m[0].length;
      } else {
        out += '(';
        p++;
      }
      lastWasAtom = false;
      continue;
    }
    if (c === ')') {
      if (depth === 0) bad('unexpected )', pattern);
      depth--;
      fold = foldStack.pop() ?? false;
      out += ')';
      p++;
      lastWasAtom = true;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(p));
      if (m && lastWasAtom) {
        if (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== '' && Number(m[3]) > 1000))
          bad('invalid repeat count', pattern);
        if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) bad('invalid repeat count', pattern);
        out += m[0];
        p += m[0].length;
        if (pattern[p] === '?') {
          out += '?';
          p++;
        }
        lastWasAtom = false;
        continue;
      }
      out += '\\{';
      p++;
      lastWasAtom = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      if (!lastWasAtom) bad(`missing argument to repetition operator: \`${c}\``, pattern);
      out += c;
      p++;
      if (pattern[p] === '?') {
        out += '?';
        p++;
      }
      if (pattern[p] === '*' || pattern[p] === '+' || pattern[p] === '?')
        bad('invalid nested repetition operator', pattern);
      lastWasAtom = false;
      continue;
    }
    if (c === '.') out += dotAll ? '[\\s\\S]' : '[^\\n]';
    else if (c === '^' || c === '$' || c === '|') out += c;
    else if (c === '}' || c === ']' || c === '/') out += `\\${c}`;
    else out += literal(String.fromCodePoint(pattern.codePointAt(p) ?? 0), fold);
    lastWasAtom = c !== '^' && c !== '$' && c !== '|';
    p += String.fromCodePoint(pattern.codePointAt(p) ?? 0).length;
  }
  if (depth !== 0) bad('missing closing )', pattern);
  try {
    return { re: new RegExp(out, flags), source: pattern };
  } catch (err) {
    return bad(err instanceof Error ? err.message : String(err), pattern);
  }
}

function translateEscape(pattern: string, p: number, inClass: boolean, fold: boolean): [string, number] {
  const e = pattern[p + 1];
  if (e === undefined) return bad('trailing backslash at end of expression', pattern);
  const simple: Record<string, string> = {
    a: '\\x07',
    f: '\\f',
    t: '\\t',
    n: '\\n',
    r: '\\r',
    v: '\\v',
    d: '\\d',
    D: '\\D',
    w: '\\w',
    W: '\\W',
  };
  if (simple[e] !== undefined) return [simple[e], 2];
  if (e === 's') return [inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]', 2];
  if (e === 'S') return [inClass ? '\\S' : '[^\\t\\n\\f\\r ]', 2];
  if (!inClass) {
    if (e === 'b' || e === 'B') return [`\\${e}`, 2];
    if (e === 'A') return ['(?<![\\s\\S])', 2];
    if (e === 'z') return ['(?![\\s\\S])', 2];
    if (e === 'Q') {
      const end = pattern.indexOf('\\E', p + 2);
      const lit = end < 0 ? pattern.slice(p + 2) : pattern.slice(p + 2, end);
      return [[...lit].map((ch) => literal(ch, fold)).join(''), end < 0 ? pattern.length - p : end + 2 - p];
    }
  }
  if (e === 'p' || e === 'P') {
    let name: string;
    let len: number;
    if (pattern[p + 2] === '{') {
      const close = pattern.indexOf('}', p + 3);
      if (close < 0) bad('invalid character class range', pattern);
      name = pattern.slice(p + 3, close);
      len = close + 1 - p;
    } else {
      name = pattern[p + 2] ?? '';
      len = 3;
    }
    const negated = name.startsWith('^') ? !(e === 'P') : e === 'P';
    name = name.replace(/^\^/, '');
    const prop = /^[A-Z][a-z]?$/.test(name) ? name : name === 'Any' ? 'Any' : `Script=${name}`;
    const body = prop === 'Any' ? (negated ? '[^\\s\\S]' : '[\\s\\S]') : `\\${negated ? 'P' : 'p'}{${prop}}`;
    return [body, len];
  }
  if (e === 'x') {
    if (pattern[p + 2] === '{') {
      const close = pattern.indexOf('}', p + 3);
      const hex = pattern.slice(p + 3, close);
      if (close < 0 || !/^[0-9a-fA-F]+$/.test(hex)) bad('invalid escape sequence', pattern);
      return [`\\u{${hex}}`, close + 1 - p];
    }
    const hex = pattern.slice(p + 2, p + 4);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) bad('invalid escape sequence', pattern);
    return [`\\x${hex}`, 4];
  }
  if (/[0-7]/.test(e)) {
    const m = /^[0-7]{1,3}/.exec(pattern.slice(p + 1));
    if (e === '0' || (m && m[0].length > 1)) {
      const oct = m?.[0] ?? '0';
      return [`\\u{${parseInt(oct, 8).toString(16)}}`, 1 + oct.length];
    }
    return bad('invalid escape sequence', pattern);
  }
  if (/[!-/:-@[-`{-~]/.test(e))
    return [inClass ? (syntaxChars.includes(e) || e === '-' ? `\\${e}` : e) : literal(e, false), 2];
  return bad(`invalid escape sequence: \`\\${e}\``, pattern);
}

function translateClass(pattern: string, start: number): [string, number] {
  let p = start + 1;
  let out = '[';
  if (pattern[p] === '^') {
    out += '^';
    p++;
  }
  let first = true;
  while (p < pattern.length) {
    const c = pattern[p]!;
    if (c === ']' && !first) return [out + ']', p + 1 - start];
    first = false;
    if (c === '[' && pattern[p + 1] === ':') {
      const close = pattern.indexOf(':]', p + 2);
      if (close >= 0) {
        let name = pattern.slice(p + 2, close);
        const neg = name.startsWith('^');
        name = name.replace(/^\^/, '');
        const cls = posixClasses[name];
        if (cls === undefined) bad('invalid character class range', pattern);
        if (neg) bad('negated POSIX classes are not supported', pattern);
        out += cls;
        p = close + 2;
        continue;
      }
    }
    if (c === '\\') {
      const [js, len] = translateEscape(pattern, p, true, false);
      out += js;
      p += len;
      continue;
    }
    if (c === '[' || c === ']' || c === '/') out += `\\${c}`;
    else out += c;
    p++;
  }
  return bad('missing closing ]', pattern);
}

/** The match arrays of every match, with Go's rule that an empty match right after a match is skipped. */
export function findAll(r: GoRegexp, s: string, n: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && pos <= s.length) {
    r.re.lastIndex = pos;
    const m = r.re.exec(s);
    if (m === null) break;
    const end = m.index + m[0].length;
    let accept = true;
    if (end === m.index) {
      if (m.index === prevEnd) accept = false;
      const cp = s.codePointAt(end);
      pos = end + (cp === undefined ? 1 : cp > 0xffff ? 2 : 1);
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(m);
  }
  return out;
}

export function matchString(r: GoRegexp, s: string): boolean {
  r.re.lastIndex = 0;
  return r.re.test(s);
}

export function findString(r: GoRegexp, s: string): string {
  r.re.lastIndex = 0;
  return r.re.exec(s)?.[0] ?? '';
}

/** Regexp.ReplaceAllString (with $1/${name} expansion) or ReplaceAllLiteralString. */
export function replaceAll(r: GoRegexp, src: string, repl: string, isLiteral: boolean): string {
  let out = '';
  let lastEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length) {
    r.re.lastIndex = searchPos;
    const m = r.re.exec(src);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    out += src.slice(lastEnd, start);
    if (end > lastEnd || start === 0) out += isLiteral ? repl : expand(repl, m);
    lastEnd = end;
    const cp = src.codePointAt(searchPos);
    const width = cp === undefined ? 0 : cp > 0xffff ? 2 : 1;
    if (searchPos + width > end) searchPos += width;
    else if (searchPos + 1 > end) searchPos++;
    else searchPos = end;
  }
  return out + src.slice(lastEnd);
}

function expand(template: string, m: RegExpExecArray): string {
  let out = '';
  let t = template;
  for (;;) {
    const i = t.indexOf('$');
    if (i < 0) break;
    out += t.slice(0, i);
    t = t.slice(i + 1);
    if (t.startsWith('$')) {
      out += '$';
      t = t.slice(1);
      continue;
    }
    const ext = /^(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/.exec(t);
    if (!ext) {
      out += '$';
      continue;
    }
    const name = ext[1] ?? ext[2] ?? '';
    t = t.slice(ext[0].length);
    if (/^\d+$/.test(name)) {
      const num = Number(name);
      out += m[num] ?? '';
    } else {
      out += m.groups?.[name] ?? '';
    }
  }
  return out + t;
}

/** Regexp.Split. */
export function split(r: GoRegexp, s: string, n: number): string[] {
  if (n === 0) return [];
  if (r.source.length > 0 && s.length === 0) return [''];
  const matches = findAll(r, s, n);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    if (n > 0 && out.length === n - 1) break;
    end = m.index;
    if (m.index + m[0].length !== 0) out.push(s.slice(beg, end));
    beg = m.index + m[0].length;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, (c) => `\\${c}`);
}
