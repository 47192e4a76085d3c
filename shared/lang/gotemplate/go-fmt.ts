// Go's fmt package for the values templates handle: Sprint, Sprintln, Sprintf and %v of float64, slices and maps.
import { GoInt, GoSlice, GoVersion, goTypeName, sortedKeys } from './values.ts';
import type { GoValue } from './values.ts';
import { checkStringLength } from './limits.ts';
import { quote, quoteRune } from '#shared/lang/go/strconv.ts';
import { formatFloat as strconvFormatFloat } from '#shared/lang/go/format-float.ts';
import type { FloatFormat } from '#shared/lang/go/format-float.ts';

type Flags = {
  minus: boolean;
  plus: boolean;
  space: boolean;
  sharp: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
};

const noFlags = (): Flags => ({
  minus: false,
  plus: false,
  space: false,
  sharp: false,
  zero: false,
  width: undefined,
  prec: undefined,
});

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  let out = '';
  args.forEach((arg, i) => {
    const isString = typeof arg === 'string';
    if (i > 0 && !isString && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(arg, 'v', noFlags(), 0);
  });
  return out;
}

/** fmt.Sprintln: spaces always, newline at the end. */
export function sprintln(args: readonly GoValue[]): string {
  return args.map((arg) => formatValue(arg, 'v', noFlags(), 0)).join(' ') + '\n';
}

const tooLarge = (n: number): boolean => n > 1e6 || n < -1e6;

/** fmt's parsenum: decimal digits from `start`; an absurdly long number is not a number. */
function parseNum(s: string, start: number, end: number): { num: number; isNum: boolean; next: number } {
  if (start >= end) return { num: 0, isNum: false, next: end };
  let num = 0;
  let isNum = false;
  let i = start;
  for (; i < end && s[i]! >= '0' && s[i]! <= '9'; i++) {
    if (tooLarge(num)) return { num: 0, isNum: false, next: end };
    num = num * 10 + Number(s[i]);
    isNum = true;
  }
  return { num, isNum, next: i };
}

/** fmt's intFromArg: a `*` width or precision taken from the arguments. */
function intFromArg(args: readonly GoValue[], argNum: number): { num: number; isInt: boolean; argNum: number } {
  if (argNum >= args.length) return { num: 0, isInt: false, argNum };
  const a = args[argNum];
  let num = 0;
  let isInt = false;
  if (a instanceof GoInt && a.value >= -(2n ** 63n) && a.value < 2n ** 63n) {
    num = Number(a.value);
    isInt = true;
  }
  if (tooLarge(num)) return { num: 0, isInt: false, argNum: argNum + 1 };
  return { num, isInt, argNum: argNum + 1 };
}

