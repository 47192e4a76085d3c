// RFC 6902 add/replace/remove applied without mutating the document, with evanphx/json-patch v5's semantics
// (what upstream applies generated patches with).
import { CapiError } from '#shared/errors/index.ts';
import { cloneJson } from '#shared/topology/patches/patch-variables.ts';
import type { JSONPatchOperation } from '#shared/topology/patches/generate-json-patches.ts';

/** An operation that does not apply; names its index in the patch and its path. */
export class ApplyJSONPatchError extends CapiError {
  constructor(
    readonly operationIndex: number,
    readonly path: string,
    message: string,
  ) {
    super(message, { fieldPath: path });
  }
}

type Container = Record<string, unknown> | unknown[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeKey(key: string): string {
  return key.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Go's strconv.Atoi. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < -(2n ** 63n) || n > 2n ** 63n - 1n ? undefined : Number(n);
}

/** Resolves an array index the way evanphx does with negative indices enabled; undefined when out of range. */
function arrayIndex(key: string, length: number): number | undefined {
  let index = atoi(key);
  if (index === undefined) return undefined;
  if (index < 0) {
    if (index < -length) return undefined;
    index += length;
  }
  return index < length ? index : undefined;
}

function getChild(container: Container, key: string): unknown {
  if (Array.isArray(container)) {
    const index = arrayIndex(key, container.length);
    return index === undefined ? undefined : container[index];
  }
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The container holding the last segment, and the decoded last key; undefined when the path does not exist. */
function findContainer(doc: Container, path: string): { container: Container; key: string } | undefined {
  const parts = path.split('/');
  if (parts.length < 2) return undefined;
  let container: Container = doc;
  for (const part of parts.slice(1, -1)) {
    const next = getChild(container, decodeKey(part));
    if (!isObject(next) && !Array.isArray(next)) return undefined;
    container = next;
  }
  return { container, key: decodeKey(parts[parts.length - 1] ?? '') };
}

function applyOne(doc: Container, op: JSONPatchOperation, index: number): void {
  const fail = (why: string): never => {
    throw new ApplyJSONPatchError(
      index,
      op.path,
      `${op.op} operation does not apply: ${why}: ${JSON.stringify(op.path)}`,
    );
  };
  const found = findContainer(doc, op.path);
  if (!found) return fail('doc is missing path');
  const { container, key } = found;
  if (Array.isArray(container)) {
    if (op.op === 'add') {
      if (key === '-') {
        container.push(cloneJson(op.value));
        return;
      }
      const position = atoi(key);
      const size = container.length + 1;
      if (position === undefined || position >= size || position < -size) return fail('invalid array index');
      container.splice(position < 0 ? position + size : position, 0, cloneJson(op.value));
      return;
    }
    const position = arrayIndex(key, container.length);
    if (position === undefined) return fail('doc is missing key');
    if (op.op === 'replace') container[position] = cloneJson(op.value);
    else container.splice(position, 1);
    return;
  }
  if (op.op === 'add') {
    setKey(container, key, cloneJson(op.value));
    return;
  }
  if (!Object.hasOwn(container, key)) return fail('doc is missing key');
  if (op.op === 'replace') setKey(container, key, cloneJson(op.value));
  else delete container[key];
}

/**
 * Applies the operations in order to a copy of `doc` and returns it; the input is never mutated. Like evanphx
 * json-patch v5: `add` creates or overwrites an object key, inserts into arrays (`-` appends), but never creates
 * missing parents; `replace` and `remove` need the key to exist; negative array indices count from the end.
 * Throws ApplyJSONPatchError naming the failing operation.
 *
 * @example
 * applyJSONPatch({ spec: { a: 1 } }, [{ op: 'replace', path: '/spec/a', value: 2 }]); // { spec: { a: 2 } }
 */
export function applyJSONPatch<T extends Record<string, unknown>>(
  doc: T,
  operations: readonly JSONPatchOperation[],
): T {
  const copy = cloneJson(doc);
  operations.forEach((op, index) => applyOne(copy, op, index));
  return copy;
}
