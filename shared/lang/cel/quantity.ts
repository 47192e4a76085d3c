// The Kubernetes CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go) over a re-implementation of
// apimachinery's resource.Quantity: its parser (rounding to nano, binary values capped at the int64 maximum), its two
// representations (an int64 with a decimal scale, or an arbitrary-precision decimal) and the arithmetic on them, since
// isInteger/asInteger and asApproximateFloat depend on which representation Go ends up with.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError, fitsInt64 } from '#shared/lang/cel/function-error.ts';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
const ERR_NUMERIC = 'unable to parse numeric part of quantity';
const ERR_SUFFIX = "unable to parse quantity's suffix";
const INT64_MAX = 2n ** 63n - 1n;
const MAX_INT64_FACTORS = 18;

/** resource's int64Amount: value × 10^scale. */
type Int64Amount = { value: bigint; scale: number };
/** inf.Dec: unscaled × 10^-scale. Mutable and shared like Go's *inf.Dec. */
type Dec = { unscaled: bigint; scale: number };

/** Digits of arithmetic beyond which a quantity is refused (Go would compute with numbers of billions of digits). */
const MAX_DIGITS = 10_000;

function pow10(n: number): bigint {
  if (n > MAX_DIGITS) throw new CelFunctionError(`quantity arithmetic beyond 10^${MAX_DIGITS} is not supported`);
  return 10n ** BigInt(n);
}

/** value × 10^n when it fits an int64 (n >= 0), computed without huge intermediates. */
function scaledInt64(value: bigint, n: number): bigint | undefined {
  if (value === 0n) return 0n;
  if (n > 19) return undefined;
  const scaled = value * 10n ** BigInt(n);
  return fitsInt64(scaled) ? scaled : undefined;
}

function decFromInt(a: Int64Amount): Dec {
  return { unscaled: a.value, scale: -a.scale };
}

/** Two decimals at the same (larger) scale. */
function aligned(a: Dec, b: Dec): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.unscaled * pow10(scale - a.scale), b.unscaled * pow10(scale - b.scale), scale];
}

function sign(x: bigint): number {
  return x > 0n ? 1 : x < 0n ? -1 : 0;
}

/** The position of the leading digit: values with a larger one have a larger magnitude. */
function magnitude(d: Dec): number {
  return (d.unscaled < 0n ? -d.unscaled : d.unscaled).toString().length - d.scale;
}

