// The Kubernetes CEL ip and cidr libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go) over a
// re-implementation of Go's net/netip parsing, printing and predicates, with Go's error messages.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/topology/variables/cel-function-error.ts';
import { quote } from '#shared/lang/go/strconv.ts';

/** A netip.Addr: 4 or 16 bytes, and a zone for IPv6. */
export class IP {
  readonly bytes: readonly number[];
  readonly zone: string;

  constructor(bytes: readonly number[], zone = '') {
    this.bytes = bytes;
    this.zone = zone;
  }

  get is4(): boolean {
    return this.bytes.length === 4;
  }

  get is4In6(): boolean {
    return (
      !this.is4 && this.bytes.slice(0, 10).every((b) => b === 0) && this.bytes[10] === 0xff && this.bytes[11] === 0xff
    );
  }

  equals(o: IP): boolean {
    return this.zone === o.zone && this.bytes.length === o.bytes.length && this.bytes.every((b, i) => b === o.bytes[i]);
  }

  private u16(i: number): number {
    return ((this.bytes[2 * i] ?? 0) << 8) | (this.bytes[2 * i + 1] ?? 0);
  }

  /** Addr.String (RFC 5952 for IPv6). */
  toString(): string {
    if (this.is4) return this.bytes.join('.');
    let zeroStart = 255;
    let zeroEnd = 255;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.u16(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
        zeroStart = i;
        zeroEnd = j;
      }
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i = zeroEnd;
        if (i >= 8) break;
      } else if (i > 0) out += ':';
      out += this.u16(i).toString(16);
    }
    return this.zone ? `${out}%${this.zone}` : out;
  }

  get isUnspecified(): boolean {
    return this.zone === '' && this.bytes.every((b) => b === 0);
  }

  get isLoopback(): boolean {
    if (this.is4) return this.bytes[0] === 127;
    return this.bytes.slice(0, 15).every((b) => b === 0) && this.bytes[15] === 1;
  }

  get isMulticast(): boolean {
    return this.is4 ? ((this.bytes[0] ?? 0) & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  get isLinkLocalMulticast(): boolean {
    if (this.is4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return (this.u16(0) & 0xff0f) === 0xff02;
  }

  get isLinkLocalUnicast(): boolean {
    if (this.is4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return (this.u16(0) & 0xffc0) === 0xfe80;
  }

  get isGlobalUnicast(): boolean {
    if (this.is4 && (this.bytes.every((b) => b === 0) || this.bytes.every((b) => b === 255))) return false;
    const v6Unspecified = !this.is4 && this.zone === '' && this.bytes.every((b) => b === 0);
    return !v6Unspecified && !this.isLoopback && !this.isMulticast && !this.isLinkLocalUnicast;
  }

  /** The address with all but the first `bits` bits cleared (the zone dropped, as Addr.Prefix does). */
  masked(bits: number): IP {
    return new IP(
      this.bytes.map((b, i) => {
        const keep = Math.max(0, Math.min(8, bits - 8 * i));
        return b & ((0xff << (8 - keep)) & 0xff);
      }),
    );
  }
}

class ParseAddrError extends Error {}

function addrError(input: string, msg: string, at?: string): ParseAddrError {
  const where = at !== undefined && at !== '' ? ` (at ${quote(at)})` : '';
  return new ParseAddrError(`ParseAddr(${quote(input)}): ${msg}${where}`);
}

/** netip.parseIPv4Fields over in[off:end]. */
function parseIPv4Fields(input: string, off: number, end: number): number[] {
  const s = input.slice(off, end);
  const fields: number[] = [];
  let val = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digLen++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) throw addrError(input, 'IPv4 address too long');
      fields.push(val);
      val = 0;
      digLen = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (fields.length < 3) throw addrError(input, 'IPv4 address too short');
  fields.push(val);
  return fields;
}

function hexValue(c: string | undefined): number {
  if (c === undefined) return -1;
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

/** netip.parseIPv6. */
function parseIPv6(input: string): IP {
  let s = input;
  let zone = '';
  const percent = s.indexOf('%');
  if (percent !== -1) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip: number[] = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return new IP(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off]);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12)
        throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16)
        throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end).forEach((b, j) => (ip[i + j] = b));
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] ?? 0;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros');
  return new IP(ip, zone);
}

