// The static cost estimate of CEL rules, as apiextensions computes it when a schema is written (cel-go's
// checker.Cost with Kubernetes' library.CostEstimator and the sizes apiextensions reads from the schema: maxLength,
// maxItems, maxProperties, else what fits in a request), and the limits Cluster API v1.14 puts on it for ClusterClass
// variable schemas (StaticEstimatedCostLimit per expression, StaticEstimatedCRDCostLimit per schema). Only the
// maximum of cel-go's estimate is kept: it is the one the limits are checked against.
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';

/** The largest estimated cost of one rule or messageExpression (apiextensions' StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;

/** The largest estimated cost of all rules of one variable schema (apiextensions' StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** celconfig.MaxRequestSizeBytes: the sizes of unbounded strings, lists and maps are what fits in a request. */
const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** cel-go's uint64 arithmetic saturates; so does this (2^64, past every limit). */
const MAX_UINT64 = 2 ** 64;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
/** cel.MaxNameFormatRegexSize, the regexp size Kubernetes assumes for a format's validate(). */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

/**
 * What apiextensions' DeclType keeps of a schema for the estimate (common.SchemaDeclType): the largest size of a value
 * (characters ×4 for a maxLength, items, properties; 0 for scalars) and the smallest it takes serialized.
 */
export type DeclSize = {
  readonly kind: 'list' | 'map' | 'object' | 'string' | 'bytes' | 'int' | 'double' | 'bool' | 'dyn' | 'time';
  readonly maxElements: number;
  readonly minSerializedSize: number;
  readonly elem?: DeclSize;
  readonly fields?: ReadonlyMap<string, DeclSize>;
};

const unboundedString = MAX_REQUEST_SIZE_BYTES - 2;

function scalar(kind: DeclSize['kind'], minSerializedSize: number, maxElements = 0): DeclSize {
  return { kind, maxElements, minSerializedSize };
}

function stringSize(schema: JSONSchemaProps): DeclSize {
  const maxLength = schema.maxLength === undefined ? undefined : Math.max(0, schema.maxLength);
  switch (schema.format) {
    case 'byte':
      return scalar('bytes', 2, maxLength ?? unboundedString);
    case 'duration':
      return scalar('time', 3, 32);
    case 'date':
      return scalar('time', 12, 12);
    case 'date-time':
      return scalar('time', 21, 32);
  }
  if (maxLength !== undefined) return scalar('string', 2, maxLength * 4);
  const enumStrings = (schema.enum ?? []).filter((v): v is string => typeof v === 'string');
  if ((schema.enum ?? []).length > 0)
    return scalar('string', 2, Math.max(0, ...enumStrings.map((s) => Buffer.byteLength(s))));
  return scalar('string', 2, unboundedString);
}

/**
 * The sizes apiextensions gives a schema (common.SchemaDeclType); undefined where it has no CEL type. A resource root
 * also has `apiVersion`, `kind` and `metadata`.
 *
 * @example
 * computeDeclSize({ type: 'string', maxLength: 10 }).maxElements; // 40
 */