/** inf.Dec.Cmp, exact, comparing magnitudes first so that distant scales need no huge numbers. */
function decCmp(a: Dec, b: Dec): number {
  const sa = sign(a.unscaled);
  const sb = sign(b.unscaled);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = magnitude(a);
  const mb = magnitude(b);
  if (ma !== mb) return (ma > mb ? 1 : -1) * sa;
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** int64Amount.Add: false (and `a` untouched) when the result does not fit an int64. */
function int64AmountAdd(a: Int64Amount, b: Int64Amount): boolean {
  if (b.value === 0n) return true;
  if (a.value === 0n) {
    a.value = b.value;
    a.scale = b.scale;
    return true;
  }
  if (a.scale === b.scale) {
    if (!fitsInt64(a.value + b.value)) return false;
    a.value += b.value;
  } else if (a.scale > b.scale) {
    const c = scaledInt64(a.value, a.scale - b.scale);
    if (c === undefined || !fitsInt64(c + b.value)) return false;
    a.scale = b.scale;
    a.value = c + b.value;
  } else {
    const c = scaledInt64(b.value, b.scale - a.scale);
    if (c === undefined || !fitsInt64(a.value + c)) return false;
    a.value += c;
  }
  return true;
}

/** Go's math.Pow10, including its rounding for large exponents. */
function goPow10(n: number): number {
  const tab = (i: number) => Number(`1e${i}`);
  if (n >= 0 && n <= 308) return Number(`1e${Math.floor(n / 32) * 32}`) * tab(n % 32);
  if (n >= -323 && n <= 0) return Number(`1e-${Math.floor(-n / 32) * 32}`) / tab(-n % 32);
  return n > 0 ? Infinity : 0;
}

/** A resource.Quantity: exactly one of `i` (int64Amount) or `d` (inf.Dec) is in use. */
export class Quantity {
  i: Int64Amount;
  d: Dec | undefined;

  constructor(i: Int64Amount, d?: Dec) {
    this.i = i;
    this.d = d;
  }

  /** Go's `copy := *q`: a new int64Amount, the same *inf.Dec. */
  copy(): Quantity {
    return new Quantity({ ...this.i }, this.d);
  }

  /** Quantity.AsDec: converts the receiver in place. */
  asDec(): Dec {
    if (this.d === undefined) {
      this.d = decFromInt(this.i);
      this.i = { value: 0n, scale: 0 };
    }
    return this.d;
  }

  /** The decimal value of a copy (Go passes the argument by value). */
  decValue(): Dec {
    return this.d ?? decFromInt(this.i);
  }

  sign(): number {
    return this.d ? sign(this.d.unscaled) : sign(this.i.value);
  }

  cmp(y: Quantity): number {
    if (this.d === undefined && y.d === undefined) return decCmp(decFromInt(this.i), decFromInt(y.i));
    return decCmp(this.asDec(), y.decValue());
  }

  asInt64(): bigint | undefined {
    if (this.d) return undefined;
    const { value, scale } = this.i;
    if (scale === 0) return value;
    if (scale < 0) return undefined;
    return scaledInt64(value, scale);
  }

  asApproximateFloat64(): number {
    const [base, exponent] = this.d ? [Number(this.d.unscaled), -this.d.scale] : [Number(this.i.value), this.i.scale];
    return exponent === 0 ? base : base * goPow10(exponent);
  }

  /** Quantity.Add on the receiver (a copy in the library; its *inf.Dec may be shared). */
  add(y: Quantity): void {
    if (this.d === undefined && y.d === undefined && int64AmountAdd(this.i, y.i)) return;
    const d = this.toDec();
    const [a, b, scale] = aligned(d, y.decValue());
    d.unscaled = a + b;
    d.scale = scale;
  }

  sub(y: Quantity): void {
    // NOTE: Go negates the int64 (wrapping the minimum onto itself).
    const negated = { value: BigInt.asIntN(64, -y.i.value), scale: y.i.scale };
    if (this.d === undefined && y.d === undefined && int64AmountAdd(this.i, negated)) return;
    const d = this.toDec();
    const [a, b, scale] = aligned(d, y.decValue());
    d.unscaled = a - b;
    d.scale = scale;
  }

  private toDec(): Dec {
    return this.asDec();
  }
}

type Parts = { positive: boolean; value: string; num: string; denom: string; suffix: string };

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** resource.parseQuantityString. */
function parseQuantityString(str: string): Parts | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: '' };
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i] ?? '')) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  for (i = pos; i < end; i++) if (!isDigit(str[i])) return undefined;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const decimalSuffixes: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** strconv.ParseInt(s, 10, 64). */
function goParseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return fitsInt64(v) ? v : undefined;
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (Object.hasOwn(decimalSuffixes, suffix))
    return { base: 10, exponent: decimalSuffixes[suffix] ?? 0, format: 'DecimalSI' };
  if (Object.hasOwn(binarySuffixes, suffix))
    return { base: 2, exponent: binarySuffixes[suffix] ?? 0, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'E' || suffix[0] === 'e')) {
    const parsed = goParseInt64(suffix.slice(1));
    if (parsed === undefined) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** inf.Dec.SetString: optional sign, digits with at most one point. */
function decFromString(value: string): Dec | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || `${m[2] ?? ''}${m[3] ?? ''}` === '') return undefined;
  const digits = `${m[2] ?? ''}${m[3] ?? ''}`;
  return { unscaled: BigInt(`${m[1] ?? ''}${digits}`), scale: m[3] === undefined ? 0 : m[3].length };
}

/** inf.Dec.Round(x, s, RoundUp) of a non-negative value: away from zero. */
function roundUp(d: Dec, scale: number): Dec {
  if (d.scale <= scale) return { unscaled: d.unscaled * pow10(scale - d.scale), scale };
  // NOTE: a value below one unit of the target scale rounds up to exactly one unit.
  if (magnitude(d) < -scale) return { unscaled: 1n, scale };
  const divisor = pow10(d.scale - scale);
  const q = d.unscaled / divisor;
  return { unscaled: d.unscaled % divisor === 0n ? q : q + 1n, scale };
}

