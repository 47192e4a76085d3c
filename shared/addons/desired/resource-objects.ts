// The Kubernetes objects a ClusterResourceSet resource (ConfigMap/Secret) carries, split and ordered exactly as
// upstream's `objsFromYamlData`: per data key (sorted), a JSON list gives its items, anything else is split into YAML
// documents on `---` lines; within one value objects are stably sorted for creation (Namespaces and CRDs first).
import { parseAllDocuments } from 'yaml';
import type { ResourceContent } from '#shared/addons/desired/resource-data.ts';
import { ResourceParseError, normalizeResourceData } from '#shared/addons/desired/resource-data.ts';

/** One object to apply to the workload cluster, with where it came from. */
export type ResourceObject = {
  /** The manifest, JSON-compatible. */
  readonly object: Readonly<Record<string, unknown>>;
  /** The ConfigMap/Secret, data key and 0-based document (or JSON list item) index within the value. */
  readonly source: {
    readonly kind: ResourceContent['kind'];
    readonly namespace: string;
    readonly name: string;
    readonly key: string;
    readonly documentIndex: number;
  };
  /**
   * True when the manifest had no `metadata.namespace` and `default` was filled in (as `kubectl apply` would).
   * NOTE: pure code cannot know whether the kind is namespaced; the apply layer must drop the namespace again for
   * cluster-scoped kinds (found through discovery) when this flag is set.
   */
  readonly namespaceDefaulted: boolean;
};

/** Creation priority by kind (upstream `util/resource.SortForCreate`): lower goes first, unknown kinds are 0. */
const creationPriority: Readonly<Record<string, number>> = {
  Namespace: -100,
  CustomResourceDefinition: -99,
  StorageClass: -98,
  PersistentVolume: -97,
  PersistentVolumeClaim: -96,
  Secret: -95,
  ConfigMap: -94,
  ServiceAccount: -93,
  LimitRange: -92,
  Pod: -91,
  ReplicaSet: -90,
  Endpoint: -89,
};

function priorityOf(object: Readonly<Record<string, unknown>>): number {
  const kind = object['kind'];
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(creationPriority, kind)
    ? (creationPriority[kind] ?? 0)
    : 0;
}

/** Go's `unicode.IsSpace`. */
const goSpace = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/**
 * Upstream's `isJSONList`: the first non-space byte within the first 32 bytes is `[`.
 * NOTE: upstream fails with "EOF" on values shorter than 32 bytes (a bufio.Peek quirk); we read them normally.
 */
export function isJSONList(text: string): boolean {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const ch of text) {
    if (bytes >= 32) return false;
    if (!goSpace.test(ch)) return ch === '[';
    bytes += encoder.encode(ch).length;
  }
  return false;
}

/**
 * Splits a value into YAML documents exactly like apimachinery's `YAMLReader`: a line starting with `---` ends the
 * current document (only spaces or a `#` comment may follow it on that line, else it is an error); a `---` line
 * before any content stays in the document it starts; line endings are normalised to `\n`. Returns an error message
 * instead of documents for a bad separator.
 *
 * @example
 * splitYamlDocuments('a: 1\n---\nb: 2\n'); // { documents: ['a: 1\n', 'b: 2\n'] }
 */
export function splitYamlDocuments(text: string): { documents: string[] } | { error: string } {
  const lines = text.split('\n');
  const terminated = text.endsWith('\n');
  if (terminated || text === '') lines.pop();
  const documents: string[] = [];
  let buffer = '';
  for (const [i, raw] of lines.entries()) {
    // bufio.ReadLine drops the `\r` of a `\r\n` line ending.
    const line = (i < lines.length - 1 || terminated) && raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest.length > 0 && !rest.startsWith('#')) return { error: `invalid Yaml document separator: ${rest}` };
      if (buffer.length > 0) {
        documents.push(buffer);
        buffer = '';
        continue;
      }
    }
    buffer += `${line}\n`;
  }
  if (buffer.length > 0) documents.push(buffer);
  return { documents };
}

/** Tags that would yield non-JSON values (Date, Uint8Array, Set, Map) or sexagesimal numbers go-yaml v2 lacks. */
const droppedTags = new Set([
  'tag:yaml.org,2002:timestamp',
  'tag:yaml.org,2002:binary',
  'tag:yaml.org,2002:set',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
]);

type YamlTag = { tag: string; format?: string };

