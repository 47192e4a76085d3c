// The checks cel-go's Kubernetes environment makes on literals when a rule is compiled: its AST validators (regexp,
// duration and timestamp literals, homogeneous aggregate literals) and the regexp precompilation of its programs.
import type { Environment } from '@marcbachmann/cel-js';
import { regexpSyntaxError } from '#shared/lang/go/regexp.ts';

type AstNode = { readonly op: string; readonly args: unknown };

const isNode = (x: unknown): x is AstNode => typeof x === 'object' && x !== null && 'op' in x && 'args' in x;

/** The i-th argument of a call (not its receiver), if it is a string literal. */
function literalArgument(node: AstNode, i: number): string | undefined {
  const args = node.args as readonly unknown[];
  const callArgs = (node.op === 'rcall' ? args[2] : args[1]) as readonly unknown[] | undefined;
  const arg = callArgs?.[i];
  return isNode(arg) && arg.op === 'value' && typeof arg.args === 'string' ? arg.args : undefined;
}

const regexpFunctions = new Set(['matchesK8s', 'find', 'findAll']);

/** Why a literal is refused when a rule is compiled: `compile` as cel-go's validators word it, or `program`. */
export type LiteralError = { readonly phase: 'compile' | 'program'; readonly message: string };

function invalidRegexpLiteral(node: AstNode, name: string): LiteralError[] {
  // NOTE: cel-go's validator checks the first argument of matches (the string, not the pattern, of the global
  // form); the pattern is compiled again when the program is built (regexp optimization), which Kubernetes does
  // when it compiles a rule too.
  const first = name === 'matchesK8s' ? literalArgument(node, 0) : undefined;
  const errors: LiteralError[] = [];
  if (first !== undefined && regexpSyntaxError(first))
    errors.push({ phase: 'compile', message: 'invalid matches argument' });
  const pattern = literalArgument(node, node.op === 'rcall' ? 0 : 1);
  const error = pattern === undefined ? undefined : regexpSyntaxError(pattern);
  if (error) errors.push({ phase: 'program', message: error.message });
  return errors;
}

function invalidCallLiteral(env: Environment, node: AstNode): LiteralError[] {
  const name = String((node.args as readonly unknown[])[0]);
  if (regexpFunctions.has(name)) return invalidRegexpLiteral(node, name);
  const literal = literalArgument(node, 0);
  if (node.op !== 'call' || literal === undefined || (name !== 'duration' && name !== 'timestamp')) return [];
  try {
    env.evaluate(`${name}(${JSON.stringify(literal)})`, { self: null, oldSelf: null });
    return [];
  } catch {
    return [{ phase: 'compile', message: `invalid ${name} argument` }];
  }
}

/** A type as far as it is known: `undefined` parts depend on `self` or on type inference. */
type LiteralType =
  | { readonly kind: 'list'; readonly element: LiteralType | undefined }
  | { readonly kind: 'map'; readonly key: LiteralType | undefined; readonly value: LiteralType | undefined }
  | { readonly kind: string };

/** The part of cel-js's checked type that holds whatever `self` is (dyn and type parameters unknown). */
type CheckedType = {
  readonly kind: string;
  readonly name: string;
  readonly keyType?: CheckedType;
  readonly valueType?: CheckedType;
  readonly hasDynType: boolean;
  readonly hasPlaceholderType: boolean;
};

function fromChecked(type: CheckedType | undefined): LiteralType | undefined {
  if (type === undefined) return undefined;
  if (type.kind === 'list') return { kind: 'list', element: fromChecked(type.valueType) };
  if (type.kind === 'map') return { kind: 'map', key: fromChecked(type.keyType), value: fromChecked(type.valueType) };
  return type.hasDynType || type.hasPlaceholderType ? undefined : { kind: type.name };
}

function formatType(type: LiteralType | undefined): string {
  if (type === undefined) return 'T';
  if ('element' in type) return `list(${formatType(type.element)})`;
  if ('key' in type) return `map(${formatType(type.key)}, ${formatType(type.value)})`;
  return type.kind;
}

