// Small helpers for converting objects as plain JSON, the way they travel on the wire: absent and empty fields are
// dropped (Go's `omitempty`/`omitzero`), everything else is copied as is.

/** A JSON object as read from the API server or a user's file. */
export type Unstructured = { [key: string]: unknown };

export function isUnstructured(value: unknown): value is Unstructured {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `key`, or undefined when absent or not an object. */
export function objectAt(parent: Unstructured | undefined, key: string): Unstructured | undefined {
  const value = parent?.[key];
  return isUnstructured(value) ? value : undefined;
}

/** The list at `key`, or undefined when absent or not a list. */
export function listAt(parent: Unstructured | undefined, key: string): unknown[] | undefined {
  const value = parent?.[key];
  return Array.isArray(value) ? value : undefined;
}

/** The string at `key`, or undefined when absent, empty or not a string. */
export function stringAt(parent: Unstructured | undefined, key: string): string | undefined {
  const value = parent?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * True for what Go serialises as nothing: undefined, null, `""`, and objects holding nothing but empty objects (a
 * zero struct marked `omitzero`). Numbers and booleans are never zero here: in these APIs they are pointers when
 * optional. NOTE: `""` counts only at the top: inside an object it may be a map value (a label `role: ""`).
 */
export function isZero(value: unknown): boolean {
  if (value === '') return true;
  return isEmpty(value);
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (isUnstructured(value)) return Object.values(value).every(isEmpty);
  return false;
}

/** A copy of `source` without `keys`. */
export function omitKeys(source: Unstructured, keys: readonly string[]): Unstructured {
  const out: Unstructured = {};
  for (const [key, value] of Object.entries(source)) {
    if (!keys.includes(key)) out[key] = value;
  }
  return out;
}

/** Builds an object from entries, dropping the zero ones (see {@link isZero}). */
export function compact(entries: Unstructured): Unstructured {
  const out: Unstructured = {};
  for (const [key, value] of Object.entries(entries)) {
    if (!isZero(value)) out[key] = value;
  }
  return out;
}

/** `compact(entries)`, or undefined when nothing is left (a nil pointer to a struct). */
export function compactOrUndefined(entries: Unstructured): Unstructured | undefined {
  const out = compact(entries);
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Maps each object of a list, keeping non-objects untouched; undefined stays undefined. */
export function mapObjects(
  list: unknown[] | undefined,
  convert: (item: Unstructured, index: number) => Unstructured,
): unknown[] | undefined {
  return list?.map((item, index) => (isUnstructured(item) ? convert(item, index) : item));
}
