// The cel-go extensions the Kubernetes base environment enables that cel-js lacks, as plain functions: sets
// (ext.Sets), lists version 3 without its sortBy macro (ext.Lists: lists.range, distinct, flatten, reverse, slice,
// sort, first, last), the optional helpers (optional.ofNonZeroValue, optional.unwrap, unwrapOpt, ==) and
// strings.quote.
import { Optional } from '@marcbachmann/cel-js';
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { chargeCelCost } from '#shared/lang/cel/cost.ts';

/** A CEL number as a JavaScript number or bigint (ints are bigints, uints objects whose valueOf is a bigint). */
function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Map)) {
    const inner: unknown = (v as { valueOf(): unknown }).valueOf();
    if (typeof inner === 'bigint') return inner;
  }
  return undefined;
}

function entries(v: object): [unknown, unknown][] {
  return v instanceof Map ? [...(v as Map<unknown, unknown>).entries()] : Object.entries(v);
}

/** CEL's heterogeneous equality (numbers compare across int, uint and double). */
export function celEqual(a: unknown, b: unknown): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) {
    if (x === undefined || y === undefined) return false;
    return x == y;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEqual(v, b[i]));
  const ea = entries(a);
  const eb = entries(b);
  return ea.length === eb.length && ea.every(([k, v]) => eb.some(([k2, v2]) => celEqual(k, k2) && celEqual(v, v2)));
}

/** The largest list lists.range builds (cel-go's ext.Lists, as the oracle shows it). */
const MAX_RANGE = 1_000_000n;

const includes = (list: readonly unknown[], x: unknown) => list.some((y) => celEqual(x, y));

function sliceList(list: readonly unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n)
    throw new CelFunctionError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end)
    throw new CelFunctionError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.length) < end)
    throw new CelFunctionError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new CelFunctionError('level must be non-negative');
  return list.flatMap((v) => (Array.isArray(v) && depth > 0n ? flatten(v, depth - 1n) : [v]));
}

function sortKey(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'bigint') return 'int';
  if (numeric(v) !== undefined) return 'uint';
  return '';
}

/** cel-go's @sortByAssociatedKeys: the list ordered by its keys, which must be comparable and of one type. */
export function sortByKeys(list: readonly unknown[], keys: readonly unknown[]): unknown[] {
  if (list.length === 0) return [];
  const type = sortKey(keys[0]);
  if (type === '') throw new CelFunctionError('list elements must be comparable');
  if (keys.some((v) => sortKey(v) !== type)) throw new CelFunctionError('list elements must have the same type');
  const key = (i: number) => (type === 'uint' ? numeric(keys[i]) : keys[i]) as bigint | number | string | boolean;
  const order = list.map((_, i) => i).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return order.map((i) => list[i]);
}

const sortList = (list: readonly unknown[]) => sortByKeys(list, list);

function isZeroValue(v: unknown): boolean {
  if (v === null || v === false || v === '') return true;
  const n = numeric(v);
  if (n !== undefined) return n === 0n || n === 0;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (typeof v === 'object') return entries(v).length === 0;
  return false;
}

/** cel-go's strings.quote: CEL's escapes, the rest as is. */
function quote(s: string): string {
  const escapes: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '\\': '\\\\',
    '"': '\\"',
  };
  return `"${[...s].map((c) => escapes[c] ?? c).join('')}"`;
}

const unwrap = (list: readonly Optional[]) => list.filter((o) => o.hasValue()).map((o) => o.value());

/**
 * Registers the sets, lists (version 3, without sortBy), optional and strings.quote functions of the Kubernetes base
 * environment that cel-js does not have.
 *
 * @example
 * registerCollectionLibraries(env).evaluate('sets.contains([1, 2], [2])'); // true
 */
export function registerCollectionLibraries(env: Environment): Environment {
  class SetsNamespace {}
  class ListsNamespace {}
  class StringsNamespace {}
  return (
    env
      .registerType('SetsNamespace', SetsNamespace)
      .registerConstant('sets', 'SetsNamespace', new SetsNamespace())
      .registerFunction('SetsNamespace.contains(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) => {
        chargeCelCost(a.length * b.length);
        return b.every((x) => includes(a, x));
      })
      .registerFunction('SetsNamespace.equivalent(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) => {
        chargeCelCost(2 * a.length * b.length);
        return b.every((x) => includes(a, x)) && a.every((x) => includes(b, x));
      })
      .registerFunction('SetsNamespace.intersects(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) => {
        chargeCelCost(a.length * b.length);
        return a.some((x) => includes(b, x));
      })
      .registerType('ListsNamespace', ListsNamespace)
      .registerConstant('lists', 'ListsNamespace', new ListsNamespace())
      .registerFunction('ListsNamespace.range(int): list<int>', (_: unknown, n: bigint) => {
        if (n < 0n) throw new CelFunctionError(`lists.range: size must be non-negative, got ${n}`);
        if (n > MAX_RANGE) throw new CelFunctionError(`lists.range: size ${n} exceeds maximum allowed (${MAX_RANGE})`);
        // NOTE: priced before the list is built, so a huge n stops at the cost limit instead of allocating.
        chargeCelCost(Number(n));
        return Array.from({ length: Number(n) }, (__, i) => BigInt(i));
      })
      .registerFunction('list<A>.distinct(): list<A>', (list: unknown[]) => {
        // NOTE: every element is compared with the ones before it.
        chargeCelCost((list.length * list.length) / 2);
        return list.filter((x, i) => !includes(list.slice(0, i), x));
      })
      .registerFunction('list.flatten(): list', (list: unknown[]) => flatten(list, 1n))
      .registerFunction('list.flatten(int): list', (list: unknown[], depth: bigint) => {
        // NOTE: Kubernetes' cost tracker prices a negative depth beyond the runtime cost limit before it runs.
        if (depth < 0n) throw new CelFunctionError('operation cancelled: actual cost limit exceeded');
        return flatten(list, depth);
      })
      .registerFunction('list<A>.reverse(): list<A>', (list: unknown[]) => [...list].reverse())
      .registerFunction('list<A>.slice(int, int): list<A>', sliceList)
      .registerFunction('list<A>.sort(): list<A>', sortList)
      .registerFunction('list<A>.first(): optional<A>', (list: unknown[]) =>
        list.length === 0 ? Optional.none() : Optional.of(list[0]),
      )
      .registerFunction('list<A>.last(): optional<A>', (list: unknown[]) =>
        list.length === 0 ? Optional.none() : Optional.of(list[list.length - 1]),
      )
      .registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_: unknown, v: unknown) =>
        isZeroValue(v) ? Optional.none() : Optional.of(v),
      )
      .registerFunction('OptionalNamespace.unwrap(list<optional<A>>): list<A>', (_: unknown, list: Optional[]) =>
        unwrap(list),
      )
      .registerFunction('list<optional<A>>.unwrapOpt(): list<A>', unwrap)
      // NOTE: cel-js has no equality of optionals; cel-go's compares their presence, then their values.
      .registerOperator('optional<A> == optional<A>', (a: Optional, b: Optional) =>
        a.hasValue() && b.hasValue() ? celEqual(a.value(), b.value()) : a.hasValue() === b.hasValue(),
      )
      .registerType('StringsNamespace', StringsNamespace)
      .registerConstant('strings', 'StringsNamespace', new StringsNamespace())
      .registerFunction('StringsNamespace.quote(string): string', (_: unknown, s: string) => quote(s))
  );
}
