// Reads the inputs a provider references: its config Secret (variables, credentials, `images`) and its additional
// manifests ConfigMap.
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { getObject } from '#shared/kube/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { ConfigMapKeys, ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';

/** The decoded data of `spec.configSecret` (namespace defaults to the provider's), or `{}` without one. */
export async function getConfigVariables(kube: KubeClient, provider: Provider): Promise<Record<string, string>> {
  const ref = provider.spec?.configSecret;
  if (!ref) return {};
  const namespace = ref.namespace || provider.metadata.namespace;
  let secret;
  try {
    secret = await getObject(kube, { apiVersion: 'v1', kind: 'Secret', namespace, name: ref.name });
  } catch (err) {
    throw new ProviderFetchError(
      `failed to get referenced secret ${describeObject('Secret', namespace, ref.name)}: ${errorMessage(err)}`,
      {},
      { cause: err },
    );
  }
  const data = (secret['data'] ?? {}) as Record<string, string>;
  const out: Record<string, string> = {};
  for (const key of Object.keys(data).sort()) out[key] = Buffer.from(data[key] ?? '', 'base64').toString('utf8');
  return out;
}

/** The `manifests` key of `spec.additionalManifests`, or undefined without one. */
export async function getAdditionalManifests(kube: KubeClient, provider: Provider): Promise<string | undefined> {
  const ref = provider.spec?.additionalManifests;
  if (!ref) return undefined;
  const namespace = ref.namespace || provider.metadata.namespace;
  try {
    const cm = await getObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: ref.name });
    return ((cm['data'] ?? {}) as Record<string, string>)[ConfigMapKeys.additionalManifests] ?? '';
  } catch (err) {
    throw new ProviderFetchError(
      `failed to get ConfigMap ${namespace ?? ''}/${ref.name}: ${errorMessage(err)}`,
      {},
      { cause: err },
    );
  }
}
