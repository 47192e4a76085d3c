// Go's strconv quoting (Quote, QuoteRune, Unquote) with Go's exact escapes, the one home for every message that
// upstream words with `%q` or strconv.Quote. Go quotes bytes: text is quoted as its UTF-8 encoding, where a lone
// surrogate becomes U+FFFD (as Go's encoding/json decodes one), and raw bytes can be quoted as they are.

/** Letters, marks, numbers, punctuation, symbols and the ASCII space, in the JavaScript engine's Unicode version. */
const printableHere = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Runes that Unicode assigned after 15.0.0, the version of Go's tables (`unicode.Version`), and that the engine here
 * (Node 22, Unicode 17) counts as printable: Go escapes them. Derived from Go's strconv.IsPrint over every rune.
 */
// prettier-ignore
const assignedAfterGoUnicode: readonly (readonly [number, number])[] = [
  [0x88f, 0x88f], [0x897, 0x897], [0xc5c, 0xc5c], [0xcdc, 0xcdc], [0x1acf, 0x1add], [0x1ae0, 0x1aeb],
  [0x1b4e, 0x1b4f], [0x1b7f, 0x1b7f], [0x1c89, 0x1c8a], [0x20c1, 0x20c1], [0x2427, 0x2429], [0x2b96, 0x2b96],
  [0x2ffc, 0x2fff], [0x31e4, 0x31e5], [0x31ef, 0x31ef], [0xa7cb, 0xa7cf], [0xa7d2, 0xa7d2], [0xa7d4, 0xa7d4],
  [0xa7da, 0xa7dc], [0xa7f1, 0xa7f1], [0xfbc3, 0xfbd2], [0xfd90, 0xfd91], [0xfdc8, 0xfdce], [0x105c0, 0x105f3],
  [0x10940, 0x10959], [0x10d40, 0x10d65], [0x10d69, 0x10d85], [0x10d8e, 0x10d8f], [0x10ec2, 0x10ec7],
  [0x10ed0, 0x10ed8], [0x10efa, 0x10efc], [0x11380, 0x11389], [0x1138b, 0x1138b], [0x1138e, 0x1138e],
  [0x11390, 0x113b5], [0x113b7, 0x113c0], [0x113c2, 0x113c2], [0x113c5, 0x113c5], [0x113c7, 0x113ca],
  [0x113cc, 0x113d5], [0x113d7, 0x113d8], [0x113e1, 0x113e2], [0x116d0, 0x116e3], [0x11b60, 0x11b67],
  [0x11bc0, 0x11be1], [0x11bf0, 0x11bf9], [0x11db0, 0x11ddb], [0x11de0, 0x11de9], [0x11f5a, 0x11f5a],
  [0x13460, 0x143fa], [0x16100, 0x16139], [0x16d40, 0x16d79], [0x16ea0, 0x16eb8], [0x16ebb, 0x16ed3],
  [0x16ff2, 0x16ff6], [0x187f8, 0x187ff], [0x18cff, 0x18cff], [0x18d09, 0x18d1e], [0x18d80, 0x18df2],
  [0x1cc00, 0x1ccfc], [0x1cd00, 0x1ceb3], [0x1ceba, 0x1ced0], [0x1cee0, 0x1cef0], [0x1e5d0, 0x1e5fa],
  [0x1e5ff, 0x1e5ff], [0x1e6c0, 0x1e6de], [0x1e6e0, 0x1e6f5], [0x1e6fe, 0x1e6ff], [0x1f6d8, 0x1f6d8],
  [0x1f777, 0x1f77a], [0x1f8b2, 0x1f8bb], [0x1f8c0, 0x1f8c1], [0x1f8d0, 0x1f8d8], [0x1fa54, 0x1fa57],
  [0x1fa89, 0x1fa8a], [0x1fa8e, 0x1fa8f], [0x1fabe, 0x1fabe], [0x1fac6, 0x1fac6], [0x1fac8, 0x1fac8],
  [0x1facd, 0x1facd], [0x1fadc, 0x1fadc], [0x1fadf, 0x1fadf], [0x1fae9, 0x1faea], [0x1faef, 0x1faef],
  [0x1fbcb, 0x1fbef], [0x1fbfa, 0x1fbfa], [0x2b73a, 0x2b73f], [0x2cea2, 0x2cead], [0x2ebf0, 0x2ee5d],
  [0x323b0, 0x33479]
];

/** strconv.IsPrint. */
function isPrint(r: number): boolean {
  if (!printableHere.test(String.fromCodePoint(r))) return false;
  if (r < 0x88f) return true;
  return !assignedAfterGoUnicode.some(([lo, hi]) => r >= lo && r <= hi);
}