/** fmt.Sprintf with the verbs, flags and explicit argument indexes (`%[2]v`) of Go's fmt, following doPrintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  let out = '';
  let argNum = 0;
  let reordered = false;
  let goodArgNum: boolean;
  const end = format.length;
  // fmt's argNumber: an optional `[n]` at i selects argument n-1.
  const argNumber = (i: number): { argNum: number; i: number; found: boolean } => {
    if (i >= end || format[i] !== '[') return { argNum, i, found: false };
    reordered = true;
    let parsed = { index: 0, wid: 1, ok: false };
    if (end - i >= 3) {
      const close = format.indexOf(']', i + 1);
      if (close >= 0) {
        const n = parseNum(format, i + 1, close);
        parsed =
          !n.isNum || n.next !== close
            ? { index: 0, wid: close - i + 1, ok: false }
            : { index: n.num - 1, wid: close - i + 1, ok: true };
      }
    }
    if (parsed.ok && parsed.index >= 0 && parsed.index < args.length)
      return { argNum: parsed.index, i: i + parsed.wid, found: true };
    goodArgNum = false;
    return { argNum, i: i + parsed.wid, found: parsed.ok };
  };
  let i = 0;
  while (i < end) {
    goodArgNum = true;
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f = noFlags();
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = true;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    let idx = argNumber(i);
    argNum = idx.argNum;
    i = idx.i;
    let afterIndex = idx.found;
    if (i < end && format[i] === '*') {
      i++;
      const w = intFromArg(args, argNum);
      argNum = w.argNum;
      if (w.isInt) {
        f.width = w.num;
        if (f.width < 0) {
          f.minus = true;
          f.width = -f.width;
        }
      } else out += '%!(BADWIDTH)';
      afterIndex = false;
    } else {
      const w = parseNum(format, i, end);
      i = w.next;
      if (w.isNum) {
        f.width = w.num;
        if (afterIndex) goodArgNum = false; // "%[3]2d"
      }
    }
    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false; // "%[3].2d"
      idx = argNumber(i);
      argNum = idx.argNum;
      i = idx.i;
      afterIndex = idx.found;
      if (i < end && format[i] === '*') {
        i++;
        const p = intFromArg(args, argNum);
        argNum = p.argNum;
        f.prec = p.isInt && p.num >= 0 ? p.num : undefined;
        if (!p.isInt) out += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const p = parseNum(format, i, end);
        i = p.next;
        f.prec = p.isNum ? p.num : 0;
      }
    }
    // NOTE: bounded like every template value (see limits.ts); Go builds a string as wide as it is asked to.
    checkStringLength(Math.max(f.width ?? 0, f.prec ?? 0));
    if (!afterIndex) {
      idx = argNumber(i);
      argNum = idx.argNum;
      i = idx.i;
    }
    if (i >= end) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`;
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if (f.minus) f.zero = false;
    // NOTE: for %v, + asks for struct field names (plusV), not a sign; JSON data has no structs, so it is dropped.
    if (verb === 'v') f.plus = false;
    out += formatValue(args[argNum++], verb, f, 0);
  }
  if (!reordered && argNum < args.length) {
    const extra = args
      .slice(argNum)
      .map((a) => (a === undefined || a === null ? '<nil>' : `${goTypeName(a)}=${formatValue(a, 'v', noFlags(), 0)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

/** Formats one operand with a verb, as fmt's printArg does. */
export function formatValue(v: GoValue, verb: string, f: Flags, depth: number): string {
  if (verb === 'T') return pad(goTypeName(v), f);
  if (v === undefined || v === null) {
    if (f.sharp && verb === 'v' && depth > 0) return 'interface {}(nil)';
    // NOTE: a nil inside a map or slice prints as <nil> whatever the verb (fmt's printValue); only a nil operand is
    // a bad verb.
    return verb === 'v' || depth > 0 ? pad('<nil>', f) : badVerb(v, verb, f);
  }
  if (f.sharp && verb === 'v' && typeof v === 'string') return pad(quote(v), f);
  if (v instanceof GoVersion) {
    if ('vsxXq'.includes(verb)) return formatString(v.toString(), verb, f);
    return badVerb(v, verb, f);
  }
  if (typeof v === 'boolean') return verb === 'v' || verb === 't' ? pad(String(v), f) : badVerb(v, verb, f);
  if (typeof v === 'number') {
    if ('vbgGxXfFeE'.includes(verb)) return formatFloat(v, verb, f);
    return badVerb(v, verb, f);
  }
  if (typeof v === 'string') return 'vsxXq'.includes(verb) ? formatString(v, verb, f) : badVerb(v, verb, f);
  if (v instanceof GoInt) return formatInteger(v, verb, f);
  if (v instanceof GoSlice) {
    if (f.sharp && verb === 'v') {
      if (v.isNil) return `[]${v.elem}(nil)`;
      return `[]${v.elem}{${v.items.map((item) => formatValue(item, verb, f, depth + 1)).join(', ')}}`;
    }
    return `[${v.items.map((item) => formatValue(item, verb, f, depth + 1)).join(' ')}]`;
  }
  const keys = sortedKeys(v);
  if (f.sharp && verb === 'v') {
    if (v.isNil) return `map[string]${v.elem}(nil)`;
    return `map[string]${v.elem}{${keys.map((k) => `${formatValue(k, verb, f, depth + 1)}:${formatValue(v.entries.get(k), verb, f, depth + 1)}`).join(', ')}}`;
  }
  return `map[${keys.map((k) => `${formatValue(k, verb, f, depth + 1)}:${formatValue(v.entries.get(k), verb, f, depth + 1)}`).join(' ')}]`;
}

/** fmt's badVerb: `%!verb(type=value)`, the value printed with %v under the same width, precision and flags. */
function badVerb(v: GoValue, verb: string, f: Flags): string {
  if (v === undefined || v === null) return `%!${verb}(<nil>)`;
  // NOTE: Go keeps the flags but not #v's Go syntax, which only the verb v itself turns on.
  return `%!${verb}(${goTypeName(v)}=${formatValue(v, 'v', { ...f, sharp: false }, 0)})`;
}

