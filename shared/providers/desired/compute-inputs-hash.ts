// A stable hash of everything that determines a provider's installed components, for change detection.
import type { ProviderComponentsInput } from '#shared/providers/desired/compute-provider-components.ts';
import { computeSha256 } from '#shared/hash/sha256.ts';

/** Bump when the processing changes so that every provider is re-rendered once. */
export const inputsHashVersion = 'provider-components/v1';

/**
 * JSON with object keys sorted at every level (undefined members dropped), so equal values serialise equally.
 *
 * @example
 * computeStableJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function computeStableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : computeStableJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${computeStableJson(v)}`).join(',')}}`;
}

/**
 * `sha256:<hex>` over the processing inputs: the provider's identity (kind, namespace, name, uid) and spec (without
 * `paused`, which does not change what is installed), the version, the components and additional manifests text,
 * the config variables, the image overrides and, when given, the metadata.yaml text. Status, resourceVersion and
 * key order do not change it.
 *
 * @example
 * computeInputsHash({ provider, version: 'v1.9.0', componentsYaml, configVariables: {} }); // 'sha256:4f1c…'
 */
export function computeInputsHash(input: ProviderComponentsInput & { readonly metadataYaml?: string }): string {
  const { provider } = input;
  const { paused: _paused, ...spec } = provider.spec ?? {};
  const identity = {
    kind: provider.kind,
    namespace: provider.metadata.namespace,
    name: provider.metadata.name,
    uid: provider.metadata.uid,
  };
  const material = {
    hashVersion: inputsHashVersion,
    provider: identity,
    spec,
    version: input.version,
    componentsYaml: input.componentsYaml,
    additionalManifestsYaml: input.additionalManifestsYaml ?? '',
    configVariables: input.configVariables,
    imageOverrides: input.imageOverrides,
    metadataYaml: input.metadataYaml,
  };
  return `sha256:${computeSha256(computeStableJson(material))}`;
}
