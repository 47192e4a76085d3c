// The cel-go macros the Kubernetes base environment enables that cel-js lacks, as cel-js macros (a type check and an
// evaluation of their own): the two-variable comprehensions (ext.TwoVarComprehensions: all, exists, existsOne,
// exists_one, transformList, transformMap, transformMapEntry), lists' sortBy and the optional types' optMap and
// optFlatMap.
import { Optional } from '@marcbachmann/cel-js';
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { CelCostLimitError, chargeCelCost } from '#shared/lang/cel/cost.ts';
import { celEqual, sortByKeys } from '#shared/lang/cel/collections.ts';

/** The parts of cel-js's AST nodes, types, type checker, evaluator and scopes the macros use. */
type Node = { readonly op: string; readonly args: unknown };
type CelType = {
  readonly kind: string;
  readonly name: string;
  readonly keyType?: CelType;
  readonly valueType?: CelType;
  readonly hasPlaceholderType: boolean;
};
type Scope = {
  forkWithVariable(name: string, type: CelType): Scope;
  reuse(parent: Scope): Scope;
  setIterValue(value: unknown, evaluator: Evaluator): Scope;
};
type Checker = {
  check(node: Node, scope: Scope): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node: Node): Error;
  readonly registry: {
    getListType(element: CelType): CelType;
    getMapType(key: CelType, value: CelType): CelType;
    getOptionalType(value: CelType): CelType;
  };
};
type Evaluator = { run(node: Node, scope: Scope): unknown };
type MacroInput = { readonly args: readonly Node[]; readonly receiver: Node; readonly methodName: string };

/** A macro's state: its arguments, and the scopes its type check builds for its variables. */
type Macro = {
  readonly receiver: Node;
  readonly names: readonly string[];
  readonly body: readonly Node[];
  scopes: Scope[];
  typeCheck(checker: Checker, macro: Macro, scope: Scope): CelType;
  evaluate(evaluator: Evaluator, macro: Macro, scope: Scope): unknown;
};

class MacroError extends Error {}

function variableName(node: Node): string {
  if (node.op !== 'id') throw new MacroError('argument must be a simple name');
  return node.args as string;
}

/** The iteration variables' names: two distinct simple names. */
function iterationVariables(args: readonly Node[]): [string, string] {
  const first = variableName(args[0] as Node);
  const second = variableName(args[1] as Node);
  if (first === second) throw new MacroError(`duplicate variable name: ${first}`);
  return [first, second];
}

/** A value's entries as a comprehension over it sees them: a list's indexes and elements, a map's keys and values. */
function iterationEntries(value: unknown): (readonly [unknown, unknown])[] {
  if (Array.isArray(value)) return value.map((v, i) => [BigInt(i), v] as const);
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).entries()];
  if (value !== null && typeof value === 'object' && value.constructor === Object) return Object.entries(value);
  throw new CelFunctionError(`expression of type '${typeName(value)}' cannot be range of a comprehension`);
}

function typeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'null_type';
  return typeof value;
}

/** The types of a two-variable comprehension's variables over a range of this type (dyn for unknown parts). */
function iterationTypes(checker: Checker, range: CelType): [CelType, CelType] {
  const known = (type: CelType | undefined) =>
    type === undefined || type.hasPlaceholderType ? checker.getType('dyn') : type;
  if (range.kind === 'list') return [checker.getType('int'), known(range.valueType)];
  if (range.kind === 'map') return [known(range.keyType), known(range.valueType)];
  return [checker.getType('dyn'), checker.getType('dyn')];
}

function refuse(checker: Checker, node: Node, message: string): never {
  throw checker.createError('invalid_macro_argument', message, node);
}

/** Refuses a type that is known and not of the expected kind (or, for `bool`, name). */
function expectType(checker: Checker, node: Node, type: CelType, expected: string, what: string): void {
  if (type.kind !== 'dyn' && type.kind !== expected && type.name !== expected)
    refuse(checker, node, `${what}, got '${type.name}'`);
}

/** Type-checks the body under new scopes binding the macro's variables, kept for its evaluation. */
function checkBody(checker: Checker, macro: Macro, scope: Scope, types: readonly CelType[]): CelType[] {
  let inner = scope;
  macro.scopes = macro.names.map((name, i) => (inner = inner.forkWithVariable(name, types[i] as CelType)));
  return macro.body.map((node) => checker.check(node, inner));
}

/** Binds the macro's variables in the scopes its type check built, under the current scope. */
function bind(evaluator: Evaluator, macro: Macro, scope: Scope, values: readonly unknown[]): Scope {
  let inner = scope;
  macro.scopes.forEach((s, i) => (inner = s.reuse(inner).setIterValue(values[i], evaluator)));
  return inner;
}

