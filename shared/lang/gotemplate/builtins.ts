// text/template's predefined functions (text/template/funcs.go).
import { sprint, sprintf, sprintln } from './go-fmt.ts';
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { GoInt, GoMap, GoSlice, byteLength, compareGoStrings, goInt, goTypeName, isTrue } from './values.ts';
import type { GoValue } from './values.ts';

type BasicKind = 'bool' | 'int' | 'uint' | 'float' | 'string' | 'invalid';

function basicKind(v: GoValue): BasicKind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'string') return 'string';
  if (v instanceof GoInt) return v.type === 'uint64' || v.type === 'uint8' ? 'uint' : 'int';
  return 'invalid';
}

const indirectInterface = (v: GoValue): GoValue => (v === null ? undefined : v);
const typeOf = (v: GoValue): string =>
  v === undefined ? '<invalid reflect.Value>' : v === null ? 'interface {}' : goTypeName(v);

function eq(arg1In: GoValue, others: GoValue[]): boolean {
  const arg1 = indirectInterface(arg1In);
  if (others.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basicKind(arg1);
  for (const argIn of others) {
    const arg = indirectInterface(argIn);
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) {
        truth = (arg1 as GoInt).value === (arg as GoInt).value;
      } else if (arg1 !== undefined && arg !== undefined) {
        throw new FuncError(`incompatible types for comparison: ${typeOf(arg1)} and ${typeOf(arg)}`);
      }
    } else if (k1 === 'int' || k1 === 'uint') {
      truth = (arg1 as GoInt).value === (arg as GoInt).value;
    } else if (k1 !== 'invalid') {
      truth = arg1 === arg;
    } else {
      const isNil = (v: GoValue): boolean =>
        v === undefined || ((v instanceof GoSlice || v instanceof GoMap) && v.isNil);
      const kind = (v: GoValue): string =>
        v instanceof GoSlice ? 'slice' : v instanceof GoMap ? 'map' : v === undefined ? 'invalid' : 'ptr';
      if (kind(arg1) !== kind(arg) && arg1 !== undefined && arg !== undefined) {
        throw new FuncError(`non-comparable types ${typeOf(arg1)} and ${typeOf(arg)}`);
      }
      if (isNil(arg1) || isNil(arg)) truth = isNil(arg) === isNil(arg1);
      else if (arg instanceof GoSlice || arg instanceof GoMap)
        throw new FuncError(`non-comparable type ${typeOf(arg)}`);
      else truth = arg1 === arg;
    }
    if (truth) return true;
  }
  return false;
}

function lt(a1: GoValue, a2: GoValue): boolean {
  const arg1 = indirectInterface(a1);
  const arg2 = indirectInterface(a2);
  const k1 = basicKind(arg1);
  const k2 = basicKind(arg2);
  if (k1 === 'invalid' || k2 === 'invalid') throw new FuncError('invalid type for comparison');
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int'))
      return (arg1 as GoInt).value < (arg2 as GoInt).value;
    throw new FuncError(`incompatible types for comparison: ${typeOf(arg1)} and ${typeOf(arg2)}`);
  }
  switch (k1) {
    case 'bool':
      throw new FuncError('invalid type for comparison');
    case 'int':
    case 'uint':
      return (arg1 as GoInt).value < (arg2 as GoInt).value;
    case 'string':
      return compareGoStrings(arg1 as string, arg2 as string) < 0;
    default:
      return (arg1 as number) < (arg2 as number);
  }
}

const le = (a: GoValue, b: GoValue): boolean => lt(a, b) || eq(a, [b]);

function indexArg(index: GoValue, cap: number): number {
  if (index instanceof GoInt) {
    if (index.value < 0n || index.value > BigInt(cap)) throw new FuncError(`index out of range: ${index.value}`);
    return Number(index.value);
  }
  if (index === undefined || index === null) throw new FuncError('cannot index slice/array with nil');
  throw new FuncError(`cannot index slice/array with type ${goTypeName(index)}`);
}

function index(itemIn: GoValue, indexes: GoValue[]): GoValue {
  let item = indirectInterface(itemIn);
  if (item === undefined) throw new FuncError('index of untyped nil');
  for (const idxIn of indexes) {
    const idx = indirectInterface(idxIn);
    if (item === null || item === undefined) throw new FuncError('index of nil pointer');
    if (typeof item === 'string') {
      const bytes = new TextEncoder().encode(item);
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new FuncError(`index out of range: ${x}`);
      item = new GoInt('uint8', BigInt(bytes[x] ?? 0));
    } else if (item instanceof GoSlice) {
      const x = indexArg(idx, item.items.length);
      if (x === item.items.length) throw new FuncError(`reflect: slice index out of range`);
      item = item.items[x];
    } else if (item instanceof GoMap) {
      if (idx === undefined) throw new FuncError('value is nil; should be of type string');
      if (typeof idx !== 'string') throw new FuncError(`value has type ${typeOf(idx)}; should be string`);
      item = item.entries.has(idx) ? item.entries.get(idx) : item.elem === 'string' ? '' : null;
    } else {
      throw new FuncError(`can't index item of type ${goTypeName(item)}`);
    }
  }
  return item;
}