function pad(s: string, f: Flags, zeroOk = true): string {
  const width = f.width ?? 0;
  // NOTE: no string has fewer code points than width/2 UTF-16 units; counting them is the slow part.
  if (s.length >= 2 * width) return s;
  const n = [...s].length;
  if (n >= width) return s;
  const fill = (f.zero && zeroOk ? '0' : ' ').repeat(width - n);
  return f.minus ? s + ' '.repeat(width - n) : fill + s;
}

/** Pads a number, putting zero padding after the sign. */
function padNumber(s: string, f: Flags): string {
  const width = f.width ?? 0;
  if (!f.zero || f.minus || s.length >= width) return pad(s, { ...f, zero: false });
  const sign = s[0] === '-' || s[0] === '+' || s[0] === ' ' ? (s[0] ?? '') : '';
  return sign + '0'.repeat(width - s.length) + s.slice(sign.length);
}

function formatString(s: string, verb: string, f: Flags): string {
  let str = s;
  if (f.prec !== undefined) str = [...str].slice(0, f.prec).join('');
  switch (verb) {
    case 'v':
    case 's':
      return pad(str, f);
    case 'q':
      return pad(f.sharp && !str.includes('`') ? `\`${str}\`` : quote(str), f);
    default: {
      const bytes = [...new TextEncoder().encode(str)].map((b) => b.toString(16).padStart(2, '0'));
      const hex = bytes.join(f.space ? ' ' : '');
      return pad(verb === 'X' ? hex.toUpperCase() : hex, f);
    }
  }
}

function formatInteger(v: GoInt, verb: string, f: Flags): string {
  const n = v.value;
  const neg = n < 0n;
  const abs = neg ? -n : n;
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'v':
    case 'd':
      digits = abs.toString(10);
      break;
    case 'b':
      digits = abs.toString(2);
      break;
    case 'o':
    case 'O':
      digits = abs.toString(8);
      if (verb === 'O') prefix = '0o';
      else if (f.sharp) prefix = '0';
      break;
    case 'x':
      digits = abs.toString(16);
      if (f.sharp) prefix = '0x';
      break;
    case 'X':
      digits = abs.toString(16).toUpperCase();
      if (f.sharp) prefix = '0X';
      break;
    case 'c':
      return pad(String.fromCodePoint(validRune(n)), f);
    case 'q':
      return pad(quoteRune(validRune(n)), f);
    case 'U':
      return pad(`U+${abs.toString(16).toUpperCase().padStart(4, '0')}`, f);
    default:
      return badVerb(v, verb, f);
  }
  if (f.prec !== undefined) {
    digits = f.prec === 0 && abs === 0n ? '' : digits.padStart(f.prec, '0');
  } else if (f.zero && !f.minus && f.width !== undefined) {
    const signLen = neg || f.plus || f.space ? 1 : 0;
    digits = digits.padStart(f.width - signLen - prefix.length, '0');
  }
  const sign = neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  return pad(sign + prefix + digits, { ...f, zero: false });
}

/** fmt's fmtFloat: strconv.FormatFloat of the magnitude (%e and %f default to 6 digits, %g and %v to the shortest). */
function formatFloat(v: number, verb: string, f: Flags): string {
  let s: string;
  if (Number.isNaN(v)) s = 'NaN';
  else if (!Number.isFinite(v)) s = v > 0 ? '+Inf' : '-Inf';
  else {
    const neg = v < 0 || Object.is(v, -0);
    const format: FloatFormat =
      verb === 'e' || verb === 'E' || verb === 'G' ? verb : verb === 'f' || verb === 'F' ? 'f' : 'g';
    const prec = verb === 'v' ? -1 : (f.prec ?? (format === 'e' || format === 'E' || format === 'f' ? 6 : -1));
    s = (neg ? '-' : f.plus ? '+' : f.space ? ' ' : '') + strconvFormatFloat(Math.abs(v), format, prec);
    return padNumber(s, f);
  }
  if (f.plus && s === 'NaN') s = '+NaN';
  return pad(s, { ...f, zero: false });
}

/** fmt's fmtC/fmtQc: an integer that is no valid rune (negative, too large, a surrogate) prints as U+FFFD. */
function validRune(n: bigint): number {
  if (n < 0n || n > 0x10ffffn || (n >= 0xd800n && n <= 0xdfffn)) return 0xfffd;
  return Number(n);
}

/** Sprint of a single value as `{{ }}` prints it (after the caller has handled `<no value>`). */
export function printOne(v: GoValue): string {
  return formatValue(v, 'v', noFlags(), 0);
}
