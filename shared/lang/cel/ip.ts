// The Kubernetes CEL ip and cidr libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go) over Go's net/netip
// (shared/lang/go/netip.ts), with Go's error messages.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { quote } from '#shared/lang/go/strconv.ts';
import { IP, ParseAddrError, parseAddr } from '#shared/lang/go/netip.ts';

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