function slice(itemIn: GoValue, indexes: GoValue[]): GoValue {
  const item = indirectInterface(itemIn);
  if (item === undefined) throw new FuncError('slice of untyped nil');
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (typeof item === 'string') {
    if (indexes.length === 3) throw new FuncError('cannot 3-index slice a string');
    len = byteLength(item);
  } else if (item instanceof GoSlice) len = item.items.length;
  else throw new FuncError(`can't slice item of type ${item === null ? 'interface {}' : goTypeName(item)}`);
  const idx = [0, len, len];
  indexes.forEach((x, i) => {
    idx[i] = indexArg(indirectInterface(x), len);
  });
  const [a = 0, b = len, c = len] = idx;
  if (a > b) throw new FuncError(`invalid slice index: ${a} > ${b}`);
  if (indexes.length === 3 && b > c) throw new FuncError(`invalid slice index: ${b} > ${c}`);
  if (typeof item === 'string') return new TextDecoder().decode(new TextEncoder().encode(item).slice(a, b));
  return new GoSlice(item.elem, item.items.slice(a, b));
}

function length(item: GoValue): GoValue {
  if (item === null) throw new FuncError('len of nil pointer');
  if (typeof item === 'string') return goInt(byteLength(item));
  if (item instanceof GoSlice) return goInt(item.items.length);
  if (item instanceof GoMap) return goInt(item.entries.size);
  throw new FuncError(`len of type ${item === undefined ? '<nil>' : goTypeName(item)}`);
}

/** evalArgs of funcs.go: one string stays as is, anything else goes through Sprint with `<no value>` for nil. */
function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === null || a === undefined ? '<no value>' : a)));
}

const htmlEscapes: Record<string, string> = {
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '\0': '\uFFFD',
};

export function htmlEscape(s: string): string {
  return s.replace(/["'&<>\0]/g, (c) => htmlEscapes[c] ?? c);
}

const printableRune = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const named: Record<string, string> = {
      '\\': '\\\\',
      "'": "\\'",
      '"': '\\"',
      '<': '\\u003C',
      '>': '\\u003E',
      '&': '\\u0026',
      '=': '\\u003D',
    };
    const n = named[ch];
    if (n !== undefined) out += n;
    else if (cp < 0x20) out += `\\u00${cp.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (cp < 0x80 || printableRune.test(ch)) out += ch;
    else out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
}

/** url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The builtins every template has. */
export const builtinFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['and', fn(['value'], () => undefined, 'value')],
  ['or', fn(['value'], () => undefined, 'value')],
  [
    'call',
    fn(
      ['value'],
      ([f]) => {
        throw new FuncError(f === undefined || f === null ? 'call of nil' : `non-function of type ${goTypeName(f)}`);
      },
      'value',
    ),
  ],
  ['html', fn([], (args) => htmlEscape(evalArgs(args)), 'any')],
  ['js', fn([], (args) => jsEscape(evalArgs(args)), 'any')],
  ['urlquery', fn([], (args) => queryEscape(evalArgs(args)), 'any')],
  ['index', fn(['value'], ([item, ...idx]) => index(item, idx), 'value')],
  ['slice', fn(['value'], ([item, ...idx]) => slice(item, idx), 'value')],
  ['len', fn(['value'], ([item]) => length(item))],
  ['not', fn(['value'], ([a]) => !isTrue(indirectInterface(a)))],
  ['print', fn([], (args) => sprint(args), 'any')],
  ['printf', fn(['string'], ([f, ...args]) => sprintf(f as string, args), 'any')],
  ['println', fn([], (args) => sprintln(args), 'any')],
  ['eq', fn(['value'], ([a, ...rest]) => eq(a, rest), 'value')],
  ['ne', fn(['value', 'value'], ([a, b]) => !eq(a, [b]))],
  ['lt', fn(['value', 'value'], ([a, b]) => lt(a, b))],
  ['le', fn(['value', 'value'], ([a, b]) => le(a, b))],
  ['gt', fn(['value', 'value'], ([a, b]) => !le(a, b))],
  ['ge', fn(['value', 'value'], ([a, b]) => !lt(a, b))],
]);
