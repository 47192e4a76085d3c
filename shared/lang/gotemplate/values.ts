// The Go values a template works on: JSON-decoded data (float64, string, bool, nil, []interface{},
// map[string]interface{}) plus the few Go types that template functions return (int, int64, []string, ...).

/** Go integer types that builtins and sprig functions return. */
export type GoIntType = 'int' | 'int64' | 'uint64' | 'uint8' | 'int32';

/** A Go integer; the value is kept as a bigint wrapped to the type's width. */
export class GoInt {
  constructor(
    readonly type: GoIntType,
    readonly value: bigint,
  ) {}
}

/** A Go slice; `elem` is the Go element type (`interface {}`, `string`, `int`). */
export class GoSlice {
  constructor(
    readonly elem: string,
    readonly items: GoValue[],
    readonly isNil = false,
  ) {}
}

/** A Go map with string keys; `elem` is the Go value type. Entries may be changed by sprig's set/unset, as in Go. */
export class GoMap {
  constructor(
    readonly elem: string,
    readonly entries: Map<string, GoValue>,
    readonly isNil = false,
  ) {}
}

/** `*semver.Version` from Masterminds/semver, as returned by sprig's `semver`. */
export class GoVersion {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
  ) {}

  toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre !== '') s += `-${this.pre}`;
    if (this.metadata !== '') s += `+${this.metadata}`;
    return s;
  }
}

/**
 * A Go value. `undefined` is Go's invalid reflect.Value (a missing map key, printed `<no value>`); `null` is a
 * nil interface{} (JSON null). number is float64, string is string, boolean is bool.
 */
export type GoValue = undefined | null | string | boolean | number | GoInt | GoSlice | GoMap | GoVersion;

export const goInt = (n: number | bigint): GoInt => new GoInt('int', BigInt.asIntN(64, BigInt(n)));
export const goInt64 = (n: number | bigint): GoInt => new GoInt('int64', BigInt.asIntN(64, BigInt(n)));
export const ifaceSlice = (items: GoValue[]): GoSlice => new GoSlice('interface {}', items);
export const stringSlice = (items: string[]): GoSlice => new GoSlice('string', items);
export const ifaceMap = (entries: Map<string, GoValue> = new Map()): GoMap => new GoMap('interface {}', entries);

/** Converts JSON-decoded data into Go values, the way encoding/json decodes into interface{}; copies everything. */
export function fromJSON(data: unknown): GoValue {
  if (data === null || data === undefined) return null;
  if (typeof data === 'string' || typeof data === 'boolean' || typeof data === 'number') return data;
  if (Array.isArray(data)) return ifaceSlice(data.map((item: unknown) => fromJSON(item)));
  if (typeof data === 'object') {
    const entries = new Map<string, GoValue>();
    for (const [k, v] of Object.entries(data)) entries.set(k, fromJSON(v));
    return ifaceMap(entries);
  }
  throw new TypeError(`cannot convert ${typeof data} to a Go value`);
}

/** Go's type name of a value, as `%T` prints it. */
export function goTypeName(v: GoValue): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoSlice) return `[]${v.elem}`;
  if (v instanceof GoMap) return `map[string]${v.elem}`;
  return '*semver.Version';
}

/** reflect.Kind name, as sprig's kindOf returns it. */
export function goKindName(v: GoValue): string {
  if (v === undefined || v === null) return 'invalid';
  if (v instanceof GoSlice) return 'slice';
  if (v instanceof GoMap) return 'map';
  if (v instanceof GoVersion) return 'ptr';
  return goTypeName(v);
}

/** Length in bytes of a string's UTF-8 encoding (Go's len of a string). */
export function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Go's notion of truth: false, 0, a nil pointer or interface, and a zero-length array, slice, map or string are false. */
export function isTrue(v: GoValue): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof GoInt) return v.value !== 0n;
  if (v instanceof GoSlice) return v.items.length > 0;
  if (v instanceof GoMap) return v.entries.size > 0;
  return true;
}

/** reflect.DeepEqual for Go values. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (a instanceof GoInt) return b instanceof GoInt && a.type === b.type && a.value === b.value;
  if (a instanceof GoSlice) {
    if (!(b instanceof GoSlice) || a.elem !== b.elem || a.isNil !== b.isNil || a.items.length !== b.items.length)
      return false;
    return a.items.every((item, i) => deepEqual(item, b.items[i]));
  }
  if (a instanceof GoMap) {
    if (!(b instanceof GoMap) || a.elem !== b.elem || a.isNil !== b.isNil || a.entries.size !== b.entries.size)
      return false;
    for (const [k, v] of a.entries) {
      if (!b.entries.has(k) || !deepEqual(v, b.entries.get(k))) return false;
    }
    return true;
  }
  if (a instanceof GoVersion)
    return b instanceof GoVersion && a.toString() === b.toString() && a.original === b.original;
  return a === b;
}

/** Map keys in the order Go's fmt and range visit them (sorted by bytes). */
export function sortedKeys(m: GoMap): string[] {
  return [...m.entries.keys()].sort(compareGoStrings);
}

/** Compares strings by their UTF-8 bytes, like Go's `<` on strings. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(i) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
