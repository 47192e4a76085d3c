// Release repositories in clusterctl's URL layouts: GitHub releases
// (`https://github.com/{owner}/{repo}/releases/{latest|version}/{components file}`) and GitLab generic packages
// (`https://{gitlab host}/api/v4/projects/{slug}/packages/generic/{package}/{version}/{components file}`).
import { compareVersions, formatVersion, parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import type { Version } from '#shared/lang/semver/semver.ts';
import { computeReleaseSeries, parseMetadataYaml } from '#shared/providers/desired/compute-metadata-contract.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import { ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';

export type RepositoryLocation =
  | {
      readonly type: 'github';
      readonly owner: string;
      readonly repository: string;
      /** `latest` or a version tag. */
      readonly defaultVersion: string;
      readonly componentsPath: string;
    }
  | {
      readonly type: 'gitlab';
      readonly host: string;
      readonly projectSlug: string;
      readonly packageName: string;
      readonly defaultVersion: string;
      readonly componentsPath: string;
    };

/** clusterctl's variable names for repository credentials. */
export const githubTokenVariable = 'GITHUB_TOKEN';
export const gitlabTokenVariable = 'GITLAB_ACCESS_TOKEN';
const metadataFile = 'metadata.yaml';

/**
 * Parses a provider release URL into its layout, as clusterctl's repository factory does: GitHub for
 * `https://github.com/...`, GitLab under `/api/v4/projects/` — but only on the hosts named in `gitlabHosts`
 * (exact), where clusterctl accepts any host starting with `gitlab.` (`gitlab.attacker.example` included).
 *
 * @example
 * parseRepositoryUrl('https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml');
 * // { type: 'github', owner: 'kubernetes-sigs', repository: 'cluster-api', defaultVersion: 'latest', componentsPath: 'core-components.yaml' }
 */
export function parseRepositoryUrl(url: string, gitlabHosts: readonly string[] = ['gitlab.com']): RepositoryLocation {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ProviderFetchError(`failed to parse repository url "${url}"`);
  }
  // NOTE: the refusals carry the operator's words (`util.RepositoryFactory`), then the url.
  if (u.protocol !== 'https:') {
    throw new ProviderFetchError(
      `invalid provider url. there are no provider implementation for "${u.protocol.replace(/:$/, '')}" schema (${url})`,
    );
  }
  const parts = u.pathname.replace(/^\//, '').split('/');
  if (u.host === 'github.com') {
    if (parts.length < 5 || parts[2] !== 'releases' || parts.slice(4).some((p) => p === '')) {
      throw new ProviderFetchError(
        `invalid url "${url}": a GitHub repository url should be in the form https://github.com/{owner}/{Repository}/releases/{latest|version-tag}/{componentsClient.yaml}`,
      );
    }
    return {
      type: 'github',
      owner: parts[0] ?? '',
      repository: parts[1] ?? '',
      defaultVersion: parts[3] ?? '',
      componentsPath: parts[parts.length - 1] ?? '',
    };
  }
  const isGitlab = gitlabHosts.some((h) => h.trim().toLowerCase() === u.host.toLowerCase());
  if (u.pathname.startsWith('/api/v4/projects/') && !isGitlab) {
    throw new ProviderFetchError(
      `invalid provider url "${url}": ${u.host} is not a known GitLab host (add it to PROVIDER_GITLAB_HOSTS)`,
    );
  }
  if (isGitlab && u.pathname.startsWith('/api/v4/projects/')) {
    if (parts.length !== 9 || parts[4] !== 'packages' || parts[5] !== 'generic') {
      throw new ProviderFetchError(
        `invalid url "${url}": a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}`,
      );
    }
    return {
      type: 'gitlab',
      host: u.host,
      projectSlug: parts[3] ?? '',
      packageName: parts[6] ?? '',
      defaultVersion: parts[7] ?? '',
      componentsPath: parts[8] ?? '',
    };
  }
  throw new ProviderFetchError(
    `invalid provider url. Only GitHub and GitLab are supported for "https" schema (${url})`,
  );
}

export type ReleaseRepository = {
  readonly location: RepositoryLocation;
  /** Tags that are semantic versions. */
  listVersions(): Promise<string[]>;
  /** A file of a release; throws ProviderFetchError (with `notFound`) on failure. */
  getFile(version: string, path: string): Promise<string>;
};

/** A release file the server does not have (HTTP 404). */
export class ReleaseFileNotFoundError extends ProviderFetchError {}

async function getText(fetchFn: FetchFn, url: string, headers: Record<string, string>): Promise<string> {
  let res: Response;
  try {
    res = await fetchFn(url, { headers, redirect: 'follow' });
  } catch (err) {
    if (err instanceof ProviderFetchError) throw err;
    throw new ProviderFetchError(`failed to get ${url}: ${errorMessage(err)}`, {}, { cause: err });
  }
  if (res.status === 404) throw new ReleaseFileNotFoundError(`failed to get ${url}: not found`);
  if (res.status === 401 || res.status === 403) {
    throw new ProviderFetchError(`failed to get ${url}: unauthorized access (HTTP ${res.status}), check the token`);
  }
  if (!res.ok) throw new ProviderFetchError(`failed to get ${url}: HTTP ${res.status}`);
  return res.text();
}

/**
 * A repository client over `fetch`. Credentials come from the config variables (`GITHUB_TOKEN`,
 * `GITLAB_ACCESS_TOKEN`). GitHub versions are listed through the releases API; GitLab packages list only the
 * version in the URL, as clusterctl does.
 */
export function createReleaseRepository(
  location: RepositoryLocation,
  fetchFn: FetchFn,
  variables: Readonly<Record<string, string>>,
): ReleaseRepository {
  if (location.type === 'github') {
    const token = variables[githubTokenVariable];
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    return {
      location,
      async listVersions() {
        const versions: string[] = [];
        for (let page = 1; page <= 20; page++) {
          const url = `https://api.github.com/repos/${location.owner}/${location.repository}/releases?per_page=100&page=${page}`;
          const text = await getText(fetchFn, url, { ...headers, Accept: 'application/vnd.github+json' });
          let releases: unknown;
          try {
            releases = JSON.parse(text);
          } catch (err) {
            throw new ProviderFetchError(
              `failed to get the list of releases from ${url}: invalid JSON`,
              {},
              { cause: err },
            );
          }
          if (!Array.isArray(releases)) throw new ProviderFetchError(`failed to get the list of releases from ${url}`);
          for (const r of releases) {
            const tag = (r as { tag_name?: unknown }).tag_name;
            if (typeof tag === 'string' && parseVersionSemantic(tag)) versions.push(tag);
          }
          if (releases.length < 100) break;
        }
        return versions;
      },
      getFile(version, path) {
        const url = `https://github.com/${location.owner}/${location.repository}/releases/download/${version}/${path}`;
        return getText(fetchFn, url, headers);
      },
    };
  }
  const token = variables[gitlabTokenVariable];
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  return {
    location,
    listVersions: () => Promise.resolve([location.defaultVersion]),
    getFile(version, path) {
      const url = `https://${location.host}/api/v4/projects/${location.projectSlug}/packages/generic/${location.packageName}/${version}/${path}`;
      return getText(fetchFn, url, headers);
    },
  };
}

function sortCandidates(versions: readonly string[], series?: { major: number; minor: number }): Version[] {
  const parsed = versions
    .map((v) => parseVersionSemantic(v))
    .filter((v): v is Version => v !== undefined)
    .filter((v) => !series || (v.major === series.major && v.minor === series.minor));
  // NOTE: releases sort before pre-releases (v1.0.0 > v2.0.0-alpha), as clusterctl's latestPatchRelease does.
  return parsed.sort((a, b) => {
    const aPre = a.pre.length > 0;
    const bPre = b.pre.length > 0;
    if (aPre !== bPre) return aPre ? 1 : -1;
    return compareVersions(b, a, false);
  });
}

async function latestPatchRelease(
  repo: ReleaseRepository,
  versions: readonly string[],
  series?: { major: number; minor: number },
): Promise<{ version: string; metadata: string }> {
  // NOTE: like clusterctl, try the newest five and take the first whose metadata.yaml exists.
  for (const candidate of sortCandidates(versions, series).slice(0, 5)) {
    const version = `v${formatVersion(candidate)}`;
    try {
      return { version, metadata: await repo.getFile(version, metadataFile) };
    } catch (err) {
      if (err instanceof ReleaseFileNotFoundError) continue;
      throw err;
    }
  }
  throw new ProviderFetchError('failed to find releases tagged with a valid semantic version number');
}

/**
 * The version to install when none is given: the repository's default version, or for `latest` the newest release
 * (clusterctl's `latestContractRelease`) — moved to the newest patch of the series implementing `preferredContract`
 * when the newest release implements another contract.
 */
export async function resolveRepositoryVersion(repo: ReleaseRepository, preferredContract?: string): Promise<string> {
  const def = repo.location.defaultVersion;
  if (def !== 'latest') return def;
  const versions = await repo.listVersions();
  const latest = await latestPatchRelease(repo, versions);
  if (!preferredContract) return latest.version;
  let series: { major: number; minor: number } | undefined;
  try {
    const metadata = parseMetadataYaml(latest.metadata, `metadata.yaml of ${latest.version}`);
    if (computeReleaseSeries(metadata, latest.version)?.contract === preferredContract) return latest.version;
    const rs = (metadata.releaseSeries ?? []).find((s) => s.contract === preferredContract);
    if (rs) series = { major: rs.major ?? 0, minor: rs.minor ?? 0 };
  } catch {
    return latest.version;
  }
  return series ? (await latestPatchRelease(repo, versions, series)).version : latest.version;
}
