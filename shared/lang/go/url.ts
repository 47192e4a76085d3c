// Go's net/url (Go 1.26: strict colons in http(s) hosts): Parse and ParseRequestURI with Go's error messages, and a
// URL's EscapedPath, Hostname, Port and Query. Go works on bytes: the text is handled as one character per UTF-8 byte
// inside, and a URL's fields are turned back into text when read.
import { parseAddr } from '#shared/lang/go/netip.ts';
import type { IP } from '#shared/lang/go/netip.ts';
import { quoteBytes } from '#shared/lang/go/strconv.ts';

/** Text as a string of UTF-8 bytes, and back. */
const toBytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const fromBytes = (b: string) => Buffer.from(b, 'latin1').toString('utf8');
const quoteLatin1 = (b: string) => quoteBytes(Buffer.from(b, 'latin1'));

/**
 * A url.Error of operation `parse`: `parse "<url>": <reason>`.
 *
 * @example
 * try { parseRequestURI('a b'); } catch (e) { (e as UrlError).message; } // 'parse "a b": invalid URI for request'
 */
export class UrlError extends Error {
  /** Go's inner error, without the `parse "<url>": ` prefix. */
  readonly reason: string;

  constructor(url: string, reason: string) {
    super(`parse ${quoteLatin1(url)}: ${reason}`);
    this.reason = reason;
  }
}

/** A reason before the URL is known (Go's inner errors); wrapped into a UrlError by parse. */
class ReasonError extends Error {}

const UNRESERVED = '-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~';
/** The bytes that shouldEscape leaves alone, by mode (bytes of 0x80 and above are always escaped). */
const KEPT = {
  path: `${UNRESERVED}$&+,/:;=@`,
  host: `${UNRESERVED}!"$&'()*+,:;<=>[]`,
  fragment: `${UNRESERVED}$&+,/:;=?@!()*`,
} as const;

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

function shouldEscape(c: string, mode: keyof typeof KEPT): boolean {
  return !KEPT[mode].includes(c);
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
        throw new ReasonError(`invalid URL escape ${quoteLatin1(s.slice(i, i + 3))}`);
      }
      const escape = s.slice(i, i + 3);
      if (mode === 'host' && unhex(s[i + 1] ?? '') < 8 && escape !== '%25')
        throw new ReasonError(`invalid URL escape ${quoteLatin1(escape)}`);
      if (mode === 'zone') {
        const v = String.fromCharCode(unhex(escape.slice(1)));
        if (escape !== '%25' && v !== ' ' && shouldEscape(v, 'host'))
          throw new ReasonError(`invalid URL escape ${quoteLatin1(escape)}`);
      }
      i += 3;
    } else if (c === '+') {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, 'host'))
        throw new ReasonError(`invalid character ${quoteLatin1(c)} in host name`);
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

