// The runtime cost of CEL rules, counted as cel-go's cost tracker and Kubernetes' CEL library count it, and the
// limits apiextensions and Cluster API put on it (k8s.io/apiserver/pkg/apis/cel: PerCallLimit per evaluation,
// RuntimeCELCostBudget per validated value). cel-js has no cost hook, so the count is kept here, in the evaluator the
// environment uses: every node it runs is priced from its operator or function and the sizes of its arguments.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';

/** The cost limit of one evaluation of one expression (celconfig.PerCallLimit, "roughly 0.1 second"). */
export const PER_CALL_LIMIT = 1_000_000;

/** The cost budget of validating one value, all its rules together (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

/** cel-go's message when an evaluation passes its cost limit (interpreter.EvalCancelledError). */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** cel-go's common.StringTraversalCostFactor and common.RegexStringLengthCostFactor. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/** An evaluation went past its cost limit; no quantifier or logical operator absorbs it. */
export class CelCostLimitError extends CelFunctionError {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

const INFO: unique symbol = Symbol('celCost');

/** How a node is priced, worked out once per node and kept on it. */
type NodeInfo = {
  readonly kind: 'free' | 'unit' | 'list' | 'map' | 'macro' | 'operator' | 'call';
  /** The nodes whose values price it (a method's receiver first), for operators and calls. */
  readonly operands?: readonly Node[];
  readonly name?: string;
};

/** The parts of cel-js's AST nodes and evaluator the meter uses. */
type Node = {
  [INFO]?: NodeInfo;
  readonly op: string;
  readonly args: unknown;
  readonly meta?: { readonly macro?: unknown; readonly alternate?: unknown };
  evaluate(ev: Evaluator, node: Node, ctx: unknown): unknown;
};
type Evaluator = {
  run(node: Node, ctx: unknown): unknown;
  tryEval(node: Node, ctx: unknown): unknown;
};

/**
 * Counts the cost of one evaluation. Like cel-go's tracker it keeps the values of evaluated operands on a stack (no
 * allocation per node), from which a call or operator reads its own when it returns.
 */
class CostMeter {
  cost = 0;
  /** Whether the node running now is a macro (each evaluation of its body costs one more: cel-go's loop step). */
  private iterates = false;
  /** Whether the node running now is priced by its operands, which then go on the stack. */
  private priced = false;
  private readonly stackNodes: Node[] = [];
  private readonly stackValues: unknown[] = [];

  constructor(readonly limit: number) {}

  charge(units: number): void {
    this.cost += units;
    if (this.cost > this.limit) throw new CelCostLimitError();
  }

  /** Runs `node` (with `evaluate`, or by itself); returns its value and charges its own cost. */
  run(node: Node, ev: Evaluator | undefined, ctx: unknown, evaluate?: () => unknown): unknown {
    if (this.iterates) this.charge(1);
    const base = this.stackNodes.length;
    const outerIterates = this.iterates;
    const outerPriced = this.priced;
    const described = describe(node);
    this.iterates = described.kind === 'macro';
    this.priced = described.operands !== undefined;
    let value: unknown;
    try {
      value = evaluate ? evaluate() : node.evaluate(ev as Evaluator, node, ctx);
    } finally {
      this.iterates = outerIterates;
      this.priced = outerPriced;
    }
    this.charge(nodeCost(described, this, base, value));
    this.stackNodes.length = base;
    this.stackValues.length = base;
    if (outerPriced) {
      this.stackNodes.push(node);
      this.stackValues.push(value);
    }
    return value;
  }