export function computeDeclSize(schema: JSONSchemaProps, isResourceRoot = false): DeclSize | undefined {
  if (schema['x-kubernetes-int-or-string']) {
    return scalar('dyn', 1, schema.maxLength === undefined ? unboundedString : Math.max(0, schema.maxLength) * 4);
  }
  switch (schema.type) {
    case 'array': {
      if (!schema.items) return undefined;
      const elem = computeDeclSize(schema.items);
      if (!elem) return undefined;
      const maxItems =
        schema.maxItems === undefined
          ? Math.floor(unboundedString / (elem.minSerializedSize + 1))
          : Math.max(0, schema.maxItems);
      return { kind: 'list', maxElements: maxItems, minSerializedSize: 2, elem };
    }
    case 'object': {
      const values = schema.additionalProperties;
      if (typeof values === 'object') {
        const elem = computeDeclSize(values);
        if (!elem) return undefined;
        const maxProperties =
          schema.maxProperties === undefined
            ? Math.floor(unboundedString / (elem.minSerializedSize + 6))
            : Math.max(0, schema.maxProperties);
        return { kind: 'map', maxElements: maxProperties, minSerializedSize: 2, elem };
      }
      const fields = new Map<string, DeclSize>();
      const required = new Set(schema.required ?? []);
      let minSerializedSize = 2;
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const field = computeDeclSize(property);
        if (!field) continue;
        fields.set(name, field);
        if (required.has(name) && property.default === undefined)
          minSerializedSize += Buffer.byteLength(name) + field.minSerializedSize + 4;
      }
      if (isResourceRoot) {
        const str = scalar('string', 2, unboundedString);
        if (!fields.has('apiVersion')) fields.set('apiVersion', str);
        if (!fields.has('kind')) fields.set('kind', str);
        if (!fields.has('metadata')) {
          const meta = new Map([
            ['name', str],
            ['generateName', str],
          ]);
          fields.set('metadata', { kind: 'object', maxElements: 0, minSerializedSize: 2, fields: meta });
        }
      }
      return { kind: 'object', maxElements: 0, minSerializedSize, fields };
    }
    case 'string':
      return stringSize(schema);
    case 'boolean':
      return scalar('bool', 4);
    case 'number':
      return scalar('double', 1);
    case 'integer':
      return scalar('int', 1);
    default:
      return undefined;
  }
}

/**
 * How many times data of this minimum size could appear in one request (apiextensions' maxCardinality): the
 * cardinality of a rule under a list or map without maxItems or maxProperties.
 */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1));
}

/**
 * By how much a schema's children may repeat within one of its values (apiextensions' extractMaxElements): maxItems or
 * maxProperties, 1 for an object's properties, undefined when unbounded.
 */
export function childCardinalityFactor(schema: JSONSchemaProps): number | undefined {
  const bound = (limit: number | undefined) => (limit === undefined ? undefined : Math.max(0, limit));
  if (schema.type === 'array') return bound(schema.maxItems);
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return bound(schema.maxProperties);
  return 1;
}

/**
 * The estimated cost of all rules and messageExpressions of one schema (apiextensions' TotalCost), with the four most
 * expensive of those that make up at least 1% of the schema's limit.
 */
export class StaticCostTotal {
  total = 0;
  readonly mostExpensive: { readonly path: string; readonly cost: number }[] = [];

  observe(path: string, cost: number): void {
    this.total = Math.min(this.total + cost, MAX_UINT64);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.splice(4);
  }
}

/** cel-go's multiplyWithOverflowGuard / multiplyUint64NoOverflow. */
export function multiplyCost(a: number, b: number): number {
  return Math.min(a * b, MAX_UINT64);
}

const add = (...values: number[]) =>
  Math.min(
    values.reduce((sum, v) => sum + v, 0),
    MAX_UINT64,
  );
/** cel-go's multiplyByCostFactor: the product rounded up. */
const byFactor = (size: number, factor: number) => Math.min(Math.ceil(size * factor), MAX_UINT64);

/** The parts of cel-js's AST nodes the estimate reads. */
type Node = {
  readonly op: string;
  readonly args: unknown;
  readonly meta?: { readonly macro?: unknown; readonly alternate?: unknown };
  readonly checkedType?: { readonly kind: string; readonly name: string; readonly valueType?: unknown };
};

/** The sizes of a list's elements or a map's keys and values, where the expression built them (entrySizeEstimate). */
type EntrySize = { readonly container: 'list' | 'map'; readonly key: number; readonly val: number };

type LocalVar = {
  readonly path: readonly string[] | undefined;
  readonly size?: number | undefined;
  readonly entry?: EntrySize | undefined;
};

type Info = { path?: readonly string[]; size?: number | undefined; entry?: EntrySize | undefined };

function nodeArgs(node: Node): Node[] {
  return Array.isArray(node.args) ? (node.args as Node[]) : [node.args as Node];
}

/** Estimates the maximum cost of one expression, in cel-go's units, with `self` of the given sizes. */
class CostEstimator {
  private readonly info = new Map<Node, Info>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(private readonly root: DeclSize | undefined) {}