/** Whether two types differ in a part known in both: then cel-go's checker cannot find them equivalent. */
function conflict(a: LiteralType | undefined, b: LiteralType | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a.kind !== b.kind) return true;
  if ('element' in a && 'element' in b) return conflict(a.element, b.element);
  if ('key' in a && 'key' in b) return conflict(a.key, b.key) || conflict(a.value, b.value);
  return false;
}

/** The known parts of two types that do not conflict. */
function merge(a: LiteralType | undefined, b: LiteralType | undefined): LiteralType | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  if ('element' in a && 'element' in b) return { kind: 'list', element: merge(a.element, b.element) };
  if ('key' in a && 'key' in b) return { kind: 'map', key: merge(a.key, b.key), value: merge(a.value, b.value) };
  return a;
}

const mergeAll = (types: readonly (LiteralType | undefined)[]) => types.reduce(merge, undefined);

/**
 * The type of an expression as cel-go's checker sees it whatever `self` is: list and map literals from their
 * elements (a literal that mixes types is refused on its own), anything else as cel-js typed it with `self` dyn.
 */
function literalType(node: unknown): LiteralType | undefined {
  if (!isNode(node)) return undefined;
  if (node.op === 'list')
    return { kind: 'list', element: mergeAll((node.args as readonly unknown[]).map(literalType)) };
  if (node.op === 'map') {
    const entries = node.args as readonly (readonly [unknown, unknown])[];
    return {
      kind: 'map',
      key: mergeAll(entries.map(([k]) => literalType(k))),
      value: mergeAll(entries.map(([, v]) => literalType(v))),
    };
  }
  return fromChecked((node as { readonly checkedType?: CheckedType }).checkedType);
}

/** Two types that conflict: whatever the first element's type is, cel-go's validator reports one of them. */
function mixedTypes(nodes: readonly unknown[]): readonly [string, string] | undefined {
  const types = nodes.map(literalType);
  for (const [i, a] of types.entries())
    for (const b of types.slice(i + 1)) if (conflict(a, b)) return [formatType(a), formatType(b)];
  return undefined;
}

function mixedAggregate(node: AstNode): LiteralError[] {
  const entries = node.args as readonly unknown[];
  const mixed =
    node.op === 'list'
      ? mixedTypes(entries)
      : (mixedTypes(entries.map((e) => (e as readonly unknown[])[0])) ??
        mixedTypes(entries.map((e) => (e as readonly unknown[])[1])));
  return mixed ? [{ phase: 'compile', message: `expected type '${mixed[0]}' but found '${mixed[1]}'` }] : [];
}

function collect(env: Environment, ast: unknown, inFormat: boolean, out: LiteralError[]): void {
  if (Array.isArray(ast)) {
    for (const item of ast) collect(env, item, inFormat, out);
    return;
  }
  if (!isNode(ast)) return;
  const isCall = ast.op === 'call' || ast.op === 'rcall';
  if (isCall) out.push(...invalidCallLiteral(env, ast));
  // NOTE: cel-go exempts the aggregates anywhere inside a strings `format` call from the homogeneity check.
  const exempt = inFormat || (ast.op === 'rcall' && (ast.args as readonly unknown[])[0] === 'format');
  if (!exempt && (ast.op === 'list' || ast.op === 'map')) out.push(...mixedAggregate(ast));
  collect(env, ast.args, exempt, out);
}

/**
 * The error cel-go's literal validators (which the Kubernetes environment enables) and its regexp precompilation
 * report when a rule is compiled, if any: an invalid regexp literal given to `matches`, `find` or `findAll`, a
 * `duration` or `timestamp` of an invalid literal, a list or map literal mixing literals of different types. An
 * error of the checker's phase comes before one of the program's.
 *
 * @example
 * invalidLiterals(env, env.parse(withKubernetesFunctions('self.matches("[")')).ast);
 * // { phase: 'compile', message: 'invalid matches argument' }
 */
export function invalidLiterals(env: Environment, ast: unknown): LiteralError | undefined {
  const found: LiteralError[] = [];
  collect(env, ast, false, found);
  return found.find((e) => e.phase === 'compile') ?? found[0];
}
