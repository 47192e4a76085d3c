// A stable hash of everything that determines a provider's installed components, for change detection.
import type { ProviderComponentsInput } from '#shared/providers/desired/compute-provider-components.ts';
import { computeSha256 } from '#shared/hash/sha256.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';

export { computeStableJson };

/** Bump when the processing changes so that every provider is re-rendered once. */
export const inputsHashVersion = 'provider-components/v1';

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