  /** The value of `node` among the operands pushed since `base`. */
  operand(base: number, node: Node): unknown {
    for (let i = this.stackNodes.length - 1; i >= base; i--)
      if (this.stackNodes[i] === node) return this.stackValues[i];
    return undefined;
  }
}

let active: CostMeter | undefined;

/**
 * Adds cost to the evaluation running now, before work whose cost is known up front (a list of n elements to build,
 * n² comparisons to make); throws CelCostLimitError past the limit. Outside a metered evaluation it does nothing.
 *
 * @example
 * chargeCelCost(list.length * list.length); // before comparing every pair
 */
export function chargeCelCost(units: number): void {
  active?.charge(Math.ceil(units));
}

const MACRO_FUNCTIONS = new Set([
  'has',
  'all',
  'exists',
  'exists_one',
  'existsOne',
  'map',
  'filter',
  'transformList',
  'transformMap',
  'transformMapEntry',
  'sortBy',
  'optMap',
  'optFlatMap',
]);

const PRICED_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in', '+']);
const FREE = new Set(['value', '?:', '||', '&&', 'accuValue', 'accuInc', 'accuPush', 'comprehension']);

function describeNode(node: Node): NodeInfo {
  if (FREE.has(node.op)) return { kind: 'free' };
  if (node.op === 'list') return { kind: 'list' };
  if (node.op === 'map') return { kind: 'map' };
  if (PRICED_OPERATORS.has(node.op)) return { kind: 'operator', name: node.op, operands: node.args as Node[] };
  if (node.op !== 'call' && node.op !== 'rcall') return { kind: 'unit' };
  const name = (node.args as [string])[0];
  if (node.meta?.macro !== undefined || node.meta?.alternate !== undefined)
    return MACRO_FUNCTIONS.has(name) ? { kind: 'macro', name } : { kind: 'macro' };
  if (node.op === 'call') return { kind: 'call', name, operands: (node.args as [string, Node[]])[1] };
  const [, receiver, args] = node.args as [string, Node, Node[]];
  return { kind: 'call', name, operands: [receiver, ...args] };
}

function describe(node: Node): NodeInfo {
  return (node[INFO] ??= describeNode(node));
}

/** cel-go's actualSize: the size of strings, bytes, lists and maps (of an optional's value), 1 for anything else. */
function actualSize(value: unknown): number {
  if (typeof value === 'string' || value instanceof Uint8Array || Array.isArray(value)) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (value !== null && typeof value === 'object') {
    if (value.constructor === Object) return Object.keys(value).length;
    const inner = value as { hasValue?: () => boolean; value?: () => unknown };
    if (typeof inner.hasValue === 'function' && typeof inner.value === 'function' && inner.hasValue())
      return actualSize(inner.value());
  }
  return 1;
}

/** Kubernetes' traversalCost: a tenth per character of a string, 1 per scalar, summed over lists and maps. */
function traversalCost(value: unknown): number {
  if (typeof value === 'string' || value instanceof Uint8Array) return Math.floor(value.length * STRING_TRAVERSAL);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + traversalCost(item), 0);
  if (value instanceof Map) {
    let sum = 0;
    for (const [k, v] of value) sum += traversalCost(k) + traversalCost(v);
    return sum;
  }
  if (value !== null && typeof value === 'object' && value.constructor === Object)
    return Object.entries(value).reduce((sum, [k, v]) => sum + traversalCost(k) + traversalCost(v), 0);
  return 1;
}

const traverse = (value: unknown, factor = STRING_TRAVERSAL) => Math.ceil(actualSize(value) * factor);

/** The cost of a call, as cel-go's costCall and Kubernetes' library CostEstimator.CallCost price it. */
function callCost(name: string, args: readonly unknown[], result: unknown): number {
  const [first, second] = args;
  switch (name.replace(/K8s$/, '')) {
    case 'startsWith':
    case 'endsWith':
    case 'bytes':
    case 'quote':
    case 'format':
    case 'url':
    case 'isURL':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'ip':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      return Math.max(1, traverse(first));
    case 'string':
      return first instanceof Uint8Array ? traverse(first) : 1;
    case 'contains':
      return typeof first === 'string' ? traverse(first) * traverse(second) : 1;
    case 'matches':
    case 'find':
    case 'findAll':
      return Math.ceil((1 + actualSize(first)) * STRING_TRAVERSAL) * traverse(second, REGEX_LENGTH);
    // NOTE: cel-go prices replace and split by their input only; the size of the result is added here, so a
    // replacement that multiplies a string's length is priced by what it builds.
    case 'replace':
    case 'split':
      return traverse(first, 2 * STRING_TRAVERSAL) + traverse(result);
    case 'join':
      return traverse(result, 2 * STRING_TRAVERSAL);
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return 1 + traversalCost(first);
    case 'slice':
    case 'reverse':
    case 'flatten':
    case 'sort':
      return 1 + actualSize(result);
    default:
      return 1;
  }
}

