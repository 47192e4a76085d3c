// The string formats the API server checks in CRD (and so ClusterClass variable) schemas: kube-openapi's strfmt
// registry restricted to apiextensions' supported formats. Unknown formats are ignored, as upstream does.
import { compileRegexp } from '#shared/lang/go/regexp.ts';
import { parseDuration } from '#shared/lang/go/time.ts';
import { parseRequestURI } from '#shared/lang/go/url.ts';

function parseIPv4(text: string, sloppy: boolean): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (sloppy || p === '0' || !p.startsWith('0')));
}

function parseIPv6(text: string, sloppy: boolean): boolean {
  if (!text.includes(':')) return false;
  let body = text;
  let groupsAvailable = 8;
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!parseIPv4(tail, sloppy)) return false;
    body = `${body.slice(0, lastColon + 1)}0`;
    groupsAvailable = 7;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groupOk = (g: string) => /^[0-9A-Fa-f]{1,4}$/.test(g);
  const count = (half: string) => (half === '' ? [] : half.split(':'));
  if (halves.length === 1) {
    const groups = count(body);
    return groups.length === groupsAvailable && groups.every(groupOk);
  }
  const [left = '', right = ''] = halves;
  const groups = [...count(left), ...count(right)];
  return groups.length < groupsAvailable && groups.every(groupOk);
}

/** Go's net.ParseIP (strict) or netutils.ParseIPSloppy (leading zeros allowed in IPv4 parts). */
export function isIP(text: string, sloppy = false): boolean {
  return parseIPv4(text, sloppy) || parseIPv6(text, sloppy);
}

function isCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const ip = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return false;
  if (parseIPv4(ip, true)) return Number(bits) <= 32;
  return parseIPv6(ip, true) && Number(bits) <= 128;
}

function isMAC(text: string): boolean {
  const sizes = [6, 8, 20];
  if (text.length < 14) return false;
  if (text[2] === ':' || text[2] === '-') {
    const parts = text.split(text[2]);
    return sizes.includes(parts.length) && parts.every((p) => /^[0-9A-Fa-f]{2}$/.test(p));
  }
  if (text[4] === '.') {
    const parts = text.split('.');
    return sizes.includes(parts.length * 2) && parts.every((p) => /^[0-9A-Fa-f]{4}$/.test(p));
  }
  return false;
}

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Go's time.Parse("2006-01-02", s). */
function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const max = month === 2 && leap ? 29 : (daysInMonth[month - 1] ?? 31);
  return day <= max;
}

/** kube-openapi's IsDateTime (lenient RFC 3339). */
function isDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

const durationUnits: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** Go's time.ParseDuration, or kube-openapi's Scala-like fallback (`3 days`, `5 seconds`). */
function isDuration(text: string): boolean {
  if (parseDuration(text) !== undefined) return true;
  for (const match of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (match[2] ?? '').trim().toLowerCase();
    for (const variants of durationUnits) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
function isRequestURI(text: string): boolean {
  try {
    parseRequestURI(text);
    return true;
  } catch {
    return false;
  }
}

const emailAtom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const emailDotAtom = `${emailAtom}(\\.${emailAtom})*`;
const emailQuoted = '"([^"\\\\]|\\\\.)*"';
const emailAddress = `(${emailDotAtom}|${emailQuoted})@(${emailDotAtom}|\\[[^\\]]*\\])`;
// NOTE: linear time (Go's regexp): with JavaScript's RegExp, a value of many spaces took quadratic time.
const emailPattern = compileRegexp(`^\\s*(${emailAddress}|[^<>]*<${emailAddress}>)\\s*$`);

/** Go's net/mail.ParseAddress: `local@domain` or `Name <local@domain>`. */
function isEmail(text: string): boolean {
  return emailPattern.matchString(text);
}

const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

const encoder = new TextEncoder();
const utf8Length = (text: string) => encoder.encode(text).length;

function isHostname(text: string): boolean {
  return hostnamePattern.test(text) && utf8Length(text) <= 255 && text.split('.').every((p) => utf8Length(p) <= 63);
}

function isISBN10(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
  sum += s[9] === 'X' ? 100 : 10 * Number(s[9]);
  return sum % 11 === 0;
}

function isISBN13(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

function isCreditCard(text: string): boolean {
  const s = text.replace(/[^0-9]/g, '');
  const brands =
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
  if (!brands.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    let d = Number(s[s.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const uuidAny = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;

/** Checks per (normalised) format name: what kube-openapi validates and apiextensions keeps. */
const formatCheckers: Readonly<Record<string, (text: string) => boolean>> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => isIP(s, true) && s.includes('.'),
  ipv6: (s) => isIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => uuidAny.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => uuid4.test(s),
  uuid5: (s) => uuid5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      s,
    ),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  password: () => true,
  date: isDate,
  datetime: isDateTime,
  duration: isDuration,
};

/** The checker for a string format, or undefined when the API server ignores that format. */
export function stringFormatChecker(format: string): ((text: string) => boolean) | undefined {
  return formatCheckers[format.replaceAll('-', '')];
}

/** The string formats that are checked (normalised names, without dashes). */
export const supportedStringFormats: readonly string[] = Object.keys(formatCheckers).sort();
