// The ControlPlane provider contract's state predicates (upstream internal/contract ControlPlane().IsProvisioning and
// IsUpgrading), shared by the topology engine's version sequencing and the Cluster webhook's upgrade checks. Pure.
import { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import { compareVersions, parseVersionTolerant } from '#shared/lang/semver/semver.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** The versions a control plane reports: `status.versions` (v1.14 contract), else `status.version`, else none. */
function reportedVersions(cp: Unstructured): string[] {
  const versions = getPath(cp, ['status', 'versions']);
  if (Array.isArray(versions) && versions.length > 0)
    return versions.map((v) => String((v as { version?: unknown }).version ?? ''));
  const single = getPath(cp, controlPlaneContract.statusVersion);
  return typeof single === 'string' && single !== '' ? [single] : [];
}

/**
 * upstream contract ControlPlane().IsProvisioning: no version reported in status yet.
 *
 * @example
 * isControlPlaneProvisioning({ ...cp, status: {} }); // true
 */
export function isControlPlaneProvisioning(cp: Unstructured): boolean {
  const first = reportedVersions(cp)[0];
  return first === undefined || first === '';
}

/**
 * upstream contract ControlPlane().IsUpgrading: a reported version (status.versions, else status.version) is below
 * spec.version.
 *
 * @example
 * isControlPlaneUpgrading({ ...cp, spec: { version: 'v1.31.0' }, status: { version: 'v1.30.0' } }); // true
 */
export function isControlPlaneUpgrading(cp: Unstructured): boolean {
  const raw = getPath(cp, controlPlaneContract.version);
  const spec = parseVersionTolerant(typeof raw === 'string' ? raw : '');
  if (!spec) return false;
  return reportedVersions(cp).some((reported) => {
    const status = parseVersionTolerant(reported);
    return status !== undefined && compareVersions(spec, status, true) >= 1;
  });
}