/** netip.ParseAddr; throws ParseAddrError. */
export function parseAddr(s: string): IP {
  for (const c of s) {
    if (c === '.') return new IP(parseIPv4Fields(s, 0, s.length));
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

function errorMessage(error: unknown): string {
  if (error instanceof ParseAddrError) return error.message;
  throw error;
}

/** The library's parseIPAddr: no zones, no IPv4-mapped IPv6 addresses. */
function parseIPAddr(raw: string): IP {
  let addr: IP;
  try {
    addr = parseAddr(raw);
  } catch (error) {
    throw new CelFunctionError(
      `IP Address ${quote(raw)} parse error during conversion from string: ${errorMessage(error)}`,
    );
  }
  if (addr.zone !== '') throw new CelFunctionError(`IP address ${quote(raw)} with zone value is not allowed`);
  if (addr.is4In6) throw new CelFunctionError(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return addr;
}

/** A netip.Prefix: an address and a prefix length (not masked). */
export class CIDR {
  readonly ip: IP;
  readonly bits: number;

  constructor(ip: IP, bits: number) {
    this.ip = ip;
    this.bits = bits;
  }

  equals(o: CIDR): boolean {
    return this.bits === o.bits && this.ip.equals(o.ip);
  }

  toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }

  contains(ip: IP): boolean {
    if (ip.zone !== '' || ip.is4 !== this.ip.is4) return false;
    return ip.masked(this.bits).equals(this.ip.masked(this.bits));
  }

  overlaps(o: CIDR): boolean {
    if (this.equals(o)) return true;
    if (this.ip.is4 !== o.ip.is4) return false;
    const minBits = Math.min(this.bits, o.bits);
    if (minBits === 0) return true;
    return this.ip.masked(minBits).equals(o.ip.masked(minBits));
  }
}

const PREFIX_PARSE_ERROR = 'network address parse error during conversion from string: ';

/** netip.ParsePrefix; returns Go's error message. */
function parsePrefix(s: string): CIDR | string {
  const prefixError = (msg: string) => `netip.ParsePrefix(${quote(s)}): ${msg}`;
  const slash = s.lastIndexOf('/');
  if (slash < 0) return prefixError("no '/'");
  let ip: IP;
  try {
    ip = parseAddr(s.slice(0, slash));
  } catch (error) {
    return prefixError(errorMessage(error));
  }
  if (!ip.is4 && ip.zone !== '') return prefixError('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  const badBits = prefixError(`bad bits after slash: ${quote(bitsStr)}`);
  if (bitsStr.length > 1 && !/^[1-9]/.test(bitsStr)) return badBits;
  if (!/^[+-]?[0-9]+$/.test(bitsStr)) return badBits;
  const bits = BigInt(bitsStr);
  if (bits < -(2n ** 63n) || bits >= 2n ** 63n) return badBits;
  if (bits < 0n || bits > (ip.is4 ? 32n : 128n)) return prefixError('prefix length out of range');
  return new CIDR(ip, Number(bits));
}

/** The library's parseCIDR. */
function parseCIDR(raw: string): CIDR | string {
  const prefix = parsePrefix(raw);
  if (typeof prefix === 'string') return PREFIX_PARSE_ERROR + prefix;
  if (prefix.ip.is4In6) return `IPv4-mapped IPv6 address ${quote(raw)} is not allowed`;
  return prefix;
}

function cidrOf(s: string): CIDR {
  const cidr = parseCIDR(s);
  if (typeof cidr === 'string') throw new CelFunctionError(PREFIX_PARSE_ERROR + cidr);
  return cidr;
}

function isValid(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (error) {
    if (error instanceof CelFunctionError) return false;
    throw error;
  }
}

/** containsIP's string overload: an unparsable address is `no such overload` in Go (containsCIDR's is the parse error). */
function parsedOrNoOverload<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof CelFunctionError) throw new CelFunctionError('no such overload');
    throw error;
  }
}

function containsCIDR(cidr: CIDR, other: CIDR): boolean {
  return cidr.overlaps(other) && cidr.bits <= other.bits;
}

/**
 * Registers Kubernetes' ip and cidr libraries: `ip`, `isIP`, `ip.isCanonical`, `family`, `isUnspecified`,
 * `isLoopback`, `isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`, `cidr`, `isCIDR`, `containsIP`,
 * `containsCIDR`, `ip()`, `prefixLength`, `masked`, `string`, and `==`.
 *
 * @example
 * registerIpLibraries(env).evaluate("cidr('10.0.0.0/8').containsIP('10.1.2.3')"); // true
 */
export function registerIpLibraries(env: Environment): Environment {
  class IpNamespace {}
  return env
    .registerType('net.IP', IP)
    .registerType('net.CIDR', CIDR)
    .registerType('IpNamespace', IpNamespace)
    .registerConstant('ip', 'IpNamespace', new IpNamespace())
    .registerFunction('ip(string): net.IP', parseIPAddr)
    .registerFunction('isIP(string): bool', (s: string) => isValid(() => parseIPAddr(s)))
    .registerFunction(
      'IpNamespace.isCanonical(string): bool',
      (_: unknown, s: string) => parseIPAddr(s).toString() === s,
    )
    .registerFunction('net.IP.family(): int', (ip: IP) => (ip.is4 ? 4n : 6n))
    .registerFunction('net.IP.isUnspecified(): bool', (ip: IP) => ip.isUnspecified)
    .registerFunction('net.IP.isLoopback(): bool', (ip: IP) => ip.isLoopback)
    .registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: IP) => ip.isLinkLocalMulticast)
    .registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: IP) => ip.isLinkLocalUnicast)
    .registerFunction('net.IP.isGlobalUnicast(): bool', (ip: IP) => ip.isGlobalUnicast)
    .registerFunction('string(net.IP): string', (ip: IP) => ip.toString())
    .registerOperator('net.IP == net.IP', (a: IP, b: IP) => a.equals(b))
    .registerFunction('cidr(string): net.CIDR', cidrOf)
    .registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string')
    .registerFunction('net.CIDR.containsIP(string): bool', (c: CIDR, s: string) =>
      c.contains(parsedOrNoOverload(() => parseIPAddr(s))),
    )
    .registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CIDR, ip: IP) => c.contains(ip))
    .registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDR, s: string) => containsCIDR(c, cidrOf(s)))
    .registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR)
    .registerFunction('net.CIDR.ip(): net.IP', (c: CIDR) => c.ip)
    .registerFunction('net.CIDR.prefixLength(): int', (c: CIDR) => BigInt(c.bits))
    .registerFunction('net.CIDR.masked(): net.CIDR', (c: CIDR) => new CIDR(c.ip.masked(c.bits), c.bits))
    .registerFunction('string(net.CIDR): string', (c: CIDR) => c.toString())
    .registerOperator('net.CIDR == net.CIDR', (a: CIDR, b: CIDR) => a.equals(b));
}
