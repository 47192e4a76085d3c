// JSONPatch of a mutating webhook: the difference between the object as sent and the defaulted copy. Defaulting
// edits a copy of the raw JSON (never the zod-parsed object, which drops fields the schemas do not model), so the
// patch touches only what defaulting changed.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';

/** A deep copy of a JSON document to default in place. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The operations turning `original` into `defaulted`.
 *
 * @example
 * computeJsonPatch({ spec: {} }, { spec: { strategy: 'ApplyOnce' } });
 * // [{ op: 'add', path: '/spec/strategy', value: 'ApplyOnce' }]
 */
export function computeJsonPatch(original: unknown, defaulted: unknown): Operation[] {
  return jsonpatch.compare(original as object, defaulted as object);
}

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `path` inside `doc`, or undefined when any step is missing or not an object. */
export function objectAt(doc: unknown, path: readonly (string | number)[]): JsonRecord | undefined {
  let cur: unknown = doc;
  for (const step of path) {
    if (typeof step === 'number') cur = Array.isArray(cur) ? cur[step] : undefined;
    else cur = isRecord(cur) ? cur[step] : undefined;
  }
  return isRecord(cur) ? cur : undefined;
}

/** Sets `namespace` on the reference at `path` when the reference exists and has none (upstream `defaultNamespace`). */
export function defaultRefNamespace(doc: unknown, path: readonly (string | number)[], namespace: string): void {
  const ref = objectAt(doc, path);
  if (ref && namespace && (ref['namespace'] === undefined || ref['namespace'] === '')) ref['namespace'] = namespace;
}
