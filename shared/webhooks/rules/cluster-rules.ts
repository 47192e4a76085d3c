// Cluster rules of the admission webhook that need no ClusterClass, as upstream's Cluster webhook: the topology
// version is a semantic version, never decreases and never skips a minor version; a topology cannot be added to or
// removed from an existing Cluster. Pure.
import type { Cluster } from '#shared/api/v1beta2/cluster.ts';
import { compareVersions, parseVersionTolerant, type Version } from '#shared/topology/desired/semver.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';

/** Annotations that switch upstream's update checks off (kept with upstream's names). */
export const UnsafeAnnotations = {
  updateClassName: 'unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check',
  updateVersion: 'unsafe.topology.cluster.x-k8s.io/disable-update-version-check',
} as const;

/** upstream `version.KubeSemver`. */
const kubeSemver = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?$/;

const versionPath = 'spec.topology.version';

/** A version as Go's semver.Version.String() prints it (no `v`). */
function formatVersion(v: Version): string {
  const pre = v.pre.length > 0 ? `-${v.pre.join('.')}` : '';
  const build = v.build.length > 0 ? `+${v.build.join('.')}` : '';
  return `${v.major}.${v.minor}.${v.patch}${pre}${build}`;
}

/**
 * `v` prefixed, as upstream's defaulting tolerates `1.30.1`.
 *
 * @example
 * computeDefaultedVersion('1.30.1'); // 'v1.30.1'
 */
export function computeDefaultedVersion(version: string): string {
  return version.startsWith('v') ? version : `v${version}`;
}

/** The topology version must be a semantic version. */
export function validateTopologyVersionFormat(version: string): FieldError[] {
  return kubeSemver.test(version)
    ? []
    : [{ type: 'Invalid', field: versionPath, badValue: version, detail: 'version must be a valid semantic version' }];
}

/**
 * upstream `validateTopologyVersion` without the live-object checks: no decrease (build tags compared), no jump of
 * two or more minor versions.
 *
 * @example
 * validateTopologyVersionChange('v1.29.0', 'v1.31.0'); // version cannot be increased from "1.29.0" to "1.31.0"
 */
export function validateTopologyVersionChange(oldVersion: string, newVersion: string): FieldError[] {
  const from = parseVersionTolerant(oldVersion);
  const to = parseVersionTolerant(newVersion);
  if (!to) return validateTopologyVersionFormat(newVersion);
  if (!from)
    return [
      {
        type: 'Invalid',
        field: versionPath,
        badValue: oldVersion,
        detail: 'old version must be a valid semantic version',
      },
    ];
  if (compareVersions(to, from, true) < 0)
    return [
      {
        type: 'Invalid',
        field: versionPath,
        badValue: newVersion,
        detail: `version cannot be decreased from "${formatVersion(from)}" to "${formatVersion(to)}"`,
      },
    ];
  const ceiling: Version = { major: from.major, minor: from.minor + 2, patch: 0, pre: [], build: [] };
  if (compareVersions(to, ceiling, false) >= 0)
    return [
      {
        type: 'Invalid',
        field: versionPath,
        badValue: newVersion,
        detail: `version cannot be increased from "${formatVersion(from)}" to "${formatVersion(to)}"`,
      },
    ];
  return [];
}

/**
 * Update rules that compare the old and new Cluster without a ClusterClass: the topology stays, a class cannot be
 * added to an existing Cluster (unless upstream's unsafe annotation says so), and the version moves as upstream allows
 * (unless its unsafe annotation says so).
 *
 * @example
 * validateClusterUpdate(oldCluster, newCluster); // [] when allowed
 */
export function validateClusterUpdate(current: Cluster, desired: Cluster): FieldError[] {
  const before = current.spec?.topology;
  const after = desired.spec?.topology;
  const annotations = desired.metadata.annotations ?? {};
  if (before && !after)
    return [{ type: 'Forbidden', field: 'spec.topology', detail: 'cannot be removed from an existing Cluster' }];
  if (!after) return [];
  if (!before?.classRef.name) {
    if (annotations[UnsafeAnnotations.updateClassName] !== undefined) return [];
    return [
      { type: 'Forbidden', field: 'spec.topology.classRef', detail: 'classRef cannot be set on an existing Cluster' },
    ];
  }
  if (annotations[UnsafeAnnotations.updateVersion] !== undefined) return [];
  return validateTopologyVersionChange(before.version, after.version);
}
