// sprig's list and dict functions (list.go, dict.go) and the defaults (defaults.go) that work on collections.
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { empty, kindName, strslice, strval, toInt64 } from './sprig-convert.ts';
import { GoMap, GoSlice, deepEqual, ifaceMap, ifaceSlice, stringSlice, compareGoStrings } from './values.ts';
import type { GoInt } from './values.ts';
import type { GoValue } from './values.ts';

const M = (v: GoValue): GoMap => v as GoMap;
const S = (v: GoValue): string => v as string;

/** The elements of a slice argument; otherwise the error sprig's must* variant returns (the plain one panics with it). */
function items(v: GoValue, what: string): GoValue[] {
  if (v === undefined || v === null)
    throw new FuncError('runtime error: invalid memory address or nil pointer dereference');
  if (v instanceof GoSlice) return v.items;
  throw new FuncError(`Cannot ${what} type ${kindName(v)}`);
}

const nilSlice = (): GoSlice => new GoSlice('interface {}', [], true);

/** mergo.Merge (or MergeWithOverwrite) of map[string]interface{} values, recursing into nested maps. */
function mergeInto(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const [k, sv] of src.entries) {
    if (sv === null || sv === undefined || ((sv instanceof GoMap || sv instanceof GoSlice) && sv.isNil)) {
      if (overwrite) dst.entries.set(k, sv ?? null);
      continue;
    }
    const has = dst.entries.has(k);
    const dv = dst.entries.get(k);
    if (sv instanceof GoMap && dv instanceof GoMap) mergeInto(dv, sv, overwrite);
    if (has && !empty(dv)) {
      if (sv instanceof GoSlice) {
        if (overwrite) dst.entries.set(k, sv);
        continue;
      }
      if (sv instanceof GoMap && dv instanceof GoMap) continue;
    }
    if (overwrite || !has || empty(dv)) dst.entries.set(k, sv);
  }
}

function deepCopy(v: GoValue): GoValue {
  // NOTE: copystructure.Copy(nil) panics in reflect; the template reports it as an error.
  if (v === null || v === undefined) throw new FuncError('reflect: call of reflect.Value.Type on zero Value');
  return copyValue(v);
}

function copyValue(v: GoValue): GoValue {
  if (v instanceof GoSlice) return new GoSlice(v.elem, v.items.map(copyValue), v.isNil);
  if (v instanceof GoMap) return new GoMap(v.elem, new Map([...v.entries].map(([k, x]) => [k, copyValue(x)])), v.isNil);
  return v;
}

function dig(ps: GoValue[]): GoValue {
  if (ps.length < 3) throw new FuncError('dig needs at least three arguments');
  let dict = ps[ps.length - 1];
  const def = ps[ps.length - 2];
  const ks = ps.slice(0, -2);
  if (!(dict instanceof GoMap) || dict.elem !== 'interface {}')
    throw new FuncError('interface conversion: interface {} is not map[string]interface {}');
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    if (typeof k !== 'string')
      throw new FuncError(
        `interface conversion: interface {} is ${k === null || k === undefined ? 'nil' : kindName(k)}, not string`,
      );
    if (!(dict instanceof GoMap) || dict.elem !== 'interface {}')
      throw new FuncError('interface conversion: interface {} is not map[string]interface {}');
    if (!dict.entries.has(k)) return def;
    const step: GoValue = dict.entries.get(k);
    if (i === ks.length - 1) return step;
    dict = step;
  }
  return def;
}

function sortAlpha(list: GoValue): GoSlice {
  if (list instanceof GoSlice) return stringSlice([...(strslice(list).items as string[])].sort(compareGoStrings));
  return stringSlice([strval(list)]);
}

function slice(list: GoValue, indices: GoValue[]): GoValue {
  const l = items(list, 'slice');
  const sl = list as GoSlice;
  if (l.length === 0) return null;
  const start = indices.length > 0 ? Number(toInt64(indices[0])) : 0;
  const end = indices.length < 2 ? l.length : Number(toInt64(indices[1]));
  if (start < 0 || end > l.length || start > end) throw new FuncError(`reflect: slice index out of range`);
  return new GoSlice(sl.elem, l.slice(start, end));
}

const pick = (d: GoMap, keys: GoValue[]): GoMap => {
  const out = ifaceMap();
  for (const k of keys) if (d.entries.has(S(k))) out.entries.set(S(k), d.entries.get(S(k)));
  return out;
};

const omit = (d: GoMap, keys: GoValue[]): GoMap => {
  const drop = new Set(keys.map(S));
  const out = ifaceMap();
  for (const [k, v] of d.entries) if (!drop.has(k)) out.entries.set(k, v);
  return out;
};

