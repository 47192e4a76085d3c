// Multi-document YAML (a provider's components.yaml, additional manifests) to Kubernetes objects.
import { parseAllDocuments } from 'yaml';
import { ComponentsParseError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

/** A Kubernetes object from a manifest, kept as plain JSON. */
export type ComponentObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(source: string, message: string, cause?: unknown): never {
  throw new ComponentsParseError(
    `failed to parse YAML from ${source}: ${message}`,
    { reason: ProviderReason.ComponentsFetchError },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Parses multi-document YAML into objects, skipping empty documents; every document must be a mapping with string
 * `apiVersion` and `kind` (a `kind: List` is flattened into its items). Errors name `source` and the document.
 *
 * @example
 * parseComponentsYaml('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n', 'components.yaml');
 */
export function parseComponentsYaml(text: string, source: string): ComponentObject[] {
  const out: ComponentObject[] = [];
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(text, { prettyErrors: true });
  } catch (err) {
    return fail(source, err instanceof Error ? err.message : String(err), err);
  }
  docs.forEach((doc, index) => {
    const where = `document ${index + 1}`;
    const firstError = doc.errors[0];
    if (firstError) fail(source, `${where}: ${firstError.message.split('\n')[0] ?? ''}`, firstError);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      fail(source, `${where}: ${err instanceof Error ? err.message : String(err)}`, err);
    }
    if (value === null || value === undefined) return;
    const items =
      isRecord(value) && value['kind'] === 'List' && Array.isArray(value['items']) ? value['items'] : [value];
    for (const item of items) out.push(toObject(item, source, where));
  });
  return out;
}

function toObject(value: unknown, source: string, where: string): ComponentObject {
  if (!isRecord(value))
    fail(source, `${where}: expected a mapping, got ${Array.isArray(value) ? 'a sequence' : typeof value}`);
  const { apiVersion, kind } = value;
  if (typeof kind !== 'string' || kind === '') fail(source, `${where}: Object 'Kind' is missing`);
  if (typeof apiVersion !== 'string' || apiVersion === '')
    fail(source, `${where}: Object 'apiVersion' is missing in ${kind}`);
  const metadata = value['metadata'];
  if (metadata !== undefined && metadata !== null && !isRecord(metadata))
    fail(source, `${where}: ${kind} metadata must be a mapping`);
  return { ...value, apiVersion, kind, metadata: isRecord(metadata) ? (metadata as ComponentObject['metadata']) : {} };
}
