// Go (RE2) regular expressions evaluated with JavaScript's engine, as upstream evaluates `pattern` with Go's regexp.
//
// NOTE: RE2 and ECMAScript differ. This translation makes RE2 syntax that JS lacks work (leading `(?i)`/`(?s)`/`(?m)`
// flags, `(?P<name>…)`, `\A`, `\z`, `\Q…\E`, POSIX classes such as `[[:alpha:]]`, `\pL`, `\p{Greek}`, escaped ASCII
// punctuation) and rejects what RE2 rejects but JS accepts (look-around, back-references, repeat counts over 1000).
// Matching runs with the `u` flag so `.` and classes work on code points, as Go works on runes. Remaining gaps:
// flag groups in the middle of a pattern (`a(?i)b`, `(?i:…)`) and `\C` are reported as unsupported.

/** The result of compiling a Go pattern. */
export type GoRegexpResult =
  { readonly ok: true; readonly regexp: RegExp } | { readonly ok: false; readonly error: string };

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

const generalCategories = new Set([
  'L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'M', 'Mn', 'Mc', 'Me', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi',
  'Pf', 'Po', 'S', 'Sm', 'Sc', 'Sk', 'So', 'Z', 'Zs', 'Zl', 'Zp', 'C', 'Cc', 'Cf', 'Cs', 'Co', 'Cn',
]); // prettier-ignore

const jsSyntaxChars = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const perlClassEscapes = new Set(['d', 'D', 's', 'S', 'w', 'W', 'b', 'B']);
const plainEscapes: Record<string, string> = { a: '\\x07', f: '\\f', t: '\\t', n: '\\n', r: '\\r', v: '\\v' };

function escapeLiteral(ch: string): string {
  return jsSyntaxChars.has(ch) || ch === '-' ? `\\${ch}` : ch;
}

function unicodeProperty(name: string, negated: boolean): string {
  const flip = name.startsWith('^');
  const inner = flip ? name.slice(1) : name;
  const prop = generalCategories.has(inner) || inner === 'Any' ? inner : `Script=${inner}`;
  return `\\${negated !== flip ? 'P' : 'p'}{${prop}}`;
}

const goSpace = '\\t\\n\\f\\r ';

/**
 * `^` and `$`. NOTE: JS never gets the m flag (see compileGoRegexp); under Go's (?m) they also hold at line breaks.
 */
function lineAnchor(ch: '^' | '$', multiline: boolean): string {
  if (!multiline) return `(?:${ch})`;
  return ch === '^' ? '(?:^|(?<=\\n))' : '(?:$|(?=\\n))';
}