  private at(node: Node): Info {
    let info = this.info.get(node);
    if (!info) this.info.set(node, (info = {}));
    return info;
  }

  private push(name: string, local: LocalVar): void {
    this.locals.set(name, [...(this.locals.get(name) ?? []), local]);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack?.[stack.length - 1];
  }

  path(node: Node): readonly string[] | undefined {
    if (node.op === 'id') {
      const local = this.peek(node.args as string);
      if (local) return local.path;
    }
    return this.info.get(node)?.path;
  }

  /** The schema node a path reaches (the sizeEstimator of apiextensions' compilation.go: the first step is `self`). */
  private declAt(path: readonly string[] | undefined): DeclSize | undefined {
    if (!path || path.length === 0 || !this.root) return undefined;
    let current: DeclSize | undefined = this.root;
    for (const name of path.slice(1)) {
      if (name === '@items' || name === '@values') current = current.elem;
      else if (name === '@keys') current = current.kind === 'map' ? scalar('string', 2, 0) : undefined;
      else current = current.fields?.get(name);
      if (!current) return undefined;
    }
    return current;
  }

  /** The kind of a node's value: from the schema where its path leads, else from cel-js's type check. */
  kind(node: Node): string {
    const decl = this.declAt(this.path(node));
    if (decl) return decl.kind;
    const type = node.checkedType;
    if (!type) return 'dyn';
    if (type.kind === 'primitive' || type.kind === 'list' || type.kind === 'map') {
      const name = type.name;
      if (name.startsWith('list')) return 'list';
      if (name.startsWith('map')) return 'map';
      if (name === 'google.protobuf.Timestamp' || name === 'google.protobuf.Duration') return 'time';
      return name;
    }
    return type.kind === 'optional' ? `optional<${type.name}>` : type.name;
  }

  private isScalar(node: Node): boolean {
    const kind = this.kind(node);
    return ['int', 'uint', 'double', 'bool', 'time'].includes(kind);
  }

  /** cel-go's computeSize: computed, literal, schema, scalar type, then a local variable's size. */
  size(node: Node): number | undefined {
    const computed = this.info.get(node)?.size;
    if (computed !== undefined) return computed;
    if (node.op === 'value') {
      const value = node.args;
      if (typeof value === 'string') return [...value].length;
      if (value instanceof Uint8Array) return value.length;
      if (value !== null && typeof value === 'object') return undefined;
      return 1;
    }
    if (node.op === 'list') return nodeArgs(node).length;
    if (node.op === 'map') return nodeArgs(node).length;
    const decl = this.declAt(this.path(node));
    if (decl) return decl.maxElements;
    if (this.isScalar(node)) return 1;
    if (node.op === 'id') return this.peek(node.args as string)?.size;
    return undefined;
  }

  sizeOrUnknown(node: Node): number {
    return this.size(node) ?? MAX_UINT64;
  }

  private entry(node: Node): EntrySize | undefined {
    const computed = this.info.get(node)?.entry;
    if (computed) return computed;
    if (node.op === 'id') return this.peek(node.args as string)?.entry;
    return undefined;
  }

  cost(node: Node): number {
    switch (node.op) {
      case 'value':
        return 0;
      case 'id': {
        const name = node.args as string;
        this.at(node).path = this.peek(name)?.path ?? [name];
        return 1;
      }
      case '.': {
        const [operand, field] = node.args as [Node, string];
        const cost = this.cost(operand);
        const kind = this.kind(operand);
        this.at(node).path = [...(this.path(operand) ?? []), field];
        // NOTE: a field selection costs 1 on maps and objects (dyn, type parameters), nothing elsewhere.
        return add(cost, kind === 'map' || kind === 'object' ? 1 : 0);
      }
      case 'list':
        return this.costList(node);
      case 'map':
        return this.costMap(node);
      case 'call':
      case 'rcall':
        return this.costCall(node);
      default:
        return this.costOperator(node);
    }
  }

