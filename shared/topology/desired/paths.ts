// Reading and writing nested fields of unstructured objects without mutating them.

export type FieldPath = readonly string[];

/** The value at `path`, or undefined. */
export function getPath(obj: unknown, path: FieldPath): unknown {
  let node = obj;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A copy of `obj` with `value` at `path` (intermediate objects created); `undefined` removes the field. */
export function setPath<T extends object>(obj: T, path: FieldPath, value: unknown): T {
  const [head, ...rest] = path;
  if (head === undefined) return obj;
  const copy = { ...(obj as Record<string, unknown>) };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy as T;
  }
  const child = copy[head];
  const base = typeof child === 'object' && child !== null && !Array.isArray(child) ? child : {};
  if (value === undefined && (typeof child !== 'object' || child === null)) return obj;
  copy[head] = setPath(base as object, rest, value);
  return copy as T;
}

/** `Object.assign` of string maps where later maps win; undefined when all are empty (as upstream's MergeMap). */
export function mergeMaps(
  ...maps: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const map of maps) {
    if (!map) continue;
    for (const [k, v] of Object.entries(map)) (out ??= {})[k] = v;
  }
  return out;
}

/** Keys sorted recursively, so hashes and printed output never flap. */
export function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeysDeep) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return out as T;
}
