// Cluster rules of the admission webhook, as upstream's Cluster webhook: the topology version is a semantic version,
// never decreases, skips no minor version unless the class plans chained upgrades (spec.kubernetesVersions, which
// must then list it, or a GenerateUpgradePlan extension), and does not change while AfterClusterUpgrade is pending;
// a topology cannot be added to or removed from an existing Cluster. Pure.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computePendingHooks, PendingHooksAnnotation } from '#shared/topology/desired/lifecycle-hooks.ts';
import { compareVersions, formatVersion, parseVersionTolerant, type Version } from '#shared/lang/semver/semver.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';

/** Annotations that switch upstream's update checks off (kept with upstream's names). */
export const UnsafeAnnotations = {
  updateClassName: 'unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check',
  updateVersion: 'unsafe.topology.cluster.x-k8s.io/disable-update-version-check',
} as const;

/** upstream `version.KubeSemver`. */
const kubeSemver = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?$/;

const versionPath = 'spec.topology.version';

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
 * Whether a jump of two or more minors is refused: only when the class plans no chained upgrade (upstream's
 * shouldValidateVersionCeiling).
 */
export function shouldValidateVersionCeiling(cc: ClusterClass | undefined): boolean {
  return (cc?.spec.kubernetesVersions ?? []).length === 0 && !cc?.spec.upgrade?.external?.generateUpgradePlanExtension;
}

/**
 * upstream `validateTopologyVersion`'s static part (the live objects: topology-upgrade-rules.ts): no decrease (build tags compared), no jump of
 * two or more minor versions (unless `validateCeiling` is false: the class plans chained upgrades).
 *
 * @example
 * validateTopologyVersionChange('v1.29.0', 'v1.31.0'); // version cannot be increased from "1.29.0" to "1.31.0"
 */
export function validateTopologyVersionChange(
  oldVersion: string,
  newVersion: string,
  validateCeiling = true,
): FieldError[] {
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
  if (validateCeiling && compareVersions(to, ceiling, false) >= 0)
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
export function validateClusterUpdate(current: Cluster, desired: Cluster, cc?: ClusterClass): FieldError[] {
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
  const errors = validateTopologyVersionChange(before.version, after.version, shouldValidateVersionCeiling(cc));
  if (errors.length > 0) return errors;
  const from = parseVersionTolerant(before.version);
  const to = parseVersionTolerant(after.version);
  const changed = from && to && formatVersion(from) !== formatVersion(to);
  if (changed && computePendingHooks(annotations[PendingHooksAnnotation]).includes('AfterClusterUpgrade'))
    return [
      {
        type: 'Invalid',
        field: versionPath,
        badValue: after.version,
        detail: 'version cannot be changed when the "AfterClusterUpgrade" hook is still blocking',
      },
    ];
  return [];
}

/**
 * upstream ValidateClusterForClusterClass's version rule: a class with spec.kubernetesVersions only accepts those.
 *
 * @example
 * validateVersionInClusterClass(cluster, cc); // version must match one of the versions defined in the ClusterClass
 */
export function validateVersionInClusterClass(cluster: Cluster, cc: ClusterClass): FieldError[] {
  const versions = cc.spec.kubernetesVersions ?? [];
  const version = cluster.spec?.topology?.version ?? '';
  if (versions.length === 0 || versions.includes(version)) return [];
  return [
    {
      type: 'Invalid',
      field: versionPath,
      badValue: version,
      detail: 'version must match one of the versions defined in the ClusterClass',
    },
  ];
}
