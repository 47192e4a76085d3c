// Go's `net/url.ParseRequestURI` (Go 1.26) as far as upstream's ExtensionConfig webhook reads it: whether a URL or a
// service path parses, the scheme it has, and the error text (`parse "<url>": <reason>`) the webhook prints.
import { isIPv4, isIPv6 } from 'node:net';
import { quote } from '#shared/lang/go/strconv.ts';

export type ParsedRequestURI =
  { readonly ok: true; readonly scheme: string } | { readonly ok: false; readonly error: string };

/** Bytes a host may hold unescaped besides letters and digits (Go's `shouldEscape(c, encodeHost)` is false). */
const hostBytes = new Set('-._~!$&\'()*+,;=:[]<>"');
/** Bytes a userinfo may hold besides letters and digits (Go's `validUserinfo`). */
const userinfoBytes = new Set("-._:~!$&'()*+,;=%@");
const hex = /^[0-9A-Fa-f]$/;
const alnum = /^[A-Za-z0-9]$/;

class UrlError extends Error {}

/** Go's `unescape`: a `%` must be followed by two hex digits; a host allows only escaped non-ASCII bytes. */
function checkEscapes(s: string, host: boolean): void {
  for (let i = 0; i < s.length;) {
    const c = s[i] ?? '';
    if (c === '%') {
      if (i + 2 >= s.length || !hex.test(s[i + 1] ?? '') || !hex.test(s[i + 2] ?? ''))
        throw new UrlError(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      if (host && parseInt(s[i + 1] ?? '0', 16) < 8 && s.slice(i, i + 3) !== '%25')
        throw new UrlError(`invalid URL escape ${quote(s.slice(i, i + 3))}`);
      i += 3;
      continue;
    }
    if (host && c.charCodeAt(0) < 0x80 && !alnum.test(c) && !hostBytes.has(c))
      throw new UrlError(`invalid character ${quote(c)} in host name`);
    i += 1;
  }
}

/** Go's `validOptionalPort`: empty, or `:` followed by digits. */
const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

/** Go's `parseHost`, strict about colons for http and https (Go 1.26's `urlstrictcolons` default). */
function checkHost(scheme: string, host: string): void {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quote(colonPort)} after host`);
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    checkEscapes(zone >= 0 ? literal.slice(0, zone) : literal, true);
    // NOTE: Go reports netip.ParseAddr's own reason here; only whether it is an IPv6 address is reproduced.
    let address = zone >= 0 ? literal.slice(0, zone) : literal;
    try {
      address = decodeURIComponent(address);
    } catch {
      // NOTE: an escape that is not UTF-8 stays as written; it is no IPv6 address either way.
    }
    if (isIPv4(address)) throw new UrlError('invalid IP-literal');
    if (!isIPv6(address)) throw new UrlError(`invalid host: ParseAddr(${quote(address)}): unable to parse IP`);
    return;
  }
  const colon = host.indexOf(':');
  if (colon !== -1) {
    const last = host.lastIndexOf(':');
    const at = last !== colon && scheme !== 'http' && scheme !== 'https' ? last : colon;
    const colonPort = host.slice(at);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quote(colonPort)} after host`);
  }
  checkEscapes(host, true);
}

function checkAuthority(scheme: string, authority: string): void {
  const at = authority.lastIndexOf('@');
  checkHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return;
  const userinfo = authority.slice(0, at);
  for (const c of userinfo)
    if (!alnum.test(c) && !userinfoBytes.has(c)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  for (const part of colon < 0 ? [userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)])
    checkEscapes(part, false);
}

/** Go's `getScheme`: `[A-Za-z][A-Za-z0-9+.-]*:` or none. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parse(raw: string): string {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) throw new UrlError('net/url: invalid control character in URL');
  }
  if (raw === '') throw new UrlError('empty url');
  if (raw === '*') return '';
  const [rawScheme, afterScheme] = splitScheme(raw);
  const scheme = rawScheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else rest = rest.split('?')[0] ?? '';
  if (!rest.startsWith('/')) {
    if (scheme !== '') return scheme;
    throw new UrlError('invalid URI for request');
  }
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    if (slash >= 0) authority = authority.slice(0, slash);
    checkAuthority(scheme, authority);
  }
  checkEscapes(rest, false);
  return scheme;
}

/**
 * Parses like Go's `url.ParseRequestURI`: an absolute URI or an absolute path, no fragment handling.
 *
 * @example
 * parseRequestURI('https://ext.example:8443/hooks'); // { ok: true, scheme: 'https' }
 * parseRequestURI('ext.example'); // { ok: false, error: 'parse "ext.example": invalid URI for request' }
 */
export function parseRequestURI(raw: string): ParsedRequestURI {
  try {
    return { ok: true, scheme: parse(raw) };
  } catch (err) {
    if (!(err instanceof UrlError)) throw err;
    return { ok: false, error: `parse ${quote(raw)}: ${err.message}` };
  }
}