const namedEscapes: Readonly<Record<number, string>> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
};

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Whether a number is a rune Go can encode (utf8.ValidRune). */
function validRune(r: number): boolean {
  return r >= 0 && r <= 0x10ffff && !(r >= 0xd800 && r <= 0xdfff);
}

/** strconv's appendEscapedRune: one valid rune inside a literal quoted with `quote`. */
function escapeRune(r: number, quote: string): string {
  const ch = String.fromCodePoint(r);
  if (ch === quote || ch === '\\') return `\\${ch}`;
  if (isPrint(r)) return ch;
  const named = namedEscapes[r];
  if (named !== undefined) return named;
  if (r < 0x20 || r === 0x7f) return `\\x${hex(r, 2)}`;
  return r < 0x10000 ? `\\u${hex(r, 4)}` : `\\U${hex(r, 8)}`;
}

/** utf8.DecodeRune: the rune at `i` and its width, or width 1 and no rune for an invalid byte. */
function decodeRune(b: Uint8Array, i: number): { readonly rune: number | undefined; readonly width: number } {
  const lead = b[i] ?? 0;
  if (lead < 0x80) return { rune: lead, width: 1 };
  const width = lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
  if (width === 0 || i + width > b.length) return { rune: undefined, width: 1 };
  let rune = lead & (0xff >> (width + 1));
  for (let k = 1; k < width; k++) {
    const cont = b[i + k] ?? 0;
    if ((cont & 0xc0) !== 0x80) return { rune: undefined, width: 1 };
    rune = (rune << 6) | (cont & 0x3f);
  }
  const min = width === 2 ? 0x80 : width === 3 ? 0x800 : 0x10000;
  if (rune < min || !validRune(rune)) return { rune: undefined, width: 1 };
  return { rune, width };
}

/**
 * strconv.Quote of a byte string: invalid UTF-8 bytes as `\x` escapes, the rest as Go escapes runes.
 *
 * @example
 * quoteBytes(Uint8Array.of(0x61, 0xff)); // '"a\\xff"'
 */
export function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < bytes.length;) {
    const { rune, width } = decodeRune(bytes, i);
    out += rune === undefined ? `\\x${hex(bytes[i] ?? 0, 2)}` : escapeRune(rune, '"');
    i += width;
  }
  return `${out}"`;
}

/**
 * strconv.Quote (and fmt's `%q` of a string): printable runes as they are, the rest escaped as Go escapes them.
 *
 * @example
 * quote('a"b\n\u2028'); // '"a\\"b\\n\\u2028"'
 */
export function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const r = ch.codePointAt(0) ?? 0;
    out += escapeRune(validRune(r) ? r : 0xfffd, '"');
  }
  return `${out}"`;
}

/**
 * strconv.QuoteRune: a rune as a Go character literal; a number that is no valid rune quotes as U+FFFD.
 *
 * @example
 * quoteRune(0x263a); // "'☺'"
 */
export function quoteRune(rune: number): string {
  return `'${escapeRune(validRune(rune) ? rune : 0xfffd, "'")}'`;
}

/** strconv.ErrSyntax, as strconv.Unquote reports it. */
export class UnquoteError extends Error {
  constructor() {
    super('invalid syntax');
  }
}

const simpleEscapes: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/**
 * strconv.Unquote for `"…"` and `` `…` `` literals (a raw literal drops its carriage returns, as Go does). A `\x` or
 * octal escape of a byte above 0x7f decodes as U+FFFD: text here is UTF-16, not bytes.
 *
 * @example
 * unquote('"a\\tb"'); // 'a\tb'
 */
export function unquote(quoted: string): string {
  if (quoted.length < 2) throw new UnquoteError();
  const q = quoted[0];
  if (q !== quoted[quoted.length - 1]) throw new UnquoteError();
  const body = quoted.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw new UnquoteError();
    return body.replace(/\r/g, '');
  }
  if (q !== '"' || body.includes('\n')) throw new UnquoteError();
  let out = '';
  for (let k = 0; k < body.length; k++) {
    const c = body[k] ?? '';
    if (c === '"') throw new UnquoteError();
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++k] ?? '';
    const simple = e === '"' ? '"' : simpleEscapes[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const digits = body.slice(k + 1, k + 1 + hexLen);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(digits)) throw new UnquoteError();
      const cp = parseInt(digits, 16);
      if (e === 'x') out += cp < 0x80 ? String.fromCharCode(cp) : '\ufffd';
      else if (!validRune(cp)) throw new UnquoteError();
      else out += String.fromCodePoint(cp);
      k += hexLen;
      continue;
    }
    if (e >= '0' && e <= '7') {
      const oct = body.slice(k, k + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new UnquoteError();
      const cp = parseInt(oct, 8);
      out += cp < 0x80 ? String.fromCharCode(cp) : '\ufffd';
      k += 2;
      continue;
    }
    throw new UnquoteError();
  }
  return out;
}
