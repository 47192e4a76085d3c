// The conversions sprig builds on: strval, spf13/cast's ToInt64/ToFloat64, strslice and empty.
import { sprint } from './go-fmt.ts';
import { GoInt, GoMap, GoSlice, GoVersion, stringSlice } from './values.ts';
import type { GoValue } from './values.ts';

/** sprig's strval: strings as they are, Stringers through String(), everything else through %v. */
export function strval(v: GoValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof GoVersion) return v.toString();
  return sprint([v === undefined ? null : v]);
}

/** Go's int64(float64) conversion (truncation; out-of-range values give the minimum int64, as on amd64). */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || Math.abs(f) >= 2 ** 63) return -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

/** strconv.ParseInt(s, 0, 64). */
export function parseIntBase0(s: string): bigint | undefined {
  const m =
    /^([+-]?)(0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|0[oO][0-7](?:_?[0-7])*|0[bB][01](?:_?[01])*|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/.exec(
      s,
    );
  if (!m) return undefined;
  let body = (m[2] ?? '').replace(/_/g, '');
  if (/^0[0-7]+$/.test(body)) body = `0o${body.slice(1)}`;
  const v = (m[1] === '-' ? -1n : 1n) * BigInt(body.replace(/^0O/, '0o').replace(/^0X/, '0x').replace(/^0B/, '0b'));
  if (v < -(2n ** 63n) || v > 2n ** 63n - 1n) return undefined;
  return v;
}

/**
 * spf13/cast v1.10's trimDecimal (the version upstream Cluster API's go.mod resolves): a decimal string keeps only its
 * integer part (`"3.5"` → `"3"`, `".5"` → `"0"`, `"-.5"` → `"-0"`); anything else is left for ParseInt to reject.
 */
function trimDecimal(s: string): string {
  if (!s.includes('.')) return s;
  const m = /^([-+]?\d*)(\.\d*)?$/.exec(s);
  if (!m) return s;
  const int = m[1] ?? '';
  return int === '' || int === '-' || int === '+' ? `${int}0` : int;
}

/** cast.ToInt64 (errors give 0). */
export function toInt64(v: GoValue): bigint {
  if (v instanceof GoInt) return BigInt.asIntN(64, v.value);
  if (typeof v === 'number') return floatToInt64(v);
  if (typeof v === 'string') return parseIntBase0(trimDecimal(v)) ?? 0n;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return 0n;
}

/** strconv.ParseFloat(s, 64). */
export function parseGoFloat(s: string): number | undefined {
  const t = s.replace(/_/g, '');
  if (/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(t)) return Number(t);
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (/^[+-]?0[xX]/.test(t)) {
    const i = parseIntBase0(t);
    return i === undefined ? undefined : Number(i);
  }
  return undefined;
}

/** cast.ToFloat64 (errors give 0). */
export function toFloat64(v: GoValue): number {
  if (v instanceof GoInt) return Number(v.value);
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return parseGoFloat(v) ?? 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** sprig's strslice: a list as []string (nil elements dropped), anything else as a one-element list. */
export function strslice(v: GoValue): GoSlice {
  if (v instanceof GoSlice) {
    if (v.elem === 'string') return v;
    return stringSlice(v.items.filter((s) => s !== null && s !== undefined).map((s) => strval(s)));
  }
  if (v === null || v === undefined) return stringSlice([]);
  return stringSlice([strval(v)]);
}

/** sprig's empty: the zero value of its type (or nil). */
export function empty(v: GoValue): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.length === 0;
  if (typeof v === 'boolean') return !v;
  if (typeof v === 'number') return v === 0;
  if (v instanceof GoInt) return v.value === 0n;
  if (v instanceof GoSlice) return v.items.length === 0;
  if (v instanceof GoMap) return v.entries.size === 0;
  return false;
}

/** Go's reflect Kind check sprig's list functions make: a slice, or an error naming the kind. */
export function kindName(v: GoValue): string {
  if (v === undefined || v === null) return 'invalid';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoMap) return 'map';
  if (v instanceof GoSlice) return 'slice';
  return 'ptr';
}
