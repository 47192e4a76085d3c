// JSON helpers for variable values: structural equality, canonical (sorted-key) rendering and Go-style printing.
import { formatFloat } from '#shared/lang/go/format-float.ts';

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep equality of two JSON values (numbers by value, objects regardless of key order).
 *
 * @example
 * jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }); // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/** A deep copy of a JSON value with object keys sorted, so output is deterministic. */
export function canonicalizeJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => canonicalizeJson(item)) as T;
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonicalizeJson(value[key]);
    return out as T;
  }
  return value;
}

/**
 * Compact JSON with sorted keys, the way Go's encoding/json writes a decoded value (what upstream shows as the
 * raw value of a variable in error messages).
 *
 * @example
 * canonicalJson({ b: 1, a: 'x' }); // '{"a":"x","b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalizeJson(value)) ?? 'null';
}

/**
 * Go's `json.Marshal` of a value whose keys are already in the order Go writes them (struct field order, sorted map
 * keys): compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes them.
 *
 * @example
 * goJson({ key: 'a&b' }); // '{"key":"a\u0026b"}'
 */
export function goJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null')
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** Go's `%v` of a number decoded from JSON: integers print as int64, others as float64. */
export function goFormatNumber(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : formatFloat(value, 'g', -1);
}
