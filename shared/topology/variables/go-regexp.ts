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

/** Translates one escape sequence starting at `pattern[i] === '\\'`; returns the JS text and the next index. */
function translateEscape(pattern: string, i: number, inClass: boolean): { out: string; next: number } | string {
  const ch = pattern[i + 1];
  if (ch === undefined) return 'trailing backslash at end of expression';
  if (/[1-9]/.test(ch)) return `invalid escape sequence: \`\\${ch}\``;
  if (ch === 'A' && !inClass) return { out: '^', next: i + 2 };
  if (ch === 'z' && !inClass) return { out: '$', next: i + 2 };
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
    return { out: `\\${ch}`, next: i + 2 };
  }
  if (/[!-/:-@[-`{-~]/.test(ch)) {
    // Go allows escaping any ASCII punctuation; JS (u flag) only its syntax characters.
    return {
      out: jsSyntaxChars.has(ch) || (inClass && ch === '-') ? `\\${ch}` : `\\x${ch.charCodeAt(0).toString(16)}`,
      next: i + 2,
    };
  }
  return `invalid escape sequence: \`\\${ch}\``;
}

function translate(pattern: string): { source: string; flags: string } | string {
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
  while (i < pattern.length) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      const t = translateEscape(pattern, i, inClass);
      if (typeof t === 'string') return t;
      out += t.out;
      i = t.next;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^)?([a-z]+):\]/.exec(pattern.slice(i));
      if (posix?.[2]) {
        const cls = posixClasses[posix[2]];
        if (!cls) return `invalid character class range: \`${posix[0]}\``;
        if (posix[1]) return `invalid or unsupported Perl syntax: \`${posix[0]}\``;
        out += cls;
        i += posix[0].length;
        continue;
      }
      if (ch === ']') inClass = false;
      out += ch === '[' ? '\\[' : ch;
      i += 1;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      i += 1;
      if (pattern[i] === '^') {
        out += '^';
        i += 1;
      }
      if (pattern[i] === ']') {
        out += '\\]';
        i += 1;
      }
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      if (rest.startsWith('P<')) {
        out += '(?<';
        i += 4;
        continue;
      }
      if (rest.startsWith(':') || (rest.startsWith('<') && !rest.startsWith('<=') && !rest.startsWith('<!'))) {
        out += '(?';
        i += 2;
        continue;
      }
      return `invalid or unsupported Perl syntax: \`(?${rest.slice(0, 1)}\``;
    }
    if (ch === '{') {
      const rep = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (rep && (Number(rep[1]) > 1000 || Number(rep[3] ?? 0) > 1000)) return `invalid repeat count: \`${rep[0]}\``;
    }
    out += ch;
    i += 1;
  }
  return { source: out, flags };
}

/**
 * Compiles a Go regular expression for use in JavaScript.
 *
 * @example
 * const r = compileGoRegexp('^(?P<major>\\d+)\\.\\d+$');
 * if (r.ok) r.regexp.test('1.29'); // true
 */
export function compileGoRegexp(pattern: string): GoRegexpResult {
  const t = translate(pattern);
  if (typeof t === 'string') return { ok: false, error: `error parsing regexp: ${t}` };
  try {
    return { ok: true, regexp: new RegExp(t.source, `${t.flags}u`) };
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