export const collectionFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  // Defaults.
  ['default', fn(['any'], ([d, ...given]) => (given.length === 0 || empty(given[0]) ? d : given[0]), 'any')],
  ['empty', fn(['any'], ([v]) => empty(v))],
  ['coalesce', fn([], (vs) => vs.find((v) => !empty(v)) ?? null, 'any')],
  ['all', fn([], (vs) => vs.every((v) => !empty(v)), 'any')],
  ['any', fn([], (vs) => vs.some((v) => !empty(v)), 'any')],
  ['compact', fn(['any'], ([l]) => ifaceSlice(items(l, 'compact on').filter((v) => !empty(v))))],
  ['mustCompact', fn(['any'], ([l]) => ifaceSlice(items(l, 'compact on').filter((v) => !empty(v))))],
  ['ternary', fn(['any', 'any', 'bool'], ([t, f, c]) => (c ? t : f))],
  ['deepCopy', fn(['any'], ([v]) => deepCopy(v))],
  ['mustDeepCopy', fn(['any'], ([v]) => deepCopy(v))],
  ['deepEqual', fn(['any', 'any'], ([a, b]) => deepEqual(a, b))],
  // Lists.
  ['list', fn([], (vs) => ifaceSlice(vs), 'any')],
  ['tuple', fn([], (vs) => ifaceSlice(vs), 'any')],
  ['append', fn(['any', 'any'], ([l, v]) => ifaceSlice([...items(l, 'push on'), v]))],
  ['push', fn(['any', 'any'], ([l, v]) => ifaceSlice([...items(l, 'push on'), v]))],
  ['mustAppend', fn(['any', 'any'], ([l, v]) => ifaceSlice([...items(l, 'push on'), v]))],
  ['mustPush', fn(['any', 'any'], ([l, v]) => ifaceSlice([...items(l, 'push on'), v]))],
  ['prepend', fn(['any', 'any'], ([l, v]) => ifaceSlice([v, ...items(l, 'prepend on')]))],
  ['mustPrepend', fn(['any', 'any'], ([l, v]) => ifaceSlice([v, ...items(l, 'prepend on')]))],
  ['first', fn(['any'], ([l]) => items(l, 'find first on')[0] ?? null)],
  ['mustFirst', fn(['any'], ([l]) => items(l, 'find first on')[0] ?? null)],
  ['last', fn(['any'], ([l]) => items(l, 'find last on').at(-1) ?? null)],
  ['mustLast', fn(['any'], ([l]) => items(l, 'find last on').at(-1) ?? null)],
  [
    'rest',
    fn(['any'], ([l]) =>
      items(l, 'find rest on').length === 0 ? nilSlice() : ifaceSlice(items(l, 'find rest on').slice(1)),
    ),
  ],
  [
    'mustRest',
    fn(['any'], ([l]) =>
      items(l, 'find rest on').length === 0 ? nilSlice() : ifaceSlice(items(l, 'find rest on').slice(1)),
    ),
  ],
  [
    'initial',
    fn(['any'], ([l]) =>
      items(l, 'find initial on').length === 0 ? nilSlice() : ifaceSlice(items(l, 'find initial on').slice(0, -1)),
    ),
  ],
  [
    'mustInitial',
    fn(['any'], ([l]) =>
      items(l, 'find initial on').length === 0 ? nilSlice() : ifaceSlice(items(l, 'find initial on').slice(0, -1)),
    ),
  ],
  ['reverse', fn(['any'], ([l]) => ifaceSlice([...items(l, 'find reverse on')].reverse()))],
  ['mustReverse', fn(['any'], ([l]) => ifaceSlice([...items(l, 'find reverse on')].reverse()))],
  [
    'uniq',
    fn(['any'], ([l]) =>
      ifaceSlice(items(l, 'find uniq on').filter((v, i, all) => all.findIndex((w) => deepEqual(v, w)) === i)),
    ),
  ],
  [
    'mustUniq',
    fn(['any'], ([l]) =>
      ifaceSlice(items(l, 'find uniq on').filter((v, i, all) => all.findIndex((w) => deepEqual(v, w)) === i)),
    ),
  ],
  [
    'without',
    fn(
      ['any'],
      ([l, ...omit]) => ifaceSlice(items(l, 'find without on').filter((v) => !omit.some((o) => deepEqual(v, o)))),
      'any',
    ),
  ],
  [
    'mustWithout',
    fn(
      ['any'],
      ([l, ...omit]) => ifaceSlice(items(l, 'find without on').filter((v) => !omit.some((o) => deepEqual(v, o)))),
      'any',
    ),
  ],
  [
    'has',
    fn(['any', 'any'], ([needle, hay]) =>
      hay === null || hay === undefined ? false : items(hay, 'find has on').some((v) => deepEqual(needle, v)),
    ),
  ],
  [
    'mustHas',
    fn(['any', 'any'], ([needle, hay]) =>
      hay === null || hay === undefined ? false : items(hay, 'find has on').some((v) => deepEqual(needle, v)),
    ),
  ],
  ['slice', fn(['any'], ([l, ...idx]) => slice(l, idx), 'any')],
  ['mustSlice', fn(['any'], ([l, ...idx]) => slice(l, idx), 'any')],
  [
    'concat',
    fn(
      [],
      (lists) => {
        const out: GoValue[] = [];
        for (const l of lists) {
          if (!(l instanceof GoSlice)) throw new FuncError(`Cannot concat type ${kindName(l)} as list`);
          out.push(...l.items);
        }
        return lists.length === 0 ? nilSlice() : ifaceSlice(out);
      },
      'any',
    ),
  ],
  ['sortAlpha', fn(['any'], ([l]) => sortAlpha(l))],
  ['chunk', fn(['int', 'any'], ([size, l]) => chunk(size, l))],
  ['mustChunk', fn(['int', 'any'], ([size, l]) => chunk(size, l))],
  // Dicts.
  [
    'dict',
    fn(
      [],
      (vs) => {
        const d = ifaceMap();
        for (let i = 0; i < vs.length; i += 2) d.entries.set(strval(vs[i]), i + 1 < vs.length ? vs[i + 1] : '');
        return d;
      },
      'any',
    ),
  ],
  ['get', fn(['map', 'string'], ([d, k]) => (M(d).entries.has(S(k)) ? M(d).entries.get(S(k)) : ''))],
  [
    'set',
    fn(['map', 'string', 'any'], ([d, k, v]) => {
      if (M(d).isNil) throw new FuncError('assignment to entry in nil map');
      M(d).entries.set(S(k), v);
      return d;
    }),
  ],
  [
    'unset',
    fn(['map', 'string'], ([d, k]) => {
      M(d).entries.delete(S(k));
      return d;
    }),
  ],
  ['hasKey', fn(['map', 'string'], ([d, k]) => M(d).entries.has(S(k)))],
  [
    'pluck',
    fn(
      ['string'],
      ([k, ...ds]) => ifaceSlice(ds.filter((d) => M(d).entries.has(S(k))).map((d) => M(d).entries.get(S(k)))),
      'map',
    ),
  ],
  ['keys', fn([], (ds) => stringSlice(ds.flatMap((d) => [...M(d).entries.keys()])), 'map')],
  ['pick', fn(['map'], ([d, ...ks]) => pick(M(d), ks), 'string')],
  ['omit', fn(['map'], ([d, ...ks]) => omit(M(d), ks), 'string')],
  ['values', fn(['map'], ([d]) => ifaceSlice([...M(d).entries.values()]))],
  ['merge', fn(['map'], ([d, ...srcs]) => mergeAll(M(d), srcs, false), 'map')],
  ['mustMerge', fn(['map'], ([d, ...srcs]) => mergeAll(M(d), srcs, false), 'map')],
  ['mergeOverwrite', fn(['map'], ([d, ...srcs]) => mergeAll(M(d), srcs, true), 'map')],
  ['mustMergeOverwrite', fn(['map'], ([d, ...srcs]) => mergeAll(M(d), srcs, true), 'map')],
  ['dig', fn([], dig, 'any')],
]);

