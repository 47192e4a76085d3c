// The ControlPlane provider contract's state predicates (upstream internal/contract ControlPlane().IsProvisioning,
// IsUpgrading and IsScaling), shared by the topology engine's version sequencing, the Cluster webhook's upgrade checks
// and the forwarder (which sends a waiting pass only the changes that flip one of them). Pure.
import { controlPlaneContract, controlPlaneContractPaths } from '#shared/topology/contract/control-plane-contract.ts';
import type { ContractVersion } from '#shared/topology/contract/contract-version.ts';
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

/**
 * upstream contract ControlPlane().IsScaling: `spec.replicas` differs from `status.replicas`, the up-to-date replicas
 * (`status.upToDateReplicas`; v1beta1: `status.updatedReplicas`), `status.readyReplicas` or the available replicas
 * (`status.availableReplicas`; v1beta1: `spec.replicas - status.unavailableReplicas`), or one of them is not reported.
 *
 * @example
 * isControlPlaneScaling({ ...cp, spec: { replicas: 3 }, status: { replicas: 4, upToDateReplicas: 3, readyReplicas: 4, availableReplicas: 4 } }, 'v1beta2'); // true
 */
export function isControlPlaneScaling(cp: Unstructured, contract: ContractVersion): boolean {
  const paths = controlPlaneContractPaths(contract);
  const desired = getPath(cp, controlPlaneContract.replicas);
  const values = [
    controlPlaneContract.statusReplicas,
    paths.statusUpToDateReplicas,
    controlPlaneContract.statusReadyReplicas,
  ].map((p) => getPath(cp, p));
  if (values.some((v) => typeof v !== 'number')) return true;
  const [statusReplicas, upToDate, ready] = values as number[];
  let available: unknown;
  if (contract === 'v1beta1') {
    const unavailable = getPath(cp, controlPlaneContract.statusUnavailableReplicas);
    available = Number(desired ?? 0) - (typeof unavailable === 'number' ? unavailable : 0);
  } else {
    available = getPath(cp, controlPlaneContract.statusAvailableReplicas);
    if (typeof available !== 'number') return true;
  }
  return desired !== statusReplicas || desired !== upToDate || desired !== ready || desired !== available;
}
