// Rendered template text → JSON value, as upstream's `yaml.Unmarshal` (sigs.k8s.io/yaml over go-yaml v2) does it.
import { Buffer } from 'node:buffer';
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node as YamlNode, ParsedNode } from 'yaml';
import { CapiError } from '#shared/errors/index.ts';

/** Rendered template text that is not valid YAML/JSON (or holds a value JSON cannot represent). */
export class RenderedValueError extends CapiError {}

const TAG_PREFIX = 'tag:yaml.org,2002:';
const STR = `${TAG_PREFIX}str`;
const BOOL = `${TAG_PREFIX}bool`;
const NULL = `${TAG_PREFIX}null`;
const INT = `${TAG_PREFIX}int`;
const FLOAT = `${TAG_PREFIX}float`;
const TIMESTAMP = `${TAG_PREFIX}timestamp`;
const BINARY = `${TAG_PREFIX}binary`;
const MERGE = `${TAG_PREFIX}merge`;

type Resolved = { readonly tag: string; readonly value: unknown };

// go-yaml v2's resolve table: exact plain scalars with a fixed meaning (YAML 1.1 booleans included).
const resolveMap = new Map<string, Resolved>();
for (const [value, tag, words] of [
  [true, BOOL, ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']],
  [false, BOOL, ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']],
  [null, NULL, ['', '~', 'null', 'Null', 'NULL']],
  [Number.NaN, FLOAT, ['.nan', '.NaN', '.NAN']],
  [Number.POSITIVE_INFINITY, FLOAT, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']],
  [Number.NEGATIVE_INFINITY, FLOAT, ['-.inf', '-.Inf', '-.INF']],
] as const) {
  for (const word of words) resolveMap.set(word, { tag, value });
}

const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's `strconv.ParseInt(s, 0, 64)` (and `ParseUint` when `unsigned`), or undefined. */
function parseGoInt(s: string, unsigned: boolean): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const sign = m[1] ?? '';
  const body = m[2] ?? '';
  if (unsigned && sign !== '') return undefined;
  let n: bigint;
  if (/^0[oO]/.test(body)) n = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) n = BigInt(`0o${body.slice(1)}`);
  else n = BigInt(body);
  if (sign === '-') n = -n;
  if (unsigned) return n <= UINT64_MAX ? n : undefined;
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/** go-yaml v2 `resolve(tag, in)` for tags it can resolve; timestamps stay strings when decoded into interface{}. */
function resolvePlain(text: string): Resolved {
  const first = text[0];
  let hint: string | undefined;
  if (first === undefined) hint = 'N';
  else if (first === '+' || first === '-') hint = 'S';
  else if (first >= '0' && first <= '9') hint = 'D';
  else if ('yYnNtTfFoO~'.includes(first)) hint = 'M';
  else if (first === '.') hint = '.';
  if (hint === undefined) return { tag: STR, value: text };
  const known = resolveMap.get(text);
  if (known) return known;
  if (hint === '.') {
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text)) return { tag: FLOAT, value: Number(text) };
  } else if (hint === 'D' || hint === 'S') {
    const plain = text.replaceAll('_', '');
    const int = parseGoInt(plain, false) ?? parseGoInt(plain, true);
    if (int !== undefined) return { tag: INT, value: Number(int) };
    if (yamlStyleFloat.test(plain)) {
      const float = Number(plain);
      if (Number.isFinite(float)) return { tag: FLOAT, value: float };
    }
  }
  return { tag: STR, value: text };
}

function resolveScalar(text: string, tag: string | undefined, quoted: boolean): unknown {
  if (tag === undefined || tag === '!') {
    return quoted ? text : resolvePlain(text).value;
  }
  if (tag === BINARY) {
    if (!/^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/.test(text)) {
      throw new RenderedValueError('!!binary value contains invalid base64 data');
    }
    return Buffer.from(text, 'base64').toString('utf8');
  }
  if (![STR, BOOL, NULL, INT, FLOAT, TIMESTAMP].includes(tag)) return text;
  if (tag === STR || tag === TIMESTAMP) return text;
  const resolved = resolvePlain(text);
  if (resolved.tag === tag) return resolved.value;
  if (tag === FLOAT && resolved.tag === INT) return resolved.value;
  throw new RenderedValueError(
    `cannot decode !!${resolved.tag.slice(TAG_PREFIX.length)} \`${text}\` as a !!${tag.slice(TAG_PREFIX.length)}`,
  );
}

/** A decoded YAML value: JSON-like, but map keys may still be non-strings (as go-yaml's map[interface{}]interface{}). */
type Decoded = { readonly json: unknown; readonly keyable: boolean };

class Decoder {
  constructor(private readonly doc: Document.Parsed) {}