/** net/url's escape in path or fragment mode. */
function escape(s: string, mode: 'path' | 'fragment'): string {
  let out = '';
  for (const c of s) {
    out += shouldEscape(c, mode) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c;
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

/** The fields of a url.URL, as bytes. */
type Fields = {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
};

/** A parsed url.URL (without User, which no caller reads). */
export class URL {
  readonly #b: Readonly<Fields>;

  constructor(fields: Readonly<Fields>) {
    this.#b = fields;
  }

  get scheme(): string {
    return fromBytes(this.#b.scheme);
  }
  get opaque(): string {
    return fromBytes(this.#b.opaque);
  }
  get host(): string {
    return fromBytes(this.#b.host);
  }
  get path(): string {
    return fromBytes(this.#b.path);
  }
  get rawPath(): string {
    return fromBytes(this.#b.rawPath);
  }
  get rawQuery(): string {
    return fromBytes(this.#b.rawQuery);
  }
  get fragment(): string {
    return fromBytes(this.#b.fragment);
  }
  get rawFragment(): string {
    return fromBytes(this.#b.rawFragment);
  }

  /** URL.EscapedPath: RawPath when it is a valid encoding of Path, else Path escaped. */
  escapedPath(): string {
    const { rawPath, path } = this.#b;
    if (rawPath !== '' && validEncoded(rawPath)) {
      try {
        if (unescape(rawPath, 'path') === path) return fromBytes(rawPath);
      } catch {
        // falls through to escaping the path, as Go does
      }
    }
    if (path === '*') return '*';
    return fromBytes(escape(path, 'path'));
  }

  /** URL.Hostname: the host without port and IPv6 brackets. */
  hostname(): string {
    return fromBytes(splitHostPort(this.#b.host)[0]);
  }

  /** URL.Port: the digits after the host's last colon, or ''. */
  port(): string {
    return fromBytes(splitHostPort(this.#b.host)[1]);
  }

  /** URL.Query: url.ParseQuery's values, pairs that fail to parse left out. */
  query(): Map<string, string[]> {
    const values = new Map<string, string[]>();
    const rawQuery = this.#b.rawQuery;
    // NOTE: Go 1.26 refuses a query of more than 10000 parameters (GODEBUG urlmaxqueryparams) as a whole.
    if (rawQuery.split('&').length > 10_000) return values;
    for (const pair of rawQuery === '' ? [] : rawQuery.split('&')) {
      if (pair.includes(';') || pair === '') continue;
      const eq = pair.indexOf('=');
      try {
        const key = fromBytes(unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent'));
        const value = fromBytes(unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent'));
        values.set(key, [...(values.get(key) ?? []), value]);
      } catch (error) {
        if (!(error instanceof ReasonError)) throw error;
      }
    }
    return values;
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

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new ReasonError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new ReasonError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new ReasonError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new ReasonError(`invalid port ${quoteLatin1(colonPort)} after host`);
    const unescapedColonPort = unescape(colonPort, 'host');
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf('%25');
    const unescapedHostname =
      zone >= 0
        ? unescape(hostname.slice(0, zone), 'host') + unescape(hostname.slice(zone), 'zone')
        : unescape(hostname, 'host');
    let addr: IP;
    try {
      addr = parseAddr(fromBytes(unescapedHostname));
    } catch (error) {
      throw new ReasonError(`invalid host: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (addr.is4) throw new ReasonError('invalid IP-literal');
    return `[${unescapedHostname}]${unescapedColonPort}`;
  }
  let i = host.indexOf(':');
  if (i !== -1) {
    // NOTE: Go 1.26 takes the first colon as the port separator for http(s) (GODEBUG urlstrictcolons=1).
    if (scheme !== 'http' && scheme !== 'https') i = host.lastIndexOf(':');
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new ReasonError(`invalid port ${quoteLatin1(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return host;
  const userinfo = authority.slice(0, at);
  if (!USERINFO.test(fromBytes(userinfo))) throw new ReasonError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) unescape(userinfo, 'userPassword');
  else {
    unescape(userinfo.slice(0, colon), 'userPassword');
    unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

/** net/url's parse, over bytes. */
function parseBytes(raw: string, viaRequest: boolean): Fields {
  if ([...raw].some((c) => c < ' ' || c === '\x7f')) throw new ReasonError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new ReasonError('empty url');
  const url: Fields = {
    scheme: '',
    opaque: '',
    host: '',
    path: '',
    rawPath: '',
    rawQuery: '',
    fragment: '',
    rawFragment: '',
  };
  if (raw === '*') return { ...url, path: '*' };
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
    if (viaRequest) throw new ReasonError('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':'))
      throw new ReasonError('first path segment in URL cannot contain colon');
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
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

function wrapped<T>(input: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ReasonError) throw new UrlError(input, error.message);
    throw error;
  }
}

/**
 * url.ParseRequestURI: an absolute URI or an absolute path, taken as it is (no fragment); throws UrlError.
 *
 * @example
 * parseRequestURI('https://ext.example:8443/hooks').port(); // '8443'
 */
export function parseRequestURI(rawURL: string): URL {
  const raw = toBytes(rawURL);
  return new URL(wrapped(raw, () => parseBytes(raw, true)));
}

/**
 * url.Parse: a URL, absolute or relative, with its fragment after `#`; throws UrlError.
 *
 * @example
 * parse('https://example.com/a%20b#top').path; // '/a b'
 */
export function parse(rawURL: string): URL {
  const raw = toBytes(rawURL);
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const fields = wrapped(u, () => parseBytes(u, false));
  if (hash < 0 || hash === raw.length - 1) return new URL(fields);
  const frag = raw.slice(hash + 1);
  const fragment = wrapped(raw, () => unescape(frag, 'fragment'));
  return new URL({ ...fields, fragment, rawFragment: escape(fragment, 'fragment') === frag ? '' : frag });
}