  private costList(node: Node): number {
    const elements = nodeArgs(node);
    let sum = 0;
    let itemMax = 0;
    for (const element of elements) {
      sum = add(sum, this.cost(element));
      itemMax = Math.max(itemMax, this.sizeOrUnknown(element));
    }
    this.at(node).entry = { container: 'list', key: 1, val: itemMax };
    return add(sum, LIST_CREATE);
  }

  private costMap(node: Node): number {
    let sum = 0;
    let keyMax = 0;
    let valMax = 0;
    for (const [key, value] of node.args as [Node, Node][]) {
      sum = add(sum, this.cost(key), this.cost(value));
      keyMax = Math.max(keyMax, this.sizeOrUnknown(key));
      valMax = Math.max(valMax, this.sizeOrUnknown(value));
    }
    this.at(node).entry = { container: 'map', key: keyMax, val: valMax };
    return add(sum, MAP_CREATE);
  }

  private costOperator(node: Node): number {
    const args = nodeArgs(node);
    switch (node.op) {
      case '&&':
      case '||':
        return add(this.cost(args[0] as Node), this.cost(args[1] as Node));
      case '?:': {
        const [cond, ifTrue, ifFalse] = args as [Node, Node, Node];
        const cost = add(this.cost(cond), Math.max(this.cost(ifTrue), this.cost(ifFalse)));
        this.at(node).size = Math.max(this.sizeOrUnknown(ifTrue), this.sizeOrUnknown(ifFalse));
        const [t, f] = [this.entry(ifTrue), this.entry(ifFalse)];
        if (t && f)
          this.at(node).entry = { container: t.container, key: Math.max(t.key, f.key), val: Math.max(t.val, f.val) };
        return cost;
      }
      case '[]': {
        const [operand, index] = args as [Node, Node];
        const cost = add(this.cost(index), this.cost(operand), 1);
        const container = this.kind(operand) === 'map' ? '@values' : '@items';
        this.at(node).path = [...(this.path(operand) ?? []), container];
        const entry = this.entry(operand);
        if (entry) this.at(node).size = entry.val;
        return cost;
      }
      case '.?':
      case '[?]':
        return add(...args.map((a) => (typeof a === 'object' && a !== null && 'op' in a ? this.cost(a) : 0)), 1);
      default:
        return this.costFunction(node.op, undefined, args, node);
    }
  }

  private argCosts(args: readonly Node[]): number {
    return add(...args.map((a) => this.cost(a)));
  }

  private costCall(node: Node): number {
    const [rawName, ...rest] = node.args as [string, ...unknown[]];
    let name = rawName.replace(/K8s$/, '');
    let receiver = node.op === 'rcall' ? (rest[0] as Node) : undefined;
    // NOTE: cel-js reads a namespaced function (`sets.contains(a, b)`) as a method of an identifier.
    if (receiver?.op === 'id' && NAMESPACES.has(receiver.args as string) && !this.peek(receiver.args as string)) {
      name = `${receiver.args as string}.${name}`;
      receiver = undefined;
    }
    const args = (node.op === 'rcall' ? rest[1] : rest[0]) as Node[];
    if (node.meta?.macro !== undefined || node.meta?.alternate !== undefined) {
      if (name === 'has') {
        // NOTE: Kubernetes prices has() at 0 (PresenceTestHasCost(false)); its operand is still evaluated.
        const select = args[0] as Node;
        return this.cost(nodeArgs(select)[0] as Node);
      }
      if (receiver && COMPREHENSIONS.has(name)) return this.costComprehension(node, name, receiver, args);
      if (receiver && name === 'sortBy') return this.costSortBy(node, receiver, args);
      if (receiver && (name === 'optMap' || name === 'optFlatMap'))
        return add(this.cost(receiver), 1, this.costInScope(args, receiver));
    }
    if (name === 'dyn' && args.length === 1) {
      const cost = add(1, this.cost(args[0] as Node));
      const info = this.at(node);
      info.size = this.size(args[0] as Node);
      info.entry = this.entry(args[0] as Node);
      return cost;
    }
    return this.costFunction(name, receiver, args, node);
  }

