// The data of a ClusterResourceSet resource (a ConfigMap or Secret), normalized the way upstream's `normalizeData`
// does: values in sorted key order, Secret values base64-decoded. Both the hash and the objects start from here.
import { CapiError, describeObject } from '#shared/errors/index.ts';
import type { ClusterResourceSetResourceKind } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';

/** What the read layer hands over about one ConfigMap or Secret referenced by a ClusterResourceSet. */
export type ResourceContent = {
  readonly kind: ClusterResourceSetResourceKind;
  readonly namespace: string;
  readonly name: string;
  /** A Secret's `type`; ignored for ConfigMaps. */
  readonly type?: string | undefined;
  /** `data` as the API server returns it (Secret values base64-encoded). `binaryData` is ignored, as upstream does. */
  readonly data?: Readonly<Record<string, string>> | undefined;
};

/** A value of the resource's data, decoded, with the key it came from. */
export type NormalizedDataValue = { readonly key: string; readonly bytes: Uint8Array; readonly text: string };

/**
 * The content of a ConfigMap/Secret cannot be turned into objects: no data, bad base64, bad YAML/JSON.
 * `key` names the data key and `documentIndex` (0-based) the document within it, when known.
 */
export class ResourceParseError extends CapiError {
  readonly key: string | undefined;
  readonly documentIndex: number | undefined;

  constructor(
    content: Pick<ResourceContent, 'kind' | 'namespace' | 'name'>,
    why: string,
    where: { readonly key?: string; readonly documentIndex?: number } = {},
    options?: { cause?: unknown },
  ) {
    const object = describeObject(content.kind, content.namespace, content.name);
    const key = where.key === undefined ? '' : ` key ${JSON.stringify(where.key)}`;
    const doc = where.documentIndex === undefined ? '' : ` document ${where.documentIndex + 1}`;
    super(
      `failed to parse ${object}${key}${doc}: ${why}`,
      {
        kind: content.kind,
        namespace: content.namespace,
        name: content.name,
        ...(where.key === undefined ? {} : { fieldPath: `data[${JSON.stringify(where.key)}]` }),
        reason: 'ApplyFailed',
      },
      options,
    );
    this.key = where.key;
    this.documentIndex = where.documentIndex;
  }
}

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The resource's data values in sorted key order (byte order, like Go's `sort.Strings`), Secret values decoded.
 * Throws ResourceParseError when there is no `data` at all (upstream: "failed to get data field") or a Secret value
 * is not valid base64.
 *
 * @example
 * normalizeResourceData({ kind: 'ConfigMap', namespace: 'ns', name: 'cm', data: { 'b.yaml': 'B', 'a.yaml': 'A' } })
 *   .map((v) => v.key); // ['a.yaml', 'b.yaml']
 */
export function normalizeResourceData(content: ResourceContent): NormalizedDataValue[] {
  if (content.data === undefined || Object.keys(content.data).length === 0) {
    // NOTE: upstream reads an empty ConfigMap/Secret as an error too (the `data` field is omitted when empty).
    throw new ResourceParseError(content, 'failed to get data field from resource');
  }
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8');
  // NOTE: Go sorts keys by bytes; data keys are restricted to [-._a-zA-Z0-9], so UTF-16 order is the same.
  const keys = Object.keys(content.data).sort(compareStrings);
  return keys.map((key) => {
    const raw = content.data?.[key] ?? '';
    if (content.kind !== 'Secret') return { key, bytes: encoder.encode(raw), text: raw };
    // Go's base64.StdEncoding ignores CR/LF; anything else out of the alphabet is an error.
    const compact = raw.replace(/[\r\n]/g, '');
    if (!base64Pattern.test(compact)) {
      throw new ResourceParseError(content, 'value is not valid base64', { key });
    }
    const bytes = new Uint8Array(Buffer.from(compact, 'base64'));
    return { key, bytes, text: decoder.decode(bytes) };
  });
}