/** Go's int(float64) on amd64: NaN and out-of-range values give the minimum int64. */
function goIntOfFloat(f: number): number {
  return Number.isNaN(f) || Math.abs(f) >= 2 ** 63 ? -(2 ** 63) : Math.trunc(f);
}

/** sprig's mustChunk, float arithmetic included: a size of 0 or below fails the way Go's makeslice does. */
function chunk(size: GoValue, l: GoValue): GoSlice {
  const all = items(l, 'chunk');
  const n = Number((size as GoInt).value);
  const count = goIntOfFloat(Math.floor((all.length - 1) / n) + 1);
  const makeslice = (len: number) => {
    if (len < 0) throw new FuncError('runtime error: makeslice: len out of range');
  };
  makeslice(count);
  const out: GoValue[] = [];
  for (let i = 0; i < count; i++) {
    let clen = n;
    if (i === count - 1) {
      // NOTE: JavaScript's % is Go's math.Mod (the sign follows the dividend).
      clen = goIntOfFloat(Math.floor(all.length % n));
      if (clen === 0) clen = n;
    }
    makeslice(clen);
    const start = i * n;
    if (start + clen > all.length) throw new FuncError('reflect: slice index out of range');
    out.push(ifaceSlice(all.slice(start, start + clen)));
  }
  return new GoSlice('[]interface {}', out);
}

function mergeAll(dst: GoMap, srcs: GoValue[], overwrite: boolean): GoValue {
  // NOTE: mergo is given &dst, so a nil destination becomes a new map as soon as there is something to merge.
  const target = dst.isNil && srcs.length > 0 ? ifaceMap() : dst;
  for (const s of srcs) mergeInto(target, M(s), overwrite);
  return target;
}