/** A negated POSIX class (`[:^space:]`) as explicit ranges: everything but the given ASCII ranges. */
function complementOfAscii(cls: string): string {
  const points = new Set<number>();
  const unescaped = cls.replace(/\\x([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  const named: Record<string, string> = { t: '\t', n: '\n', v: '\v', f: '\f', r: '\r' };
  const chars = [...unescaped.replace(/\\(.)/g, (_m, c: string) => named[c] ?? c)];
  for (let k = 0; k < chars.length; k++) {
    const lo = chars[k]!.charCodeAt(0);
    if (chars[k + 1] === '-' && chars[k + 2] !== undefined) {
      for (let c = lo; c <= chars[k + 2]!.charCodeAt(0); c++) points.add(c);
      k += 2;
    } else points.add(lo);
  }
  const hex = (n: number) => `\\u{${n.toString(16)}}`;
  let out = '';
  let start = 0;
  for (let c = 0; c <= 0x80; c++) {
    if (c === 0x80 || points.has(c)) {
      if (start < c) out += start === c - 1 ? hex(start) : `${hex(start)}-${hex(c - 1)}`;
      start = c + 1;
    }
  }
  return `${out}\\u{80}-\\u{10ffff}`;
}

/** Translates one escape sequence starting at `pattern[i] === '\\'`; returns the JS text and the next index. */
function translateEscape(pattern: string, i: number, inClass: boolean): { out: string; next: number } | string {
  const ch = pattern[i + 1];
  if (ch === undefined) return 'trailing backslash at end of expression';
  // NOTE: `\1` alone would be a back-reference (unsupported), but `\12` is an octal escape, as in Go.
  if (/[1-7]/.test(ch) && /[0-7]/.test(pattern[i + 2] ?? '')) {
    const octal = /^[0-7]{1,3}/.exec(pattern.slice(i + 1))?.[0] ?? ch;
    return { out: `\\u{${Number.parseInt(octal, 8).toString(16)}}`, next: i + 1 + octal.length };
  }
  if (/[1-9]/.test(ch)) return `invalid escape sequence: \`\\${ch}\``;
  // NOTE: assertions are wrapped in a group because Go lets them be repeated (`^*`, `\b{2}`) and JS does not; \A and \z
  // hold at the ends of the text whatever the (?m) flag says.
  if (ch === 'A' && !inClass) return { out: '(?:^)', next: i + 2 };
  if (ch === 'z' && !inClass) return { out: '(?:$)', next: i + 2 };
  if (ch === 'C') return 'invalid escape sequence: `\\C`';
  if (ch === 'Q') {
    const end = pattern.indexOf('\\E', i + 2);
    const literal = end < 0 ? pattern.slice(i + 2) : pattern.slice(i + 2, end);
    return { out: [...literal].map(escapeLiteral).join(''), next: end < 0 ? pattern.length : end + 2 };
  }
  if (ch === 'p' || ch === 'P') {
    const open = pattern[i + 2];
    if (open === '{') {
      const close = pattern.indexOf('}', i + 3);
      if (close < 0) return `invalid character class range: \`${pattern.slice(i)}\``;
      return { out: unicodeProperty(pattern.slice(i + 3, close), ch === 'P'), next: close + 1 };
    }
    if (open === undefined) return `invalid character class range: \`\\${ch}\``;
    return { out: unicodeProperty(open, ch === 'P'), next: i + 3 };
  }
  if (ch === 'x') {
    const rest = pattern.slice(i + 2);
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(rest);
    if (braced?.[1]) return { out: `\\u{${braced[1]}}`, next: i + 2 + braced[0].length };
    const two = /^[0-9A-Fa-f]{2}/.exec(rest);
    if (two) return { out: `\\x${two[0]}`, next: i + 4 };
    return 'invalid escape sequence: `\\x`';
  }
  if (ch === '0') {
    const octal = /^[0-7]{1,3}/.exec(pattern.slice(i + 1));
    const code = Number.parseInt(octal?.[0] ?? '0', 8);
    return { out: `\\u{${code.toString(16)}}`, next: i + 1 + (octal?.[0].length ?? 1) };
  }
  const plain = plainEscapes[ch];
  if (plain) return { out: plain, next: i + 2 };
  if (perlClassEscapes.has(ch)) {
    if (inClass && (ch === 'b' || ch === 'B')) return `invalid escape sequence: \`\\${ch}\``;
    // NOTE: in a group, because Go lets an assertion repeat (`\b{2}`) and JS does not. Under (?i) JS also counts ſ
    // and the Kelvin sign as word characters for \b (docs/differences.md).
    if (ch === 'b' || ch === 'B') return { out: `(?:\\${ch})`, next: i + 2 };
    // NOTE: Go's \s is ASCII [\t\n\f\r ]; JavaScript's also takes \v, NBSP and the other Unicode spaces.
    if (ch === 's') return { out: inClass ? goSpace : `[${goSpace}]`, next: i + 2 };
    if (ch === 'S') return { out: inClass ? complementOfAscii(goSpace) : `[^${goSpace}]`, next: i + 2 };
    return { out: `\\${ch}`, next: i + 2 };
  }
  if (ch.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(ch)) {
    // Go allows escaping any ASCII character but letters and digits; JS (u flag) only its syntax characters.
    return {
      out:
        jsSyntaxChars.has(ch) || (inClass && ch === '-')
          ? `\\${ch}`
          : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`,
      next: i + 2,
    };
  }
  return `invalid escape sequence: \`\\${ch}\``;
}

/**
 * Translates Go (RE2) syntax to a JavaScript source and flags (for the u flag; `m` is never among them, Go's (?m) is
 * spelled out), or says why Go would reject the pattern. Shared with sprig's regex functions.
 */
export function translateGoRegexp(pattern: string): { source: string; flags: string } | string {
  let flags = '';
  let i = 0;
  const lead = /^\(\?([imsU]+)\)/.exec(pattern);
  if (lead?.[1]) {
    if (lead[1].includes('U')) return 'invalid or unsupported Perl syntax: `(?U`';
    flags = [...new Set(lead[1])].join('');
    i = lead[0].length;
  }
  let out = '';
  let inClass = false;
  // Inside a class: what the last item was, so that `-` is read as Go reads it (a range only between two characters).
  let prev: 'start' | 'char' | 'class' | 'rangeEnd' | 'dash' = 'start';
  const names = new Set<string>();
  while (i < pattern.length) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      const t = translateEscape(pattern, i, inClass);
      if (typeof t === 'string') return t;
      out += t.out;
      if (inClass) {
        const isClass = /^(\\[dDwWpP]|\\t\\n\\f|\\u\{0\})/.test(t.out);
        prev = isClass ? 'class' : prev === 'dash' ? 'rangeEnd' : 'char';
      }
      i = t.next;
      continue;
    }
    if (inClass) {
      // NOTE: right after `a-`, Go reads `[` as the end of the range (`[--[:word:]]` is `-` to `[`, then `:word:`).
      const posix = prev === 'dash' ? null : /^\[:(\^)?([a-z]+):\]/.exec(pattern.slice(i));
      if (posix?.[2]) {
        const cls = posixClasses[posix[2]];
        if (!cls) return `invalid character class range: \`${posix[0]}\``;
        out += posix[1] ? complementOfAscii(cls) : cls;
        i += posix[0].length;
        prev = 'class';
        continue;
      }
      if (ch === ']') inClass = false;
      if (ch === '-' && prev === 'char' && pattern[i + 1] !== ']') {
        out += '-';
        prev = 'dash';
      } else {
        // NOTE: a `-` after a class or a range (`[\d-x]`, `[b-d-x]`) is itself in Go; JS wants it escaped.
        out += ch === '[' ? '\\[' : ch === '-' ? '\\-' : ch;
        prev = prev === 'dash' ? 'rangeEnd' : 'char';
      }
      i += 1;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      prev = 'start';
      out += ch;
      i += 1;
      if (pattern[i] === '^') {
        out += '^';
        i += 1;
      }
      if (pattern[i] === ']') {
        out += '\\]';
        i += 1;
        prev = 'char';
      }
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      // NOTE: a named group only captures, and Go allows a name twice; JS does not, so names are dropped.
      const named = /^P?<([^>]*)>/.exec(rest);
      if (named && !rest.startsWith('<=') && !rest.startsWith('<!')) {
        const name = named[1] ?? '';
        if (!/^[A-Za-z0-9_]+$/.test(name)) return `invalid named capture: \`(?${named[0]}\``;
        // NOTE: Go allows a name twice, JS does not: the first keeps it (for ${name} in replacements), the others
        // become plain groups.
        out += names.has(name) ? '(' : `(?<${name}>`;
        names.add(name);
        i += 2 + named[0].length;
        continue;
      }
      if (rest.startsWith(':')) {
        out += '(?:';
        i += 3;
        continue;
      }
      return `invalid or unsupported Perl syntax: \`(?${rest.slice(0, 1)}\``;
    }
    if (ch === '{') {
      const rep = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (rep && (Number(rep[1]) > 1000 || Number(rep[3] ?? 0) > 1000)) return `invalid repeat count: \`${rep[0]}\``;
      if (rep && rep[3] && Number(rep[3]) < Number(rep[1])) return `invalid repeat count: \`${rep[0]}\``;
      if (rep) {
        out += rep[0];
        i += rep[0].length;
        continue;
      }
    }
    // NOTE: Go reads a `{` that starts no repeat, and any `}` or `]`, as itself; JS (u flag) wants them escaped.
    if (ch === '^' || ch === '$') out += lineAnchor(ch, flags.includes('m'));
    else out += '{}]'.includes(ch) ? `\\${ch}` : ch;
    i += 1;
  }
  return { source: out, flags: flags.replace('m', '') };
}

/**
 * Compiles a Go regular expression for use in JavaScript.
 *
 * @example
 * const r = compileGoRegexp('^(?P<major>\\d+)\\.\\d+$');
 * if (r.ok) r.regexp.test('1.29'); // true
 */
export function compileGoRegexp(pattern: string): GoRegexpResult {
  const t = translateGoRegexp(pattern);
  if (typeof t === 'string') return { ok: false, error: `error parsing regexp: ${t}` };
  try {
    // NOTE: V8 also tries a match inside a surrogate pair (where \B holds and Go never looks); anchoring at the start
    // of the text (no m flag, so ^ is the start) and skipping whole code points keeps every attempt on a code point.
    return { ok: true, regexp: new RegExp(`^[\\s\\S]*?(?:${t.source})`, `${t.flags}u`) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `error parsing regexp: ${message}` };
  }
}

const cache = new Map<string, GoRegexpResult>();

/** compileGoRegexp, memoised (patterns repeat across variables and passes). */
export function compileGoRegexpCached(pattern: string): GoRegexpResult {
  let result = cache.get(pattern);
  if (!result) {
    result = compileGoRegexp(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, result);
  }
  return result;
}