function runBool(evaluator: Evaluator, node: Node, scope: Scope): boolean {
  const value = evaluator.run(node, scope);
  if (typeof value !== 'boolean') throw new CelFunctionError(`no such overload: ${typeName(value)}`);
  return value;
}

/** A predicate's value, or the error it fails with (quantifiers absorb errors a later result decides). */
function tryBool(evaluator: Evaluator, node: Node, scope: Scope): boolean | Error {
  try {
    return runBool(evaluator, node, scope);
  } catch (error) {
    if (error instanceof CelCostLimitError) throw error;
    return error instanceof Error ? error : new Error(String(error));
  }
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

function checkComprehension(kind: Kind) {
  return (checker: Checker, macro: Macro, scope: Scope): CelType => {
    const range = checker.check(macro.receiver, scope);
    if (range.kind !== 'dyn' && range.kind !== 'list' && range.kind !== 'map')
      refuse(checker, macro.receiver, `expression of type '${range.name}' cannot be range of a comprehension`);
    const iteration = iterationTypes(checker, range);
    const types = checkBody(checker, macro, scope, iteration);
    const result = types[types.length - 1] as CelType;
    const last = macro.body[macro.body.length - 1] as Node;
    if (types.length === 2)
      expectType(checker, macro.body[0] as Node, types[0] as CelType, 'bool', 'filter must return bool');
    if (kind === 'all' || kind === 'exists' || kind === 'existsOne') {
      expectType(checker, last, result, 'bool', 'predicate must return bool');
      return checker.getType('bool');
    }
    if (kind === 'transformList') return checker.registry.getListType(result);
    if (kind === 'transformMap') return checker.registry.getMapType(iteration[0], result);
    expectType(checker, last, result, 'map', 'transform must return a map');
    return result.kind === 'map' ? result : checker.registry.getMapType(checker.getType('dyn'), checker.getType('dyn'));
  };
}

/** A map as cel-js holds one: a plain object when every key is a string, else a Map. */
function toCelMap(entries: readonly (readonly [unknown, unknown])[]): unknown {
  return entries.every(([k]) => typeof k === 'string')
    ? Object.fromEntries(entries)
    : new Map(entries as [unknown, unknown][]);
}

/** Go's %v of a map key, as cel-go's `insert failed` message prints it. */
const keyText = (key: unknown) => (typeof key === 'string' ? key : String(key));

function evaluateComprehension(kind: Kind) {
  return (evaluator: Evaluator, macro: Macro, scope: Scope): unknown => {
    const entries = iterationEntries(evaluator.run(macro.receiver, scope));
    const [filter, transform] = macro.body.length === 2 ? macro.body : [undefined, macro.body[0]];
    if (kind === 'all' || kind === 'exists') {
      // NOTE: as cel-go's `&&`/`||` accumulation: a deciding result wins over errors, else the first error.
      let error: Error | undefined;
      for (const entry of entries) {
        const result = tryBool(evaluator, transform as Node, bind(evaluator, macro, scope, entry));
        if (result instanceof Error) error ??= result;
        else if (result === (kind === 'exists')) return result;
      }
      if (error) throw error;
      return kind === 'all';
    }
    if (kind === 'existsOne') {
      // NOTE: cel-go's accumulator keeps the last predicate's error.
      let count = 0;
      let error: Error | undefined;
      for (const entry of entries) {
        const result = tryBool(evaluator, transform as Node, bind(evaluator, macro, scope, entry));
        if (result instanceof Error) error = result;
        else if (result) count++;
      }
      if (error) throw error;
      return count === 1;
    }
    const out: (readonly [unknown, unknown])[] = [];
    for (const entry of entries) {
      const inner = bind(evaluator, macro, scope, entry);
      if (filter && !runBool(evaluator, filter, inner)) continue;
      const value = evaluator.run(transform as Node, inner);
      if (kind !== 'transformMapEntry') {
        out.push([entry[0], value]);
        continue;
      }
      const added = iterationEntries(value);
      // NOTE: each new key is compared with every key so far.
      chargeCelCost(added.length * out.length * 0.1);
      for (const [k, v] of added) {
        if (out.some(([key]) => celEqual(key, k)))
          throw new CelFunctionError(`insert failed: key ${keyText(k)} already exists`);
        out.push([k, v]);
      }
    }
    return kind === 'transformList' ? out.map(([, v]) => v) : toCelMap(out);
  };
}

function comprehension(kind: Kind) {
  const typeCheck = checkComprehension(kind);
  const evaluate = evaluateComprehension(kind);
  return ({ args, receiver }: MacroInput): Macro => ({
    receiver,
    names: iterationVariables(args),
    body: args.slice(2),
    scopes: [],
    typeCheck,
    evaluate,
  });
}

function checkSortBy(checker: Checker, macro: Macro, scope: Scope): CelType {
  const range = checker.check(macro.receiver, scope);
  expectType(checker, macro.receiver, range, 'list', 'sortBy can only be applied to a list');
  checkBody(checker, macro, scope, [iterationTypes(checker, range)[1]]);
  return range;
}

function evaluateSortBy(evaluator: Evaluator, macro: Macro, scope: Scope): unknown {
  const list = evaluator.run(macro.receiver, scope);
  if (!Array.isArray(list)) throw new CelFunctionError(`no such overload: ${typeName(list)}.sortBy`);
  const keys = list.map((v) => evaluator.run(macro.body[0] as Node, bind(evaluator, macro, scope, [v])));
  chargeCelCost(list.length * Math.log2(list.length + 1));
  return sortByKeys(list, keys);
}

function sortBy({ args, receiver }: MacroInput): Macro {
  // NOTE: cel-go's sortBy refuses literal targets other than lists when it parses.
  if (receiver.op === 'value' || receiver.op === 'map')
    throw new MacroError('sortBy can only be applied to a list, identifier, comprehension, call or select expression');
  return {
    receiver,
    names: [variableName(args[0] as Node)],
    body: [args[1] as Node],
    scopes: [],
    typeCheck: checkSortBy,
    evaluate: evaluateSortBy,
  };
}

function optionalMacro(flat: boolean) {
  const typeCheck = (checker: Checker, macro: Macro, scope: Scope): CelType => {
    const target = checker.check(macro.receiver, scope);
    expectType(checker, macro.receiver, target, 'optional', 'optMap and optFlatMap apply to an optional');
    const value = target.valueType?.hasPlaceholderType === false ? target.valueType : checker.getType('dyn');
    const [result] = checkBody(checker, macro, scope, [value]) as [CelType];
    if (!flat) return checker.registry.getOptionalType(result);
    expectType(checker, macro.body[0] as Node, result, 'optional', 'optFlatMap must return an optional');
    return result;
  };
  const evaluate = (evaluator: Evaluator, macro: Macro, scope: Scope): unknown => {
    const target = evaluator.run(macro.receiver, scope);
    if (!(target instanceof Optional)) throw new CelFunctionError(`no such overload: ${typeName(target)}.optMap`);
    if (!target.hasValue()) return Optional.none();
    const value = evaluator.run(macro.body[0] as Node, bind(evaluator, macro, scope, [target.value()]));
    if (!flat) return Optional.of(value);
    if (!(value instanceof Optional)) throw new CelFunctionError(`no such overload: ${typeName(value)}`);
    return value;
  };
  return ({ args, receiver }: MacroInput): Macro => ({
    receiver,
    names: [variableName(args[0] as Node)],
    body: [args[1] as Node],
    scopes: [],
    typeCheck,
    evaluate,
  });
}

/**
 * Registers the macros: `<range>.all(i, v, p)`, `exists`, `existsOne`/`exists_one`, `transformList(i, v, [f,] t)`,
 * `transformMap`, `transformMapEntry`, `<list>.sortBy(x, key)`, `<optional>.optMap(x, t)` and `optFlatMap`.
 *
 * @example
 * registerMacros(env).evaluate('{"a": 1}.transformMap(k, v, v + 1)'); // { a: 2n }
 */
export function registerMacros(env: Environment): Environment {
  const register = (signature: string, handler: (input: MacroInput) => Macro) =>
    env.registerFunction(signature, handler as never);
  register('list.all(ast, ast, ast): bool', comprehension('all'));
  register('list.exists(ast, ast, ast): bool', comprehension('exists'));
  register('list.existsOne(ast, ast, ast): bool', comprehension('existsOne'));
  register('list.exists_one(ast, ast, ast): bool', comprehension('existsOne'));
  register('list.transformList(ast, ast, ast): list<dyn>', comprehension('transformList'));
  register('list.transformList(ast, ast, ast, ast): list<dyn>', comprehension('transformList'));
  register('list.transformMap(ast, ast, ast): map<dyn, dyn>', comprehension('transformMap'));
  register('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', comprehension('transformMap'));
  register('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', comprehension('transformMapEntry'));
  register('list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', comprehension('transformMapEntry'));
  register('list.sortBy(ast, ast): list<dyn>', sortBy);
  register('optional.optMap(ast, ast): optional<dyn>', optionalMacro(false));
  register('optional.optFlatMap(ast, ast): optional<dyn>', optionalMacro(true));
  return env;
}