  /** Prices a function or operator call; its receiver's and arguments' costs included. */
  private costFunction(name: string, receiver: Node | undefined, args: readonly Node[], node: Node): number {
    const argCost = this.argCosts(args);
    const receiverCost = receiver ? this.cost(receiver) : 0;
    const estimate = this.callEstimate(name, receiver, args, node);
    if (estimate.size !== undefined) this.at(node).size = estimate.size;
    return add(receiverCost, estimate.cost, argCost);
  }

  /** The call's own cost and result size (cel-go's functionCost, ext's estimators, Kubernetes' EstimateCallCost). */
  private callEstimate(
    name: string,
    target: Node | undefined,
    args: readonly Node[],
    node: Node,
  ): { cost: number; size?: number } {
    const size = (n: Node | undefined) => (n ? this.sizeOrUnknown(n) : MAX_UINT64);
    const [a0, a1] = args;
    const literalInt = (n: Node | undefined, fallback: number) =>
      n?.op === 'value' && typeof n.args === 'bigint' && n.args >= 0n ? Number(n.args) : fallback;
    const listCall = (factor: number, listSize: number) => ({
      cost: add(byFactor(listSize, factor), 1, LIST_CREATE),
      size: listSize,
    });
    switch (name) {
      // cel-go's ext lists (version 3) and sets.
      case 'slice':
        if (target && args.length === 2) {
          const start = literalInt(a0, 0);
          return listCall(1, Math.max(0, literalInt(a1, size(target)) - start));
        }
        break;
      case 'lists.range':
        if (!target && args.length === 1) return listCall(1, literalInt(a0, MAX_UINT64));
        break;
      case 'reverse':
        if (target && args.length === 0 && this.kind(target) === 'list') return listCall(1, size(target));
        break;
      case 'flatten':
        if (target && args.length <= 1)
          return listCall(args.length === 1 ? literalInt(a0, MAX_UINT64) : 1, size(target));
        break;
      case 'distinct':
        if (target && args.length === 0) return listCall(2, multiplyCost(size(target), size(target)));
        break;
      case 'sort':
        if (target && args.length === 0) {
          const elem = this.elementKind(target);
          return listCall(elem === 'string' || elem === 'bytes' ? 2.1 : 2, multiplyCost(size(target), size(target)));
        }
        break;
      case 'sets.contains':
      case 'sets.intersects':
      case 'sets.equivalent':
        if (args.length === 2)
          return { cost: add(byFactor(multiplyCost(size(a0), size(a1)), name === 'sets.equivalent' ? 2 : 1), 1) };
        break;
      // Kubernetes' library (library/cost.go).
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (target) {
          if (this.kind(target) === 'list' || this.kind(target).startsWith('list')) {
            const elem = this.elementKind(target);
            const elemCost =
              elem === 'string' || elem === 'bytes' ? add(1, byFactor(this.elementSize(target), STRING_TRAVERSAL)) : 1;
            return { cost: multiplyCost(size(target), elemCost) };
          }
          return { cost: byFactor(size(target), STRING_TRAVERSAL) };
        }
        break;
      case 'url':
        if (args.length === 1) return { cost: byFactor(size(a0), STRING_TRAVERSAL), size: size(a0) };
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target) return { cost: byFactor(size(target), STRING_TRAVERSAL), size: size(target) };
        break;
      case 'replace':
        if (target && args.length >= 2) return this.replaceEstimate(size(target), size(a0), size(a1), a0);
        break;
      case 'split':
        if (target) return { cost: byFactor(size(target), 2 * STRING_TRAVERSAL), size: literalInt(a1, size(target)) };
        break;
      case 'join':
        if (target) {
          let joined = multiplyCost(size(target), this.elementSize(target));
          if (args.length > 0) joined = add(joined, multiplyCost(size(a0), Math.max(0, size(target) - 1)));
          return { cost: byFactor(joined, STRING_TRAVERSAL), size: joined };
        }
        break;
      case 'find':
      case 'findAll':
        if (target && args.length >= 1)
          return {
            cost: multiplyCost(byFactor(add(size(target), 1), STRING_TRAVERSAL), byFactor(size(a0), REGEX_LENGTH)),
            size: size(target),
          };
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        if (args.length >= 1) return { cost: byFactor(size(a0), STRING_TRAVERSAL) };
        break;
      case 'ip':
        if (target && args.length === 0) return { cost: 1 };
        if (args.length >= 1) return { cost: byFactor(size(a0), STRING_TRAVERSAL) };
        break;
      case 'ip.isCanonical':
        if (args.length >= 1) return { cost: byFactor(size(a0), 2 * STRING_TRAVERSAL) };
        break;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
      case 'format.named':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
      case 'major':
      case 'minor':
      case 'patch':
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return { cost: 1 };
      case 'containsIP':
      case 'containsCIDR':
        if (args.length >= 1) {
          let cost = byFactor(32, STRING_TRAVERSAL);
          if (name === 'containsCIDR') cost = add(cost, byFactor(16, STRING_TRAVERSAL), 1);
          if (this.kind(a0 as Node) === 'string') cost = add(cost, byFactor(size(a0), STRING_TRAVERSAL));
          return { cost };
        }
        break;
      case 'validate':
        if (args.length >= 1)
          return { cost: byFactor(byFactor(size(a0), STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH) };
        break;
      // cel-go's own (checker/cost.go functionCost).
      case 'format':
        if (target) return { cost: byFactor(size(target), STRING_TRAVERSAL) };
        break;
      case 'bytes':
        if (args.length === 1 && this.kind(a0 as Node) === 'string')
          return { cost: byFactor(size(a0), STRING_TRAVERSAL), size: multiplyCost(size(a0), 4) };
        break;
      case 'string':
        if (args.length === 1 && this.kind(a0 as Node) === 'bytes')
          return { cost: byFactor(size(a0), STRING_TRAVERSAL), size: size(a0) };
        break;
      case 'strings.quote':
        if (args.length === 1)
          return { cost: byFactor(size(a0), STRING_TRAVERSAL), size: add(multiplyCost(size(a0), 2), 2) };
        break;
      case 'startsWith':
      case 'endsWith':
        if (target && args.length === 1) return { cost: byFactor(size(a0), STRING_TRAVERSAL) };
        break;
      case 'in':
        if (this.kind(a1 as Node) === 'list') return { cost: size(a1) };
        break;
      case 'matches':
        if (target || args.length === 2) {
          const [str, regex] = target ? [target, a0] : [a0, a1];
          return {
            cost: multiplyCost(byFactor(add(size(str), 1), STRING_TRAVERSAL), byFactor(size(regex), REGEX_LENGTH)),
          };
        }
        break;
      case 'contains':
        if (target && args.length === 1 && this.kind(target) === 'string')
          return {
            cost: multiplyCost(byFactor(size(target), STRING_TRAVERSAL), byFactor(size(a0), STRING_TRAVERSAL)),
          };
        break;
      case '+': {
        const kind = this.kind(node);
        const leftKind = this.kind(a0 as Node);
        const isList = kind === 'list' || leftKind === 'list';
        if (isList || ['string', 'bytes'].includes(kind) || ['string', 'bytes'].includes(leftKind)) {
          const result = add(size(a0), size(a1));
          const [l, r] = [this.entry(a0 as Node), this.entry(a1 as Node)];
          if (l && r)
            this.at(node).entry = { container: l.container, key: Math.max(l.key, r.key), val: Math.max(l.val, r.val) };
          return isList ? { cost: 1, size: result } : { cost: byFactor(result, STRING_TRAVERSAL), size: result };
        }
        break;
      }
      case '<':
      case '>':
      case '<=':
      case '>=':
        if (['string', 'bytes'].includes(this.kind(a0 as Node)))
          return { cost: byFactor(Math.min(size(a0), size(a1)), STRING_TRAVERSAL) };
        break;
      case '==':
      case '!=': {
        const special = name === '==' ? this.equalityOfKubernetesTypes(a0 as Node, a1 as Node) : undefined;
        return { cost: special ?? byFactor(Math.min(size(a0), size(a1)), STRING_TRAVERSAL) };
      }
    }
    return { cost: 1 };
  }