/** The cost of an operator, as cel-go's costCall prices its overloads. */
function operatorCost(op: string, [left, right]: readonly unknown[]): number {
  switch (op) {
    case 'in':
      return Array.isArray(right) ? Math.max(1, right.length) : 1;
    case '+':
      // NOTE: cel-go concatenates lists lazily and prices it 1; here a concatenation copies, so it is priced as a
      // string's (a tenth per element).
      return typeof left === 'string' || left instanceof Uint8Array || Array.isArray(left)
        ? Math.max(1, Math.ceil((actualSize(left) + actualSize(right)) * STRING_TRAVERSAL))
        : 1;
    default:
      return Math.ceil(Math.min(actualSize(left), actualSize(right)) * STRING_TRAVERSAL);
  }
}

/** The cost of one evaluation of a node (its operands' costs are counted as they run). */
function nodeCost(node: NodeInfo, meter: CostMeter, base: number, result: unknown): number {
  switch (node.kind) {
    case 'free':
      return 0;
    case 'list':
      return 10;
    case 'map':
      return 30;
    case 'macro':
      // NOTE: a macro's own cost is its body's; has() is a select (1), as in cel-go.
      return node.name === undefined ? 0 : 1;
    case 'operator':
    case 'call': {
      const values = (node.operands ?? []).map((n) => meter.operand(base, n));
      return node.kind === 'call' ? callCost(node.name ?? '', values, result) : operatorCost(node.name ?? '', values);
    }
    default:
      return 1;
  }
}

/** The outcome of a metered evaluation: its value or error, and its cost. */
export type MeteredResult =
  | { readonly ok: true; readonly value: unknown; readonly cost: number }
  | {
      readonly ok: false;
      readonly error: unknown;
      readonly cost: number;
    };

/**
 * Evaluates a parsed expression (from an environment made by meterEnvironment) with a cost limit. Past the limit the
 * evaluation stops with CelCostLimitError; the cost is what was counted until then.
 *
 * @example
 * const parsed = env.parse('self.all(x, x > 0)');
 * evaluateWithCostLimit(parsed.ast, () => parsed({ self: [1n], oldSelf: null }), PER_CALL_LIMIT); // { ok: true, value: true, cost: 7 }
 */
export function evaluateWithCostLimit(root: unknown, evaluate: () => unknown, limit: number): MeteredResult {
  const outer = active;
  const meter = new CostMeter(limit);
  active = meter;
  try {
    const value = meter.run(root as Node, undefined, undefined, evaluate);
    return { ok: true, value, cost: meter.cost };
  } catch (error) {
    return { ok: false, error, cost: error instanceof CelCostLimitError ? limit + 1 : meter.cost };
  } finally {
    active = outer;
  }
}

/**
 * Makes an environment's evaluator count cost while evaluateWithCostLimit runs (elsewhere it runs as before). cel-js
 * runs every node but the root through its evaluator's `run`; the evaluator is reached through a function it calls
 * with itself as `this`.
 *
 * @example
 * const env = meterEnvironment(new Environment());
 */
export function meterEnvironment(env: Environment): Environment {
  let evaluator: Evaluator | undefined;
  // NOTE: the one way to the evaluator cel-js keeps private: it calls functions with it as `this`.
  env.registerFunction('celCostMeterProbe(): bool', function (this: Evaluator) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    evaluator = this;
    return true;
  });
  env.evaluate('celCostMeterProbe()');
  if (!evaluator) throw new Error('cel-js did not call a function with its evaluator');
  const metered = evaluator;
  metered.run = function (node, ctx) {
    return active ? active.run(node, this, ctx) : node.evaluate(this, node, ctx);
  };
  // NOTE: cel-js's quantifiers and logical operators absorb errors a later operand may decide; a cost limit must
  // stop the evaluation instead.
  metered.tryEval = function (node, ctx) {
    try {
      return this.run(node, ctx);
    } catch (error) {
      if (error instanceof CelCostLimitError) throw error;
      return error;
    }
  };
  return env;
}