/** Parses one YAML document the way sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) reads it into a map. */
function parseYamlDocument(doc: string): { value: Record<string, unknown> | null } | { error: string } {
  const docs = parseAllDocuments(doc, {
    version: '1.1',
    uniqueKeys: false,
    merge: true,
    prettyErrors: false,
    customTags: (tags) =>
      (tags as YamlTag[]).filter((t) => !droppedTags.has(t.tag) && t.format !== 'TIME') as typeof tags,
  });
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0];
  if (first === undefined) return { value: null };
  const problem = first.errors[0];
  if (problem) return { error: problem.message.split('\n')[0] ?? problem.message };
  // go-yaml v2 reads only the first document of its input; so do we.
  let value: unknown;
  try {
    value = first.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // toJS throws for unresolved aliases and alias bombs.
    return { error: err instanceof Error ? err.message : String(err) };
  }
  if (value === null || value === undefined) return { value: null };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { error: `cannot unmarshal ${Array.isArray(value) ? 'a list' : `a ${typeof value}`} into an object` };
  }
  const nonJson = findNonJson(value);
  if (nonJson) return { error: nonJson };
  return { value: value as Record<string, unknown> };
}

/** Why a parsed value cannot be sent as JSON (Go's json.Marshal rejects the same), or undefined. */
function findNonJson(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `unsupported value ${String(value)} at ${path || '.'}`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = findNonJson(item, `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      const problem = findNonJson(v, `${path}.${k}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return `unsupported value at ${path || '.'}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The objects of one data value, in document order (before the creation-priority sort). */
function objectsOfValue(
  content: ResourceContent,
  key: string,
  text: string,
): { object: Record<string, unknown>; documentIndex: number }[] {
  if (isJSONList(text)) {
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch (err) {
      // NOTE: upstream silently applies nothing for an unparsable JSON list; we report it.
      throw new ResourceParseError(content, `invalid JSON list: ${err instanceof Error ? err.message : String(err)}`, {
        key,
      });
    }
    if (!Array.isArray(items)) throw new ResourceParseError(content, 'invalid JSON list', { key });
    return items.map((item, documentIndex) => {
      if (!isPlainObject(item))
        throw new ResourceParseError(content, 'JSON list item is not an object', { key, documentIndex });
      return { object: item, documentIndex };
    });
  }
  const split = splitYamlDocuments(text);
  if ('error' in split) throw new ResourceParseError(content, `failed to read yaml: ${split.error}`, { key });
  const { documents } = split;
  const out: { object: Record<string, unknown>; documentIndex: number }[] = [];
  documents.forEach((doc, documentIndex) => {
    const parsed = parseYamlDocument(doc);
    if ('error' in parsed)
      throw new ResourceParseError(content, `invalid YAML: ${parsed.error}`, { key, documentIndex });
    // Empty documents (comments only, `---` twice in a row) are skipped, as upstream does.
    if (parsed.value !== null) out.push({ object: parsed.value, documentIndex });
  });
  return out;
}

function withDefaultNamespace(object: Record<string, unknown>): {
  object: Record<string, unknown>;
  namespaceDefaulted: boolean;
} {
  const metadata = object['metadata'];
  if (metadata !== undefined && metadata !== null && !isPlainObject(metadata))
    return { object, namespaceDefaulted: false };
  const meta = isPlainObject(metadata) ? metadata : {};
  const namespace = meta['namespace'];
  if (typeof namespace === 'string' && namespace !== '') return { object, namespaceDefaulted: false };
  return { object: { ...object, metadata: { ...meta, namespace: 'default' } }, namespaceDefaulted: true };
}

/**
 * Every object a ConfigMap/Secret carries, in the order upstream applies them: data keys sorted; per key a JSON list
 * (first non-space character `[`) gives its items and anything else is split into YAML documents; the objects of one
 * value are stably sorted by creation priority. Objects without `metadata.namespace` get `default` and
 * `namespaceDefaulted: true`. Throws ResourceParseError (naming the ConfigMap/Secret, key and document) for no data,
 * bad base64, a bad separator, invalid YAML/JSON or a document that is not an object.
 *
 * @example
 * computeResourceObjects({ kind: 'ConfigMap', namespace: 'ns', name: 'cni', data: { 'cni.yaml': 'kind: Namespace\napiVersion: v1\nmetadata: {name: calico}\n' } });
 * // [{ object: { kind: 'Namespace', ..., metadata: { name: 'calico', namespace: 'default' } }, namespaceDefaulted: true, source: { key: 'cni.yaml', documentIndex: 0, ... } }]
 */
export function computeResourceObjects(content: ResourceContent): ResourceObject[] {
  const result: ResourceObject[] = [];
  for (const { key, text } of normalizeResourceData(content)) {
    const objects = objectsOfValue(content, key, text)
      .map((entry, order) => ({ ...entry, order, priority: priorityOf(entry.object) }))
      .sort((a, b) => a.priority - b.priority || a.order - b.order);
    for (const entry of objects) {
      const { object, namespaceDefaulted } = withDefaultNamespace(entry.object);
      result.push({
        object,
        namespaceDefaulted,
        source: {
          kind: content.kind,
          namespace: content.namespace,
          name: content.name,
          key,
          documentIndex: entry.documentIndex,
        },
      });
    }
  }
  return result;
}
