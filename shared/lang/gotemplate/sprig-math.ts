// sprig's math functions (numeric.go and the arithmetic entries of functions.go), with Go's int64 wrap-around.
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { toFloat64, toInt64 } from './sprig-convert.ts';
import { goInt, goInt64 } from './values.ts';
import type { GoInt } from './values.ts';
import type { GoValue } from './values.ts';

const wrap = (n: bigint): GoInt => goInt64(BigInt.asIntN(64, n));

/** shopspring/decimal values: coef × 10^exp. */
type Decimal = { coef: bigint; exp: number };

function decimalFromFloat(f: number): Decimal {
  if (!Number.isFinite(f))
    throw new FuncError(`Cannot create a Decimal from ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(f));
  if (!m) return { coef: 0n, exp: 0 };
  const frac = m[3] ?? '';
  const coef = BigInt(`${m[1] ?? ''}${m[2] ?? '0'}${frac}`);
  return { coef, exp: Number(m[4] ?? 0) - frac.length };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const exp = Math.min(a.exp, b.exp);
  return [a.coef * pow10(a.exp - exp), b.coef * pow10(b.exp - exp), exp];
}

const decimalOps: Record<string, (a: Decimal, b: Decimal) => Decimal> = {
  add: (a, b) => {
    const [x, y, exp] = align(a, b);
    return { coef: x + y, exp };
  },
  sub: (a, b) => {
    const [x, y, exp] = align(a, b);
    return { coef: x - y, exp };
  },
  mul: (a, b) => ({ coef: a.coef * b.coef, exp: a.exp + b.exp }),
  div: (a, b) => {
    if (b.coef === 0n) throw new FuncError('decimal division by zero');
    const precision = 16;
    const k = a.exp - b.exp + precision;
    const num = k >= 0 ? a.coef * pow10(k) : a.coef;
    const den = k >= 0 ? b.coef : b.coef * pow10(-k);
    let q = num / den;
    const r = num % den;
    const abs = (x: bigint): bigint => (x < 0n ? -x : x);
    if (2n * abs(r) >= abs(den)) q += num < 0n !== den < 0n ? -1n : 1n;
    return { coef: q, exp: -precision };
  },
};

const decimalToFloat = (d: Decimal): number => Number(`${d.coef}e${d.exp}`);

function execDecimalOp(a: GoValue, rest: GoValue[], op: string): number {
  const f = decimalOps[op]!;
  let acc = decimalFromFloat(toFloat64(a));
  for (const x of rest) acc = f(acc, decimalFromFloat(toFloat64(x)));
  return decimalToFloat(acc);
}

function round(a: GoValue, p: GoValue, rOpt: GoValue[]): number {
  const roundOn = rOpt.length > 0 ? (rOpt[0] as number) : 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, Number((p as GoInt).value));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  return (frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)) / pow;
}

function intDiv(a: GoValue, b: GoValue, mod: boolean): GoInt {
  const x = toInt64(a);
  const y = toInt64(b);
  if (y === 0n) throw new FuncError('runtime error: integer divide by zero');
  return wrap(mod ? x % y : x / y);
}

export const mathFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['int64', fn(['any'], ([v]) => goInt64(toInt64(v)))],
  ['int', fn(['any'], ([v]) => goInt(toInt64(v)))],
  ['float64', fn(['any'], ([v]) => toFloat64(v))],
  ['add1', fn(['any'], ([v]) => wrap(toInt64(v) + 1n))],
  ['add', fn([], (vs) => wrap(vs.reduce<bigint>((acc, v) => BigInt.asIntN(64, acc + toInt64(v)), 0n)), 'any')],
  ['sub', fn(['any', 'any'], ([a, b]) => wrap(toInt64(a) - toInt64(b)))],
  ['div', fn(['any', 'any'], ([a, b]) => intDiv(a, b, false))],
  ['mod', fn(['any', 'any'], ([a, b]) => intDiv(a, b, true))],
  [
    'mul',
    fn(
      ['any'],
      ([a, ...vs]) => wrap(vs.reduce<bigint>((acc, v) => BigInt.asIntN(64, acc * toInt64(v)), toInt64(a))),
      'any',
    ),
  ],
  [
    'biggest',
    fn(
      ['any'],
      ([a, ...vs]) => goInt64(vs.reduce<bigint>((acc, v) => (toInt64(v) > acc ? toInt64(v) : acc), toInt64(a))),
      'any',
    ),
  ],
  [
    'max',
    fn(
      ['any'],
      ([a, ...vs]) => goInt64(vs.reduce<bigint>((acc, v) => (toInt64(v) > acc ? toInt64(v) : acc), toInt64(a))),
      'any',
    ),
  ],
  [
    'min',
    fn(
      ['any'],
      ([a, ...vs]) => goInt64(vs.reduce<bigint>((acc, v) => (toInt64(v) < acc ? toInt64(v) : acc), toInt64(a))),
      'any',
    ),
  ],
  [
    'maxf',
    fn(['any'], ([a, ...vs]) => vs.reduce<number>((acc, v) => Math.max(acc, toFloat64(v)), toFloat64(a)), 'any'),
  ],
  [
    'minf',
    fn(['any'], ([a, ...vs]) => vs.reduce<number>((acc, v) => Math.min(acc, toFloat64(v)), toFloat64(a)), 'any'),
  ],
  ['floor', fn(['any'], ([a]) => Math.floor(toFloat64(a)))],
  ['ceil', fn(['any'], ([a]) => Math.ceil(toFloat64(a)))],
  ['round', fn(['any', 'int'], ([a, p, ...r]) => round(a, p, r), 'float64')],
  ['add1f', fn(['any'], ([a]) => execDecimalOp(a, [goInt(1)], 'add'))],
  ['addf', fn([], (vs) => execDecimalOp(0, vs, 'add'), 'any')],
  ['subf', fn(['any'], ([a, ...vs]) => execDecimalOp(a, vs, 'sub'), 'any')],
  ['mulf', fn(['any'], ([a, ...vs]) => execDecimalOp(a, vs, 'mul'), 'any')],
  ['divf', fn(['any'], ([a, ...vs]) => execDecimalOp(a, vs, 'div'), 'any')],
]);
