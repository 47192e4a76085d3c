// Finds the release (metadata.yaml + components YAML) of the version a provider asks for: from its selector's
// ConfigMaps, else from the download cache, else downloaded from its URL (or the predefined repository of its
// name) or OCI artifact and cached in a ConfigMap, so later passes need no network.
import { formatLabelSelector } from '#shared/api/label-selector.ts';
import { providerKinds } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { computeLatestVersion } from '#shared/providers/desired/compute-latest-version.ts';
import {
  computeCacheConfigMap,
  createCacheConfigMap,
  findCachedRelease,
  listConfigMapReleases,
  providerTypeWords,
} from '#shared/providers/fetch/config-map-releases.ts';
import { computeOciFileNames, fetchOciArtifact, parseOciSource } from '#shared/providers/fetch/oci-artifact.ts';
import { findPredefinedRepository } from '#shared/providers/fetch/predefined-repositories.ts';
import { ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';
import type { ProviderRelease } from '#shared/providers/fetch/provider-release.ts';
import {
  createReleaseRepository,
  parseRepositoryUrl,
  resolveRepositoryVersion,
} from '#shared/providers/fetch/release-repository.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';

export type FetchReleaseInput = {
  readonly kube: KubeClient;
  readonly fetch: FetchFn;
  /** Hosts whose `/api/v4/projects/` URLs are GitLab repositories (exact; default `gitlab.com`). */
  readonly gitlabHosts?: readonly string[];
  readonly fieldManager: string;
  readonly provider: Provider;
  /** Config variables (credentials such as GITHUB_TOKEN, OCI_USERNAME). */
  readonly variables: Readonly<Record<string, string>>;
  /** Contract to prefer when resolving `latest` (the core provider's). */
  readonly preferredContract?: string | undefined;
};

export type FetchedRelease = {
  readonly release: ProviderRelease;
  /** Name of the cache ConfigMap this pass created, if it downloaded. */
  readonly cacheCreated?: string;
};

/** The repository of a release URL; a refused URL names the provider first, in the operator's words. */
function parseProviderUrl(provider: Provider, url: string, gitlabHosts?: readonly string[]) {
  try {
    return parseRepositoryUrl(url, gitlabHosts);
  } catch (err) {
    if (!(err instanceof ProviderFetchError)) throw err;
    const name = provider.metadata.name ?? '';
    throw new ProviderFetchError(
      `failed to create repo from provider url for provider "${name}": ${err.message}`,
      {},
      {
        cause: err,
      },
    );
  }
}

/** The release URL a provider fetches from when it has no selector: its own, else the predefined one. */
export function computeProviderUrl(provider: Provider): string | undefined {
  const fc = provider.spec?.fetchConfig;
  if (fc?.url) return fc.url;
  if (fc?.oci || fc?.selector) return undefined;
  return findPredefinedRepository(providerKinds[provider.kind].providerType, provider.metadata.name ?? '');
}

/**
 * Fetches the release of `provider.spec.version` (or of the latest available version when empty).
 *
 * @example
 * const { release } = await fetchProviderRelease({ kube, fetch, fieldManager, provider, variables: {} });
 * release.version; // 'v1.9.0'
 */
export async function fetchProviderRelease(input: FetchReleaseInput): Promise<FetchedRelease> {
  const { kube, provider } = input;
  const namespace = provider.metadata.namespace ?? '';
  const who = describeObject(provider.kind, namespace, provider.metadata.name);
  const fc = provider.spec?.fetchConfig;
  let version = provider.spec?.version ?? '';

  if (fc?.selector) {
    const releases = await listConfigMapReleases(kube, namespace, fc.selector);
    const selector = formatLabelSelector(fc.selector);
    if (releases.length === 0) throw new ProviderFetchError(`no ConfigMaps found with selector ${selector}`);
    if (!version) version = computeLatestVersion(releases.map((r) => r.version)) ?? '';
    const release = releases.find((r) => r.version === version);
    if (!release) {
      const available = releases.map((r) => r.version).join(', ');
      throw new ProviderFetchError(
        `no ConfigMap with version ${version} found for ${who} with selector ${selector} (available: ${available})`,
      );
    }
    return { release };
  }

  const oci = fc?.oci;
  const url = computeProviderUrl(provider);
  if (!oci && !url) throw new ProviderFetchError(`${who} has no fetch source`);
  if (!version) {
    if (oci) version = parseOciSource(oci, '').tag;
    else {
      const repo = createReleaseRepository(
        parseProviderUrl(provider, url ?? '', input.gitlabHosts),
        input.fetch,
        input.variables,
      );
      version = await resolveRepositoryVersion(repo, input.preferredContract);
    }
  }

  const cached = await findCachedRelease(kube, provider, version, oci !== undefined);
  if (cached) return { release: cached };

  let metadataYaml: string;
  let componentsYaml: string;
  let source: string;
  if (oci) {
    const parsed = parseOciSource(oci, version);
    const files = computeOciFileNames(providerTypeWords[provider.kind], provider.metadata.name ?? '', version);
    const artifact = await fetchOciArtifact(input.fetch, parsed, files, input.variables);
    ({ metadataYaml, componentsYaml } = artifact);
    source = `OCI artifact ${artifact.reference}`;
  } else {
    const location = parseProviderUrl(provider, url ?? '', input.gitlabHosts);
    const repo = createReleaseRepository(location, input.fetch, input.variables);
    metadataYaml = await repo.getFile(version, 'metadata.yaml');
    componentsYaml = await repo.getFile(version, location.componentsPath);
    source = url ?? '';
  }
  const cm = computeCacheConfigMap(provider, { version, metadataYaml, componentsYaml }, oci ? { oci } : {});
  await createCacheConfigMap(kube, cm, input.fieldManager);
  return {
    release: { version, metadataYaml, componentsYaml, source },
    cacheCreated: `ConfigMap ${namespace}/${cm.metadata.name ?? ''}`,
  };
}
