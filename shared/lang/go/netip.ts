// Go's net/netip addresses: ParseAddr with Go's error messages, and the predicates and printing of an Addr.
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

/** netip.ParseAddr's error, worded as Go words it. */
export class ParseAddrError extends Error {}

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
