// Looking up `valueFrom.variable` paths (`name`, `name.field`, `name[0].field`) the way upstream's GetVariableValue does.
import { CapiError } from '#shared/errors/index.ts';

/** Variable name → JSON value, for one template (global variables merged with the template's own). */
export type VariableMap = ReadonlyMap<string, unknown>;

/** A variable path that does not resolve; `notFound` when the variable or a segment does not exist. */
export class VariableValueError extends CapiError {
  readonly notFound: boolean;

  constructor(message: string, notFound: boolean) {
    super(message, { reason: notFound ? 'VariableNotFound' : 'InvalidVariablePath' });
    this.notFound = notFound;
  }
}

type PathSegment = { readonly path: string; readonly index?: number };

/** Go's strconv.Atoi: optional sign, decimal digits, within int64. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n < -(2n ** 63n) || n > 2n ** 63n - 1n) return undefined;
  return Number(n);
}

function parsePathSegment(segment: string): PathSegment {
  const left = segment.indexOf('[');
  const right = segment.indexOf(']');
  if (left >= 0 !== right >= 0 || right < left) {
    throw new VariableValueError(`failed to parse path segment "${segment}"`, false);
  }
  if (left < 0) return { path: segment };
  const indexText = segment.slice(left + 1, right);
  const index = atoi(indexText);
  if (index === undefined) {
    throw new VariableValueError(`failed to parse array index in path segment "${segment}"`, false);
  }
  if (index < 0) throw new VariableValueError(`invalid array index ${index} in path segment "${segment}"`, false);
  return { path: segment.slice(0, left), index };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** fastjson's Get(key): object keys, or a decimal index into an array; undefined when absent. */
function getChild(value: unknown, key: string): unknown {
  if (isObject(value)) return Object.hasOwn(value, key) ? value[key] : undefined;
  if (Array.isArray(value)) {
    const index = atoi(key);
    return index !== undefined && index >= 0 && index < value.length ? (value[index] as unknown) : undefined;
  }
  return undefined;
}

function arrayElement(value: unknown, segment: PathSegment, fullPath: string): unknown {
  if (!Array.isArray(value)) {
    throw new VariableValueError(`variable "${fullPath}" is invalid: failed to get array "${segment.path}"`, false);
  }
  const index = segment.index ?? 0;
  if (value.length < index + 1) {
    throw new VariableValueError(`variable "${fullPath}" is invalid: array does not have index ${index}`, false);
  }
  return value[index] as unknown;
}

/**
 * The value at `variablePath` (`<variable>[.<field>|[<index>]]...`): split on `.`, each segment an object key
 * optionally followed by one `[index]`; a bare decimal segment also indexes an array (upstream's fastjson quirk).
 * Throws a VariableValueError (`notFound` set) with upstream's messages.
 *
 * @example
 * getVariableValue(new Map([['cfg', { list: [{ a: 1 }] }]]), 'cfg.list[0].a'); // 1
 */
export function getVariableValue(variables: VariableMap, variablePath: string): unknown {
  const [variableName = '', ...relativePath] = variablePath.split('.');
  let nameSegment: PathSegment;
  try {
    nameSegment = parsePathSegment(variableName);
  } catch (err) {
    throw new VariableValueError(`variable "${variablePath}" is invalid: ${(err as Error).message}`, false);
  }
  if (!variables.has(nameSegment.path)) {
    throw new VariableValueError(`variable "${variableName}" does not exist`, true);
  }
  let value = variables.get(nameSegment.path);
  if (nameSegment.index !== undefined) value = arrayElement(value, nameSegment, variablePath);
  for (const part of relativePath) {
    let segment: PathSegment;
    try {
      segment = parsePathSegment(part);
    } catch (err) {
      throw new VariableValueError(`variable "${variablePath}" has invalid syntax: ${(err as Error).message}`, false);
    }
    const child = getChild(value, segment.path);
    if (child === undefined) {
      throw new VariableValueError(
        `variable "${variablePath}" does not exist: failed to lookup segment "${segment.path}"`,
        true,
      );
    }
    value = child;
    if (segment.index !== undefined) value = arrayElement(value, segment, variablePath);
  }
  return value;
}
