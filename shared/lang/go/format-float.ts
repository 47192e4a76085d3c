// Go's strconv.FormatFloat for float64, the one home for printing a float as Go does: fmt's verbs in the Go-template
// engine, the numbers in Kubernetes-style validation messages and the oracle tests all call it.

/** The formats of strconv.FormatFloat implemented here: %e, %E, %f, %g, %G. */
export type FloatFormat = 'e' | 'E' | 'f' | 'g' | 'G';

/**
 * strconv.FormatFloat(f, fmt, prec, 64): `prec` digits after the point (`e`, `f`) or significant digits (`g`), or the
 * fewest digits that read back as `f` when `prec` is negative. Rounding is exact, halves to even.
 *
 * @example
 * formatFloat(1e6, 'g', -1); // '1e+06'
 * formatFloat(123456789, 'e', -1); // '1.23456789e+08'
 * formatFloat(2.5, 'f', 0); // '2'
 */
export function formatFloat(f: number, fmt: FloatFormat, prec: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  const sign = f < 0 || Object.is(f, -0) ? '-' : '';
  const abs = Math.abs(f);
  switch (fmt) {
    case 'e':
    case 'E': {
      const { digits, exp } = prec < 0 ? shortest(abs) : significant(abs, prec + 1);
      const body = expForm(digits, exp);
      return sign + (fmt === 'E' ? body.toUpperCase() : body);
    }
    case 'f':
      return sign + (prec < 0 ? pointForm(shortest(abs)) : fixedForm(abs, prec));
    default: {
      const body = gForm(abs, prec < 0 ? undefined : prec);
      return sign + (fmt === 'G' ? body.toUpperCase() : body);
    }
  }
}

/** The shortest digits that read back as abs (JavaScript's own shortest form) and the decimal exponent of the first. */
function shortest(abs: number): { digits: string; exp: number } {
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(abs.toExponential());
  return { digits: (m?.[1] ?? '') + (m?.[2] ?? ''), exp: Number(m?.[3] ?? 0) };
}

/** `nd` significant digits of abs (rounded exactly, halves to even) and the decimal exponent of the first. */
function significant(abs: number, nd: number): { digits: string; exp: number } {
  if (abs === 0) return { digits: '0'.repeat(nd), exp: 0 };
  let exp = Number(/e([+-]\d+)$/.exec(abs.toExponential())?.[1] ?? 0);
  let digits = roundScaled(abs, nd - 1 - exp).toString();
  if (digits.length > nd) {
    exp++;
    digits = roundScaled(abs, nd - 1 - exp).toString();
  }
  return { digits, exp };
}

/** Rounds abs × 10^p to an integer exactly, halves to even, as strconv does. */
function roundScaled(abs: number, p: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, abs);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (bexp === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = bexp - 1075;
  }
  let num = mant * (p >= 0 ? 10n ** BigInt(p) : 1n);
  let den = p < 0 ? 10n ** BigInt(-p) : 1n;
  if (e2 >= 0) num <<= BigInt(e2);
  else den <<= BigInt(-e2);
  const q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) return q + 1n;
  return q;
}

/** %e of the digits: one digit before the point, an exponent of at least two digits. */
function expForm(digits: string, exp: number): string {
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** %f of the digits: the point placed after `exp + 1` of them, padded with zeros either side. */
function pointForm({ digits, exp }: { digits: string; exp: number }): string {
  const dp = digits === '0' ? 1 : exp + 1;
  if (dp <= 0) return `0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return digits + '0'.repeat(dp - digits.length);
  return `${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

/** %f with exact decimal rounding (JavaScript's toFixed rounds halves up). */
function fixedForm(abs: number, prec: number): string {
  const digits = roundScaled(abs, prec)
    .toString()
    .padStart(prec + 1, '0');
  return prec > 0 ? `${digits.slice(0, -prec)}.${digits.slice(-prec)}` : digits;
}

/** %g: shortest (prec undefined) or `prec` significant digits; %e form when the exponent is < -4 or >= the precision. */
function gForm(abs: number, prec: number | undefined): string {
  const p = prec === 0 ? 1 : prec;
  let { digits, exp } = p === undefined ? shortest(abs) : significant(abs, p);
  digits = digits.replace(/0+$/, '') || '0';
  if (abs === 0) {
    digits = '0';
    exp = 0;
  }
  const dp = exp + 1;
  let eprec = p ?? 6;
  if (p !== undefined && eprec > digits.length && digits.length >= dp) eprec = digits.length;
  if (exp < -4 || exp >= eprec) return expForm(digits, exp);
  return pointForm({ digits, exp });
}
