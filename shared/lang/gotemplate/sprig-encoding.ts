// sprig's encoding, JSON, hashing, reflection and path functions.
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { adler32, sha1Hex, sha256Hex } from './hashes.ts';
import { GoInt, GoSlice, GoVersion, fromJSON, goKindName, goTypeName, sortedKeys } from './values.ts';
import type { GoValue } from './values.ts';

const S = (v: GoValue): string => v as string;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A Go JSON string (encoding/json): HTML characters escaped unless `raw`. */
function jsonString(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (cp < 0x20 || (escapeHTML && (ch === '<' || ch === '>' || ch === '&')))
      out += `\\u00${cp.toString(16).padStart(2, '0')}`;
    else if (cp === 0x2028 || cp === 0x2029) out += `\\u${cp.toString(16)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

function jsonNumber(f: number): string {
  if (!Number.isFinite(f))
    throw new FuncError(`json: unsupported value: ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  if (Object.is(f, -0)) return '-0';
  return String(f);
}

/** json.Marshal (indent '' for compact, '  ' for MarshalIndent). */
export function marshalJSON(v: GoValue, escapeHTML: boolean, indent: string, depth = 0): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return jsonString(v, escapeHTML);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return jsonNumber(v);
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoVersion) return jsonString(v.toString(), escapeHTML);
  const nl = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const close = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  const sep = indent === '' ? ':' : ': ';
  if (v instanceof GoSlice) {
    if (v.isNil) return 'null';
    if (v.items.length === 0) return '[]';
    return `[${v.items.map((item) => nl + marshalJSON(item, escapeHTML, indent, depth + 1)).join(',')}${close}]`;
  }
  if (v.isNil) return 'null';
  if (v.entries.size === 0) return '{}';
  return `{${sortedKeys(v)
    .map(
      (k) => `${nl}${jsonString(k, escapeHTML)}${sep}${marshalJSON(v.entries.get(k), escapeHTML, indent, depth + 1)}`,
    )
    .join(',')}${close}}`;
}

function tryJSON(f: () => string): string {
  try {
    return f();
  } catch (err) {
    if (err instanceof FuncError) return '';
    throw err;
  }
}

function fromJson(s: string, must: boolean): GoValue {
  try {
    return fromJSON(JSON.parse(s) as unknown);
  } catch (err) {
    if (must) throw new FuncError(err instanceof Error ? err.message : String(err));
    return null;
  }
}

const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** StdEncoding.DecodeString for base64 (bits = 6) or base32 (bits = 5); a bad input returns Go's error text. */
function decodeStd(input: string, alphabet: string, bits: number): string {
  const s = input.replace(/[\r\n]/g, '');
  const quantum = bits === 6 ? 4 : 8;
  const out: number[] = [];
  let acc = 0;
  let nbits = 0;
  let padStart = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '=') {
      if (padStart < 0) padStart = i;
      continue;
    }
    const v = alphabet.indexOf(c);
    if (v < 0 || padStart >= 0)
      return `illegal ${bits === 6 ? 'base64' : 'base32'} data at input byte ${padStart >= 0 ? padStart : i}`;
    acc = (acc << bits) | v;
    nbits += bits;
    if (nbits >= 8) {
      nbits -= 8;
      out.push((acc >> nbits) & 0xff);
    }
  }
  if (s.length % quantum !== 0) {
    const j = s.length % quantum;
    return `illegal ${bits === 6 ? 'base64' : 'base32'} data at input byte ${s.length - j}`;
  }
  return new TextDecoder().decode(new Uint8Array(out));
}

function encodeStd(input: string, alphabet: string, bits: number): string {
  const bytes = utf8(input);
  let out = '';
  let acc = 0;
  let nbits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff;
    nbits += 8;
    while (nbits >= bits) {
      nbits -= bits;
      out += alphabet[(acc >> nbits) & ((1 << bits) - 1)];
    }
  }
  if (nbits > 0) out += alphabet[(acc << (bits - nbits)) & ((1 << bits) - 1)];
  const quantum = bits === 6 ? 4 : 8;
  while (out.length % quantum !== 0) out += '=';
  return out;
}

/** path.Clean. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
    } else parts.push(seg);
  }
  const out = (rooted ? '/' : '') + parts.join('/');
  return out === '' ? '.' : out;
}

function basePath(p: string): string {
  if (p === '') return '.';
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function dirPath(p: string): string {
  return cleanPath(p.slice(0, p.lastIndexOf('/') + 1));
}

function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

const pathFuncs: [string, GoFunc][] = [
  ['base', fn(['string'], ([p]) => basePath(S(p)))],
  ['dir', fn(['string'], ([p]) => dirPath(S(p)))],
  ['clean', fn(['string'], ([p]) => cleanPath(S(p)))],
  ['ext', fn(['string'], ([p]) => extPath(S(p)))],
  ['isAbs', fn(['string'], ([p]) => S(p).startsWith('/'))],
];

export const encodingFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['b64enc', fn(['string'], ([s]) => encodeStd(S(s), b64, 6))],
  ['b64dec', fn(['string'], ([s]) => decodeStd(S(s), b64, 6))],
  ['b32enc', fn(['string'], ([s]) => encodeStd(S(s), b32, 5))],
  ['b32dec', fn(['string'], ([s]) => decodeStd(S(s), b32, 5))],
  ['sha1sum', fn(['string'], ([s]) => sha1Hex(utf8(S(s))))],
  ['sha256sum', fn(['string'], ([s]) => sha256Hex(utf8(S(s))))],
  ['adler32sum', fn(['string'], ([s]) => String(adler32(utf8(S(s)))))],
  ['toJson', fn(['any'], ([v]) => tryJSON(() => marshalJSON(v, true, '')))],
  ['mustToJson', fn(['any'], ([v]) => marshalJSON(v, true, ''))],
  ['toPrettyJson', fn(['any'], ([v]) => tryJSON(() => marshalJSON(v, true, '  ')))],
  ['mustToPrettyJson', fn(['any'], ([v]) => marshalJSON(v, true, '  '))],
  ['toRawJson', fn(['any'], ([v]) => marshalJSON(v, false, ''))],
  ['mustToRawJson', fn(['any'], ([v]) => marshalJSON(v, false, ''))],
  ['fromJson', fn(['string'], ([s]) => fromJson(S(s), false))],
  ['mustFromJson', fn(['string'], ([s]) => fromJson(S(s), true))],
  ['typeOf', fn(['any'], ([v]) => goTypeName(v ?? null))],
  ['typeIs', fn(['string', 'any'], ([t, v]) => S(t) === goTypeName(v ?? null))],
  [
    'typeIsLike',
    fn(['string', 'any'], ([t, v]) => S(t) === goTypeName(v ?? null) || `*${S(t)}` === goTypeName(v ?? null)),
  ],
  ['kindOf', fn(['any'], ([v]) => goKindName(v ?? null))],
  ['kindIs', fn(['string', 'any'], ([t, v]) => S(t) === goKindName(v ?? null))],
  [
    'fail',
    fn(['string'], ([msg]) => {
      throw new FuncError(S(msg));
    }),
  ],
  ...pathFuncs,
  ...pathFuncs.map(([name, f]): [string, GoFunc] => [`os${name[0]!.toUpperCase()}${name.slice(1)}`, f]),
]);