/**
 * resource.ParseQuantity: the Quantity, or Go's error message.
 *
 * @example
 * parseQuantity('1.5Gi'); // Quantity { d: { unscaled: 1610612736000000000n, scale: 9 } }
 */
export function parseQuantity(str: string): Quantity | string {
  if (str.length === 0) return ERR_FORMAT_WRONG;
  if (str === '0') return new Quantity({ value: 0n, scale: 0 });
  const parts = parseQuantityString(str);
  if (!parts) return ERR_FORMAT_WRONG;
  const { positive, value, num, denom } = parts;
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) return ERR_SUFFIX;
  const { base, exponent, format } = suffix;
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    // NOTE: Go's scales are int32 and wrap.
    scale = (scale - denom.length) | 0;
    if (scale >= -9) {
      const shifted = BigInt(num + denom);
      const result = shifted * mantissa;
      if (fitsInt64(result)) return new Quantity({ value: positive ? result : -result, scale });
    }
  }
  const parsed = decFromString(value);
  if (!parsed) return ERR_NUMERIC;
  let amount: Dec =
    base === 10
      ? { unscaled: parsed.unscaled, scale: (parsed.scale + (-exponent | 0)) | 0 }
      : { unscaled: parsed.unscaled * (1n << BigInt(exponent)), scale: parsed.scale };
  const negative = amount.unscaled < 0n;
  if (negative) amount = { ...amount, unscaled: -amount.unscaled };
  if (amount.unscaled !== 0n) amount = roundUp(amount, 9);
  if (format === 'BinarySI' && decCmp(amount, { unscaled: INT64_MAX, scale: 0 }) > 0)
    amount = { unscaled: INT64_MAX, scale: 0 };
  if (negative) amount = { ...amount, unscaled: -amount.unscaled };
  return new Quantity({ value: 0n, scale: 0 }, amount);
}

function quantityOf(s: string): Quantity {
  const q = parseQuantity(s);
  if (typeof q === 'string') throw new CelFunctionError(q);
  return q;
}

function added(q: Quantity, y: Quantity): Quantity {
  const copy = q.copy();
  copy.add(y);
  return copy;
}

function subtracted(q: Quantity, y: Quantity): Quantity {
  const copy = q.copy();
  copy.sub(y);
  return copy;
}

const intQuantity = (n: bigint) => new Quantity({ value: n, scale: 0 });

/**
 * Registers Kubernetes' quantity library: `quantity`, `isQuantity`, `sign`, `isGreaterThan`, `isLessThan`,
 * `compareTo`, `asApproximateFloat`, `asInteger`, `isInteger`, `add` and `sub` (quantity or int), and `==`.
 *
 * @example
 * registerQuantityLibrary(env).evaluate("quantity('1Gi').isGreaterThan(quantity('1G'))"); // true
 */
export function registerQuantityLibrary(env: Environment): Environment {
  return env
    .registerType('Quantity', Quantity)
    .registerFunction('quantity(string): Quantity', quantityOf)
    .registerFunction('isQuantity(string): bool', (s: string) => typeof parseQuantity(s) !== 'string')
    .registerFunction('sign(Quantity): int', (q: Quantity) => BigInt(q.sign()))
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (q: Quantity, y: Quantity) => q.cmp(y.copy()) === 1)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (q: Quantity, y: Quantity) => q.cmp(y.copy()) === -1)
    .registerFunction('Quantity.compareTo(Quantity): int', (q: Quantity, y: Quantity) => BigInt(q.cmp(y.copy())))
    .registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat64())
    .registerFunction('Quantity.asInteger(): int', (q: Quantity) => {
      const v = q.asInt64();
      if (v === undefined) throw new CelFunctionError('cannot convert value to integer');
      return v;
    })
    .registerFunction('Quantity.isInteger(): bool', (q: Quantity) => q.asInt64() !== undefined)
    .registerFunction('Quantity.add(Quantity): Quantity', added)
    .registerFunction('Quantity.add(int): Quantity', (q: Quantity, n: bigint) => added(q, intQuantity(n)))
    .registerFunction('Quantity.sub(Quantity): Quantity', subtracted)
    .registerFunction('Quantity.sub(int): Quantity', (q: Quantity, n: bigint) => subtracted(q, intQuantity(n)))
    .registerOperator('Quantity == Quantity', (q: Quantity, y: Quantity) => q.copy().cmp(y.copy()) === 0);
}
