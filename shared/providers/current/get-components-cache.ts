// Reads what the Cluster API Operator's applied-spec hash covers besides the spec: the components cache Secret of the
// provider's version, the config Secret's raw data and the ConfigMap its selector matches.
import { formatLabelSelector } from '#shared/api/label-selector.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { computeComponentsCacheName } from '#shared/providers/desired/compute-components-cache.ts';
import type { OperatorHashInput, SecretObject } from '#shared/providers/desired/compute-components-cache.ts';
import { providerTypeWords } from '#shared/providers/fetch/config-map-releases.ts';
import { ConfigMapKeys } from '#shared/providers/fetch/provider-release.ts';

type DataObject = { data?: Record<string, string>; binaryData?: Record<string, string> };

export type ComponentsCacheState = {
  /** The cache Secret of `spec.version`, when it exists. */
  readonly secret: SecretObject | undefined;
  /** The hash inputs other than the cache data. */
  readonly hashInput: Omit<OperatorHashInput, 'cacheData'>;
};

/**
 * Reads the cache Secret and the hash inputs of a provider. A selector matching several ConfigMaps (one per version,
 * which the operator's hash refuses) contributes the one of `spec.version`.
 */
export async function getComponentsCache(kube: KubeClient, provider: Provider): Promise<ComponentsCacheState> {
  const namespace = provider.metadata.namespace ?? '';
  const name = computeComponentsCacheName(providerTypeWords[provider.kind], provider);
  const secret = (await findObject(kube, { apiVersion: 'v1', kind: 'Secret', namespace, name })) as
    SecretObject | undefined;
  const spec = provider.spec ?? {};
  let configSecret: OperatorHashInput['configSecret'];
  if (spec.configSecret) {
    const found = (await findObject(kube, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: spec.configSecret.namespace || namespace,
      name: spec.configSecret.name,
    })) as DataObject | undefined;
    configSecret = { data: found?.data };
  }
  let configMap: OperatorHashInput['configMap'];
  if (spec.fetchConfig?.selector) {
    const list = await listObjects(kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      labelSelector: formatLabelSelector(spec.fetchConfig.selector),
    });
    const version = spec.version ?? '';
    const match =
      list.items.length === 1
        ? list.items[0]
        : list.items.find((cm) => (cm.metadata.labels?.[ConfigMapKeys.versionLabel] ?? cm.metadata.name) === version);
    const cm = match as DataObject | undefined;
    if (cm) configMap = { data: cm.data, binaryData: cm.binaryData };
  }
  return { secret, hashInput: { spec, configSecret, configMap } };
}