  /** Kubernetes' `_==_` prices equality of its opaque and object types on its own. */
  private equalityOfKubernetesTypes(left: Node, right: Node): number | undefined {
    const type = left.checkedType?.name;
    if (!type || type !== right.checkedType?.name) return undefined;
    if (['net.IP', 'net.CIDR', 'kubernetes.Quantity', 'kubernetes.Semver'].includes(type)) return 1;
    if (type === 'kubernetes.NamedFormat') return byFactor(64, STRING_TRAVERSAL);
    if (type === 'kubernetes.URL') return byFactor(this.sizeOrUnknown(right), STRING_TRAVERSAL);
    return undefined;
  }

  private replaceEstimate(target: number, from: number, to: number, fromNode: Node | undefined) {
    // NOTE: only the maximum; cel-go's minimum of the replaced string's size is 0 unless it is a literal.
    const fromMin = fromNode?.op === 'value' ? from : 0;
    let count: number;
    let retained = 0;
    if (fromMin === 0) {
      count = target < MAX_UINT64 ? target + 1 : target;
      retained = target;
    } else if (to <= fromMin) {
      count = 0;
      retained = target;
    } else {
      count = Math.ceil(target / fromMin);
    }
    return { cost: byFactor(target, 2 * STRING_TRAVERSAL), size: add(multiplyCost(count, to), retained) };
  }

