// The Kubernetes CEL url library (k8s.io/apiserver/pkg/cel/library/urls.go) over a re-implementation of Go's
// net/url Parse/ParseRequestURI (Go 1.26: strict colons in http(s) hosts), EscapedPath, Hostname, Port and Query,
// with Go's error messages. Go works on bytes: the text is handled as one character per UTF-8 byte inside.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/topology/variables/cel-function-error.ts';
import { parseAddr } from '#shared/topology/variables/cel-ip.ts';
import { quoteBytes } from '#shared/lang/go/strconv.ts';

/** Text as a string of UTF-8 bytes, and back. */
const toBytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const fromBytes = (b: string) => Buffer.from(b, 'latin1').toString('utf8');

/** strconv.Quote of a byte string. */
const quoteLatin1 = (b: string) => quoteBytes(Buffer.from(b, 'latin1'));

class UrlError extends Error {}

const PATH_CHARS = '$&+,-./0123456789:;=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~';
const HOST_CHARS = '!"$&\'()*+,-.0123456789:;<=>ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz~';

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

/** net/url's shouldEscape for the modes used here (bytes of 0x80 and above are always escaped). */
function shouldEscape(c: string, mode: 'path' | 'host' | 'zone'): boolean {
  return !(mode === 'path' ? PATH_CHARS : HOST_CHARS).includes(c);
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const unhex = (c: string) => parseInt(c, 16);

/** net/url's unescape. */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length;) {
    const c = s[i] ?? '';
    if (c === '%') {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${quoteLatin1(s.slice(i, i + 3))}`);
      }
      const escape = s.slice(i, i + 3);
      if (mode === 'host' && unhex(s[i + 1] ?? '') < 8 && escape !== '%25')
        throw new UrlError(`invalid URL escape ${quoteLatin1(escape)}`);
      if (mode === 'zone') {
        const v = String.fromCharCode(unhex(escape.slice(1)));
        if (escape !== '%25' && v !== ' ' && shouldEscape(v, 'host'))
          throw new UrlError(`invalid URL escape ${quoteLatin1(escape)}`);
      }
      i += 3;
    } else if (c === '+') {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode))
        throw new UrlError(`invalid character ${quoteLatin1(c)} in host name`);
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    if (c === '%') {
      out += String.fromCharCode(unhex(s.slice(i + 1, i + 3)));
      i += 2;
    } else if (c === '+') out += mode === 'queryComponent' ? ' ' : '+';
    else out += c;
  }
  return out;
}

/** net/url's escape in path mode. */
function escapePath(s: string): string {
  let out = '';
  for (const c of s) {
    out += shouldEscape(c, 'path') ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c;
  }
  return out;
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  return port === '' || (port[0] === ':' && /^[0-9]*$/.test(port.slice(1)));
}

/** A parsed URL: the fields the library reads (bytes). */
export class URL {
  scheme = '';
  opaque = '';
  host = '';
  path = '';
  rawPath = '';
  rawQuery = '';

  setPath(p: string): void {
    const path = unescape(p, 'path');
    this.path = path;
    this.rawPath = escapePath(path) === p ? '' : p;
  }

  escapedPath(): string {
    if (this.rawPath !== '' && validEncoded(this.rawPath)) {
      try {
        if (unescape(this.rawPath, 'path') === this.path) return this.rawPath;
      } catch {
        // falls through to escaping the path, as Go does
      }
    }
    if (this.path === '*') return '*';
    return escapePath(this.path);
  }
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
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

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteLatin1(colonPort)} after host`);
    const unescapedColonPort = unescape(colonPort, 'host');
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf('%25');
    const unescapedHostname =
      zone >= 0
        ? unescape(hostname.slice(0, zone), 'host') + unescape(hostname.slice(zone), 'zone')
        : unescape(hostname, 'host');
    let is4: boolean;
    try {
      is4 = parseAddr(fromBytes(unescapedHostname)).is4;
    } catch (error) {
      throw new UrlError(`invalid host: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (is4) throw new UrlError('invalid IP-literal');
    return `[${unescapedHostname}]${unescapedColonPort}`;
  }
  let i = host.indexOf(':');
  if (i !== -1) {
    // NOTE: Go 1.26 takes the first colon as the port separator for http(s) (GODEBUG urlstrictcolons=1).
    if (scheme !== 'http' && scheme !== 'https') i = host.lastIndexOf(':');
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteLatin1(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return host;
  const userinfo = authority.slice(0, at);
  if (!USERINFO.test(fromBytes(userinfo))) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) unescape(userinfo, 'userPassword');
  else {
    unescape(userinfo.slice(0, colon), 'userPassword');
    unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

/** net/url's parse. */
function parse(raw: string, viaRequest: boolean): URL {
  if ([...raw].some((c) => c < ' ' || c === '\x7f')) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const url = new URL();
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  const [scheme, afterScheme] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':'))
      throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    url.host = parseAuthority(url.scheme, authority);
  }
  url.setPath(rest);
  return url;
}

function wrapped<T>(input: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof UrlError) throw new UrlError(`parse ${quoteLatin1(input)}: ${error.message}`);
    throw error;
  }
}

/** url.ParseRequestURI. */
function parseRequestURI(raw: string): URL {
  return wrapped(raw, () => parse(raw, true));
}

/**
 * Why Go's url.ParseRequestURI refuses a string, if it does (the Kubernetes format library's `uri`).
 *
 * @example
 * requestURIError('a b'); // 'parse "a b": invalid URI for request'
 */
export function requestURIError(s: string): string | undefined {
  try {
    parseRequestURI(toBytes(s));
    return undefined;
  } catch (error) {
    if (error instanceof UrlError) return error.message;
    throw error;
  }
}

/** url.Parse: the fragment is cut off and only checked. */
function parseURL(raw: string): URL {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const url = wrapped(u, () => parse(u, false));
  if (hash >= 0 && raw.length > hash + 1) wrapped(raw, () => unescape(raw.slice(hash + 1), 'fragment'));
  return url;
}

function urlOf(s: string): URL {
  const raw = toBytes(s);
  try {
    parseRequestURI(raw);
    return parseURL(raw);
  } catch (error) {
    if (error instanceof UrlError)
      throw new CelFunctionError(`URL parse error during conversion from string: ${error.message}`);
    throw error;
  }
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** url.ParseQuery's values (errors ignored, as URL.Query does). */
function query(rawQuery: string): Map<string, string[]> {
  const values = new Map<string, string[]>();
  if (rawQuery.split('&').length > 10_000) return values;
  for (const pair of rawQuery === '' ? [] : rawQuery.split('&')) {
    if (pair.includes(';') || pair === '') continue;
    const eq = pair.indexOf('=');
    try {
      const key = fromBytes(unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent'));
      const value = fromBytes(unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent'));
      values.set(key, [...(values.get(key) ?? []), value]);
    } catch (error) {
      if (!(error instanceof UrlError)) throw error;
    }
  }
  return values;
}

/**
 * Registers Kubernetes' url library: `url`, `isURL`, `getScheme`, `getHost`, `getHostname`, `getPort`,
 * `getEscapedPath`, `getQuery` (`==` between URLs is refused).
 *
 * @example
 * registerUrlLibrary(env).evaluate("url('https://example.com:80/a').getPort()"); // '80'
 */
export function registerUrlLibrary(env: Environment): Environment {
  return env
    .registerType('URL', URL)
    .registerFunction('url(string): URL', urlOf)
    .registerFunction('isURL(string): bool', (s: string) => {
      try {
        parseRequestURI(toBytes(s));
        return true;
      } catch (error) {
        if (error instanceof UrlError) return false;
        throw error;
      }
    })
    .registerFunction('URL.getScheme(): string', (u: URL) => fromBytes(u.scheme))
    .registerFunction('URL.getHost(): string', (u: URL) => fromBytes(u.host))
    .registerFunction('URL.getHostname(): string', (u: URL) => fromBytes(splitHostPort(u.host)[0]))
    .registerFunction('URL.getPort(): string', (u: URL) => fromBytes(splitHostPort(u.host)[1]))
    .registerFunction('URL.getEscapedPath(): string', (u: URL) => fromBytes(u.escapedPath()))
    .registerFunction('URL.getQuery(): map<string, list<string>>', (u: URL) => query(u.rawQuery))
    .registerOperator('URL == URL', () => {
      // NOTE: Go compares URL.String(), which is not re-implemented (docs/differences.md, "CEL rules").
      throw new CelFunctionError('comparing two URLs is not supported');
    });
}
