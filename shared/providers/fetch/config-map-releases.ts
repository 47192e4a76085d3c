// Provider releases kept in ConfigMaps (air-gapped `fetchConfig.selector`, and the download cache): one version per
// ConfigMap, version from the `provider.cluster.x-k8s.io/version` label or the name, `metadata` and `components`
// keys, components gzip-compressed in binaryData when annotated.
import { gunzipSync, gzipSync } from 'node:zlib';
import { formatLabelSelector } from '#shared/api/label-selector.ts';
import type { LabelSelector } from '#shared/api/label-selector.ts';
import { operatorApiVersion } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject } from '#shared/errors/index.ts';
import { createObject, KubeConflictError, listObjects } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import { ConfigMapKeys, ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';
import type { ProviderRelease } from '#shared/providers/fetch/provider-release.ts';

/** Upstream's `GetType()`: the word used in cache names and labels. */
export const providerTypeWords: Readonly<Record<ProviderKind, string>> = {
  CoreProvider: 'core',
  BootstrapProvider: 'bootstrap',
  ControlPlaneProvider: 'control-plane',
  InfrastructureProvider: 'infrastructure',
  AddonProvider: 'addon',
  IPAMProvider: 'ipam',
  RuntimeExtensionProvider: 'runtimeextension',
};

/** Above this many bytes the components are stored gzip-compressed, as upstream does. */
export const maxConfigMapSize = 1024 * 1024;

type ConfigMap = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string> };

/**
 * Reads one release ConfigMap; errors name the ConfigMap. With `metadataOnly` the components are not decoded.
 */
export function readConfigMapRelease(cm: KubeObject, opts: { metadataOnly?: boolean } = {}): ProviderRelease {
  const c = cm as ConfigMap;
  const who = describeObject('ConfigMap', c.metadata.namespace, c.metadata.name);
  const label = c.metadata.labels?.[ConfigMapKeys.versionLabel];
  const version = label ?? c.metadata.name ?? '';
  if (!parseVersionSemantic(version)) {
    const from = label === undefined ? 'from the Name' : `from the Label ${ConfigMapKeys.versionLabel}`;
    throw new ProviderFetchError(`${who} has invalid version: ${version} (${from})`, { kind: 'ConfigMap' });
  }
  const metadataYaml = c.data?.[ConfigMapKeys.metadata];
  if (metadataYaml === undefined) throw new ProviderFetchError(`${who} has no metadata`, { kind: 'ConfigMap' });
  let componentsYaml = '';
  if (!opts.metadataOnly) {
    if (c.metadata.annotations?.[ConfigMapKeys.compressedAnnotation] === 'true') {
      const packed = c.binaryData?.[ConfigMapKeys.components];
      if (packed === undefined) throw new ProviderFetchError(`${who} BinaryData has no components`);
      try {
        componentsYaml = gunzipSync(Buffer.from(packed, 'base64')).toString('utf8');
      } catch (err) {
        throw new ProviderFetchError(`cannot decompress data from ${who}`, {}, { cause: err });
      }
    } else {
      const text = c.data?.[ConfigMapKeys.components];
      if (text === undefined) throw new ProviderFetchError(`${who} Data has no components`);
      componentsYaml = text;
    }
  }
  return { version, metadataYaml, componentsYaml, source: who };
}

/**
 * Lists the release ConfigMaps matching `selector` in `namespace`, one release per version.
 *
 * @example
 * await listConfigMapReleases(kube, 'capz-system', { matchLabels: { 'provider-components': 'azure' } });
 */
export async function listConfigMapReleases(
  kube: KubeClient,
  namespace: string,
  selector: LabelSelector,
): Promise<ProviderRelease[]> {
  const labelSelector = formatLabelSelector(selector);
  const list = await listObjects(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector });
  return list.items
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
    .map((cm) => readConfigMapRelease(cm));
}

/** Labels identifying the download cache of a provider version (upstream `ProviderLabels`). */
export function computeCacheLabels(provider: Provider, version: string, oci: boolean): Record<string, string> {
  return {
    [ConfigMapKeys.versionLabel]: version,
    [ConfigMapKeys.typeLabel]: providerTypeWords[provider.kind],
    [ConfigMapKeys.nameLabel]: provider.metadata.name ?? '',
    [ConfigMapKeys.managedLabel]: 'true',
    ...(oci ? { [ConfigMapKeys.sourceLabel]: 'oci' } : {}),
  };
}

/** The cached release of a provider version, or undefined; more than one match is an error, as upstream. */
export async function findCachedRelease(
  kube: KubeClient,
  provider: Provider,
  version: string,
  oci: boolean,
): Promise<ProviderRelease | undefined> {
  const labelSelector = formatLabelSelector({ matchLabels: computeCacheLabels(provider, version, oci) });
  const list = await listObjects(kube, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: provider.metadata.namespace,
    labelSelector,
  });
  if (list.items.length > 1) {
    throw new ProviderFetchError(`more than one config maps were found for given selector: ${labelSelector}`);
  }
  const cm = list.items[0];
  return cm ? readConfigMapRelease(cm) : undefined;
}

/** The cache ConfigMap for a downloaded release (upstream `TemplateManifestsConfigMap`), owned by the provider. */
export function computeCacheConfigMap(
  provider: Provider,
  release: Omit<ProviderRelease, 'source'>,
  source: { oci?: string },
): KubeObject {
  const compress = release.metadataYaml.length + release.componentsYaml.length > maxConfigMapSize;
  const annotations: Record<string, string> = {};
  if (source.oci) annotations[ConfigMapKeys.sourceAnnotation] = source.oci;
  if (compress) annotations[ConfigMapKeys.compressedAnnotation] = 'true';
  const { uid, name, namespace } = provider.metadata;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${providerTypeWords[provider.kind]}-${name ?? ''}-${release.version}`,
      namespace,
      labels: computeCacheLabels(provider, release.version, source.oci !== undefined),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ...(uid
        ? { ownerReferences: [{ apiVersion: operatorApiVersion, kind: provider.kind, name: name ?? '', uid }] }
        : {}),
    },
    data: {
      [ConfigMapKeys.metadata]: release.metadataYaml,
      ...(compress ? {} : { [ConfigMapKeys.components]: release.componentsYaml }),
    },
    ...(compress
      ? { binaryData: { [ConfigMapKeys.components]: gzipSync(release.componentsYaml).toString('base64') } }
      : {}),
  };
}

/** Creates the cache ConfigMap; one that already exists (a concurrent pass) is kept. */
export async function createCacheConfigMap(kube: KubeClient, cm: KubeObject, fieldManager: string): Promise<boolean> {
  try {
    await createObject(kube, cm, { fieldManager });
    return true;
  } catch (err) {
    if (err instanceof KubeConflictError) return false;
    throw err;
  }
}