  decode(node: YamlNode | ParsedNode | null | undefined): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target === undefined) throw new RenderedValueError(`unknown anchor '${node.source}' referenced`);
      return this.decode(target);
    }
    if (isScalar(node)) {
      const quoted = node.type !== undefined && node.type !== 'PLAIN';
      return resolveScalar(String(node.value ?? ''), node.tag, quoted);
    }
    if (isSeq(node)) return node.items.map((item) => this.decode(item as YamlNode));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const keyNode = pair.key as YamlNode | null;
        if (this.isMerge(keyNode)) {
          this.merge(pair.value as YamlNode | null, out);
          continue;
        }
        const key = this.decodeKey(keyNode);
        setKey(out, key.json as string, this.decode(pair.value as YamlNode | null));
      }
      return out;
    }
    throw new RenderedValueError('unsupported YAML node');
  }

  private isMerge(node: YamlNode | null): boolean {
    return (
      node !== null &&
      isScalar(node) &&
      node.value === '<<' &&
      ((node.type === 'PLAIN' && node.tag === undefined) || node.tag === MERGE)
    );
  }

  // NOTE: go-yaml v2 merges in document order (a later explicit key wins over a merged one, and the other way
  // round); a sequence of maps is merged last-to-first so that the first map wins.
  private merge(node: YamlNode | null, out: Record<string, unknown>): void {
    const target = node !== null && isAlias(node) ? (node.resolve(this.doc) ?? null) : node;
    const mergeMap = (m: YamlNode | null): void => {
      const value = this.decode(m);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new RenderedValueError('map merge requires map or sequence of maps as the value');
      }
      for (const [k, v] of Object.entries(value)) setKey(out, k, v);
    };
    if (target !== null && isSeq(target)) {
      for (let i = target.items.length - 1; i >= 0; i--) mergeMap(target.items[i] as YamlNode);
      return;
    }
    mergeMap(target);
  }

  /** sigs.k8s.io/yaml turns string, int, float and bool keys into JSON keys; anything else is an error. */
  private decodeKey(node: YamlNode | null): Decoded {
    const value = this.decode(node);
    if (typeof value === 'string') return { json: value, keyable: true };
    if (typeof value === 'boolean') return { json: String(value), keyable: true };
    if (typeof value === 'number') {
      if (Number.isNaN(value)) return { json: '.nan', keyable: true };
      if (value === Number.POSITIVE_INFINITY) return { json: '.inf', keyable: true };
      if (value === Number.NEGATIVE_INFINITY) return { json: '-.inf', keyable: true };
      return { json: String(value), keyable: true };
    }
    throw new RenderedValueError(`unsupported map key: ${JSON.stringify(value)}`);
  }
}

function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function assertJsonRepresentable(value: unknown): void {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new RenderedValueError(`json: unsupported value: ${goFloatName(value)}`);
  }
  if (Array.isArray(value)) value.forEach(assertJsonRepresentable);
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach(assertJsonRepresentable);
}

function goFloatName(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  return n > 0 ? '+Inf' : '-Inf';
}

/**
 * Parses rendered template text into a JSON value the way upstream does (`yaml.Unmarshal` into
 * `apiextensionsv1.JSON`): YAML 1.1 scalars as go-yaml v2 resolves them (`yes`/`on`/`y` are true, `0777` is octal,
 * `1_000` is 1000, timestamps stay strings), JSON is YAML, only the first document counts, empty text is `null`,
 * and NaN/Infinity or non-scalar map keys are errors.
 *
 * @example
 * parseRenderedValue('3'); // 3
 * parseRenderedValue('"3"'); // '3'
 * parseRenderedValue(' true\n'); // true
 * parseRenderedValue('- a\n- b'); // ['a', 'b']
 */
export function parseRenderedValue(text: string): unknown {
  const docs = parseAllDocuments(text, {
    schema: 'failsafe',
    version: '1.1',
    uniqueKeys: false,
    merge: false,
    prettyErrors: false,
  });
  const doc = Array.isArray(docs) ? (docs[0] as Document.Parsed | undefined) : undefined;
  // NOTE: a directive (`%...`) must be followed by an explicit `---`; the yaml package only warns.
  const firstLine = text.split('\n').find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  if (firstLine?.startsWith('%') === true && doc?.directives?.docStart !== true) {
    throw new RenderedValueError('yaml: did not find expected <document start>');
  }
  if (doc === undefined) return null;
  const firstError = doc.errors[0];
  if (firstError !== undefined) throw new RenderedValueError(`yaml: ${firstError.message}`);
  const value = new Decoder(doc).decode(doc.contents);
  assertJsonRepresentable(value);
  return value;
}