  private elementKind(list: Node): string | undefined {
    const decl = this.declAt(this.path(list));
    if (decl?.elem) return decl.elem.kind;
    const name = list.checkedType?.name ?? '';
    const match = /^list<(.*)>$/.exec(name);
    return match?.[1];
  }

  /** The size of a list's elements (Kubernetes' listElementNode): by schema path, else scalar 1, else unknown. */
  private elementSize(list: Node): number {
    const path = this.path(list);
    if (path) {
      const decl = this.declAt([...path, '@items']);
      if (decl) return decl.maxElements;
    }
    const elem = this.elementKind(list);
    if (elem && ['int', 'uint', 'double', 'bool'].includes(elem)) return 1;
    return MAX_UINT64;
  }

  /** The cost of a macro's last argument with its variable bound to the receiver's value (optMap, optFlatMap). */
  private costInScope(args: readonly Node[], receiver: Node): number {
    const name = args[0]?.args as string;
    this.push(name, { path: this.path(receiver), size: this.size(receiver) });
    const cost = this.cost(args[args.length - 1] as Node);
    this.pop(name);
    return cost;
  }

  /**
   * NOTE: an approximation of cel-go's expansion of sortBy (a binding of the list, the keys computed as by map, then
   * @sortByAssociatedKeys priced as sort over the keys).
   */
  private costSortBy(node: Node, range: Node, args: readonly Node[]): number {
    const keys = { op: 'rcall', args: ['map', range, args], meta: { alternate: true } } as unknown as Node;
    const mapCost = this.costComprehension(keys, 'map', range, args);
    const elem = this.entry(keys)?.val;
    const n = this.sizeOrUnknown(range);
    const keyKind = this.kind(args[args.length - 1] as Node);
    const factor = keyKind === 'string' || keyKind === 'bytes' ? 2.1 : 2;
    this.at(node).size = n;
    if (elem !== undefined) this.at(node).entry = this.entry(range);
    return add(mapCost, byFactor(multiplyCost(n, n), factor), 1, LIST_CREATE);
  }

