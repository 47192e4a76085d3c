// The version clusterctl installs when none is given: the highest release, by semver 2 precedence.
import { compareVersions, formatVersion, parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import type { Version } from '#shared/lang/semver/semver.ts';

/**
 * The highest of `versions` (those version.ParseSemantic refuses are skipped), formatted `v…`, or undefined when none
 * parses.
 *
 * @example
 * computeLatestVersion(['v1.8.5', 'v1.9.0-rc.0', 'v1.9.0']); // 'v1.9.0'
 */
export function computeLatestVersion(versions: readonly string[]): string | undefined {
  let best: Version | undefined;
  for (const text of versions) {
    const v = parseVersionSemantic(text);
    if (v && (!best || compareVersions(v, best, false) > 0)) best = v;
  }
  return best ? `v${formatVersion(best)}` : undefined;
}