  /**
   * A macro, priced as cel-go prices the comprehension it expands to: the range, the accumulator's start, the result,
   * and per element the loop condition and the step.
   */
  private costComprehension(node: Node, name: string, range: Node, args: readonly Node[]): number {
    const rangeCost = this.cost(range);
    // NOTE: cel-js's own macros (one variable) are `alternate`s; the two-variable ones are this package's macros.
    const twoVars = node.meta?.macro !== undefined && TWO_VARIABLE_MACROS.has(name);
    const varCount = twoVars ? 2 : 1;
    const iterVars = args.slice(0, varCount).map((a) => a.args as string);
    const body = args[args.length - 1] as Node;
    const filter = args.length === varCount + 2 ? (args[varCount] as Node) : undefined;
    const rangePath = this.path(range) ?? [];
    const entry = this.entry(range);
    const container = entry?.container ?? (this.kind(range) === 'map' ? 'map' : 'list');
    const [first, second] = iterVars as [string, string | undefined];
    if (second !== undefined) {
      this.push(first, { path: [...rangePath, container === 'list' ? '@indices' : '@keys'], size: entry?.key });
      this.push(second, { path: [...rangePath, container === 'list' ? '@items' : '@values'], size: entry?.val });
    } else {
      this.push(first, {
        path: [...rangePath, container === 'list' ? '@items' : '@keys'],
        size: container === 'list' ? entry?.val : entry?.key,
      });
    }
    const bodyCost = this.cost(body);
    const filterCost = filter ? this.cost(filter) : 0;
    const bodySize = this.sizeOrUnknown(body);
    const iterSize = this.sizeOrUnknown({ op: 'id', args: first } as Node);
    for (const v of iterVars) this.pop(v);
    let init = 0;
    let perElement: number;
    let result = 1;
    switch (name) {
      case 'all':
        // loop condition @not_strictly_false(accu): 2; step accu && body.
        perElement = add(2, 1, bodyCost);
        break;
      case 'exists':
        // loop condition @not_strictly_false(!accu): 3; step accu || body.
        perElement = add(3, 1, bodyCost);
        break;
      case 'exists_one':
      case 'existsOne':
        // step body ? accu + 1 : accu; result accu == 1.
        perElement = add(bodyCost, 2);
        result = 2;
        break;
      case 'map':
      case 'transformList':
        // accumulator [] (10); step (filter ?) accu + [body] : accu.
        init = LIST_CREATE;
        perElement = add(filterCost, 1, 1, LIST_CREATE, bodyCost);
        this.at(node).entry = { container: 'list', key: 1, val: bodySize };
        break;
      case 'filter':
        // accumulator [] (10); step body ? accu + [x] : accu.
        init = LIST_CREATE;
        perElement = add(bodyCost, 1, 1, LIST_CREATE, 1);
        this.at(node).entry = { container: 'list', key: 1, val: iterSize };
        break;
      case 'transformMap':
      case 'transformMapEntry':
        // accumulator {} (30); step (filter ?) @mapInsert(accu, …) : accu.
        init = MAP_CREATE;
        perElement = add(filterCost, 1, 1, name === 'transformMap' ? 1 : 0, bodyCost);
        break;
      default:
        perElement = add(1, bodyCost, filterCost);
    }
    if (init > 0) this.at(node).size = this.sizeOrUnknown(range);
    return add(rangeCost, init, result, multiplyCost(this.sizeOrUnknown(range), perElement));
  }
}

/** The namespaces of functions in the Kubernetes base environment. */
const NAMESPACES = new Set(['sets', 'lists', 'strings', 'format', 'ip', 'optional', 'math', 'base64']);

/** The macros that expand to comprehensions. */
const COMPREHENSIONS = new Set([
  'all',
  'exists',
  'existsOne',
  'exists_one',
  'map',
  'filter',
  'transformList',
  'transformMap',
  'transformMapEntry',
]);

const TWO_VARIABLE_MACROS = new Set([
  'all',
  'exists',
  'existsOne',
  'exists_one',
  'transformList',
  'transformMap',
  'transformMapEntry',
]);

/**
 * The maximum cost cel-go estimates for an expression (apiextensions' CompilationResult.MaxCost), from its cel-js AST
 * (type-checked) and the sizes of `self`.
 *
 * @example
 * estimateCelCost(env.parse('self.all(x, x > 0)').ast, computeDeclSize({ type: 'array', maxItems: 10, items: { type: 'integer' } })); // 52
 */
export function estimateCelCost(ast: unknown, self: DeclSize | undefined): number {
  try {
    return new CostEstimator(self).cost(ast as Node);
  } catch {
    // NOTE: an AST shape this estimate does not know is left to the runtime limits rather than failing validation.
    return 0;
  }
}

/** apiextensions' getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
