// The upgrade plan of a topology (upstream's exp/topology/desiredstate/upgrade_plan.go), pure: the versions the control
// plane goes through to reach spec.topology.version and the fewest worker steps that respect the version skew. The
// plan comes from one minor at a time (default), the ClusterClass's spec.kubernetesVersions, or the answer of its
// GenerateUpgradePlan extension, which the I/O side calls beforehand and hands in.
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { CapiError } from '#shared/errors/index.ts';
import { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import {
  compareVersions,
  compareWithBuildTags,
  formatVersion,
  parseVersionTolerant,
  type Version,
} from '#shared/lang/semver/semver.ts';
import type { UpgradePlans } from '#shared/topology/desired/upgrade-plans.ts';
import type { CurrentState } from '#shared/topology/types.ts';

/** An upgrade plan that cannot be computed or that breaks upstream's rules; the message is upstream's. */
export class UpgradePlanError extends CapiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: 'UpgradePlanInvalid' }, options);
  }
}

/** What a plan is asked for (upstream's GetUpgradePlanFunc arguments; the GenerateUpgradePlan request fields). */
export type UpgradePlanRequest = {
  readonly desiredVersion: string;
  readonly controlPlaneVersion: string;
  /** '' without workers. */
  readonly minWorkersVersion: string;
};

/** The plan a plan source returns: control plane steps and (optionally) worker steps. */
export type GeneratedUpgradePlan = {
  readonly controlPlane: readonly string[];
  readonly workers: readonly string[];
};

export type { UpgradePlans } from '#shared/topology/desired/upgrade-plans.ts';

const noPlan = (minWorkersVersion: string): UpgradePlans => ({
  controlPlane: [],
  machineDeployments: [],
  machinePools: [],
  minWorkersVersion,
});

function parse(version: string, what: string): Version {
  const v = parseVersionTolerant(version);
  if (!v) throw new UpgradePlanError(`failed to parse ${what} ${version}: not a semantic version`);
  return v;
}

const v = (version: Version) => `v${formatVersion(version)}`;

/**
 * Upstream isLowerThanMinVersion: lower, or — builds that cannot be ordered — different from the control plane's
 * version (a worker is either at the control plane's version or older).
 */
function isLowerThanMinVersion(version: Version, min: Version, controlPlane: Version): boolean {
  const c = compareWithBuildTags(version, min);
  if (c === -1) return true;
  if (c === 2) return formatVersion(version) !== formatVersion(controlPlane);
  return false;
}

/**
 * The plan request of a pass: the topology version, the current control plane's version and the lowest worker
 * version (upstream's ComputeUpgradePlan inputs). Undefined while there is no control plane yet, or when everything
 * already runs the topology version (no plan is asked for).
 *
 * @example
 * computeUpgradePlanRequest('v1.33.0', current); // { desiredVersion: 'v1.33.0', controlPlaneVersion: 'v1.31.0', minWorkersVersion: 'v1.31.0' }
 */
export function computeUpgradePlanRequest(
  topologyVersion: string,
  current: CurrentState,
): (UpgradePlanRequest & { readonly upToDate: boolean }) | undefined {
  const cp = current.controlPlane?.object;
  if (!cp) return undefined;
  const desired = parse(topologyVersion, 'Cluster version');
  const controlPlaneVersion = String(getPath(cp, controlPlaneContract.version) ?? '');
  const controlPlane = parse(controlPlaneVersion, 'ControlPlane version');
  let min: Version | undefined;
  const workers = [
    ...Object.values(current.machineDeployments).map((md) => ['MachineDeployment', md.object] as const),
    ...Object.values(current.machinePools).map((mp) => ['MachinePool', mp.object] as const),
  ];
  for (const [kind, obj] of workers) {
    const version = obj.spec.template.spec.version ?? '';
    if (version === '') continue;
    const parsed = parseVersionTolerant(version);
    if (!parsed)
      throw new UpgradePlanError(
        `failed to parse version ${version} of ${kind} ${obj.metadata.name ?? ''}: not a semantic version`,
      );
    if (!min || isLowerThanMinVersion(parsed, min, controlPlane)) min = parsed;
  }
  const minWorkersVersion = min ? v(min) : '';
  const upToDate =
    formatVersion(controlPlane) === formatVersion(desired) &&
    (min === undefined || formatVersion(min) === formatVersion(desired));
  return { desiredVersion: topologyVersion, controlPlaneVersion, minWorkersVersion, upToDate };
}

/**
 * Upstream GetUpgradePlanOneMinor, the plan without kubernetesVersions or an extension: the topology version, at
 * most one minor above the control plane's.
 *
 * @example
 * getUpgradePlanOneMinor({ desiredVersion: 'v1.32.0', controlPlaneVersion: 'v1.31.0', minWorkersVersion: '' }); // { controlPlane: ['v1.32.0'], workers: [] }
 */
export function getUpgradePlanOneMinor(request: UpgradePlanRequest): GeneratedUpgradePlan {
  const desired = parse(request.desiredVersion, 'desired version');
  const controlPlane = parse(request.controlPlaneVersion, 'current ControlPlane version');
  if (formatVersion(controlPlane) === formatVersion(desired)) return { controlPlane: [], workers: [] };
  if (desired.minor > controlPlane.minor + 1)
    throw new UpgradePlanError(
      `cannot compute an upgrade plan from ${request.controlPlaneVersion} to ${request.desiredVersion}`,
    );
  return { controlPlane: [request.desiredVersion], workers: [] };
}

/**
 * Upstream GetUpgradePlanFromClusterClassVersions: the latest listed version of every minor after the control
 * plane's, up to the topology version; workers are left to defaulting.
 *
 * @example
 * getUpgradePlanFromClusterClassVersions(['v1.31.0', 'v1.32.0', 'v1.33.0'], { desiredVersion: 'v1.33.0', controlPlaneVersion: 'v1.31.0', minWorkersVersion: '' });
 * // { controlPlane: ['v1.32.0', 'v1.33.0'], workers: [] }
 */
export function getUpgradePlanFromClusterClassVersions(
  versions: readonly string[],
  request: UpgradePlanRequest,
): GeneratedUpgradePlan {
  const desired = parse(request.desiredVersion, 'desired version');
  const controlPlane = parse(request.controlPlaneVersion, 'current ControlPlane version');
  if (formatVersion(controlPlane) === formatVersion(desired)) return { controlPlane: [], workers: [] };
  const candidates: { raw: string; parsed: Version }[] = [];
  for (const raw of versions) {
    const parsed = parse(raw, 'version');
    // NOTE: versions not after the control plane's are skipped, builds ignored (same as upstream's version.Compare).
    if (compareVersions(parsed, controlPlane, false) <= 0) continue;
    if (compareWithBuildTags(parsed, desired) === 1) break;
    candidates.push({ raw, parsed });
    if (formatVersion(parsed) === formatVersion(desired)) break;
  }
  if (candidates.length === 0) return { controlPlane: [], workers: [] };
  const plan: string[] = [];
  let currentMinor = controlPlane.minor;
  if (currentMinor === desired.minor) plan.push(candidates[0]?.raw ?? '');
  for (const { raw, parsed } of candidates) {
    if (parsed.minor > currentMinor) plan.push(raw);
    if (parsed.minor === currentMinor && plan.length > 0) plan[plan.length - 1] = raw;
    currentMinor = parsed.minor;
  }
  return { controlPlane: plan, workers: [] };
}

/**
 * Upstream DefaultAndValidateUpgradePlans: checks the control plane plan (ascending, no minor skipped, ends at the
 * topology version) and the workers plan (only control plane versions, same order, at most three minors a step,
 * ends at the topology version); an empty workers plan is defaulted to the fewest steps the skew allows. Resolves
 * the workers plan.
 *
 * @example
 * defaultAndValidateUpgradePlans({ desiredVersion: 'v1.32.0', controlPlaneVersion: 'v1.30.0', minWorkersVersion: 'v1.30.0' }, { controlPlane: ['v1.31.1', 'v1.32.0'], workers: [] });
 * // ['v1.32.0']
 */
export function defaultAndValidateUpgradePlans(
  request: UpgradePlanRequest,
  plan: GeneratedUpgradePlan,
): readonly string[] {
  const desired = parse(request.desiredVersion, 'Cluster version');
  const controlPlane = parse(request.controlPlaneVersion, 'ControlPlane version');
  const minWorkers =
    request.minWorkersVersion === '' ? undefined : parse(request.minWorkersVersion, 'min workers version');
  const minors = new Map<number, string>([[controlPlane.minor, request.controlPlaneVersion]]);
  const versionOrder = new Map<string, number>([[request.controlPlaneVersion, -1]]);

  if (compareWithBuildTags(controlPlane, desired) !== 0) {
    let current = controlPlane;
    plan.controlPlane.forEach((target, i) => {
      versionOrder.set(target, i);
      const parsed = parseVersionTolerant(target);
      if (!parsed)
        throw new UpgradePlanError(
          `invalid ControlPlane upgrade plan: item ${i}; failed to parse version ${target}: not a semantic version`,
        );
      if (compareWithBuildTags(parsed, current) <= 0)
        throw new UpgradePlanError(
          `invalid ControlPlane upgrade plan: item ${i}; version ${target} must be greater than ${v(current)}`,
        );
      if (current.minor !== parsed.minor && current.minor + 1 !== parsed.minor)
        throw new UpgradePlanError(
          `invalid ControlPlane upgrade plan: item ${i}; expecting a version with minor ${current.minor} or ${current.minor + 1}, found version ${target}`,
        );
      minors.set(parsed.minor, target);
      current = parsed;
    });
    if (compareWithBuildTags(current, desired) !== 0)
      throw new UpgradePlanError(
        `invalid ControlPlane upgrade plan: control plane upgrade plan must end with version ${request.desiredVersion}, ends with ${v(current)} instead`,
      );
  } else if (plan.controlPlane.length > 0) {
    throw new UpgradePlanError('invalid ControlPlane upgrade plan: control plane is already at the desired version');
  }

  if (!minWorkers || compareWithBuildTags(minWorkers, desired) === 0) {
    if (plan.workers.length > 0)
      throw new UpgradePlanError(
        'invalid worker upgrade plan; there are no workers or workers already at the desired version',
      );
    return plan.workers;
  }
  if (plan.controlPlane.length > 0) {
    const known = new Set([...plan.controlPlane, request.controlPlaneVersion]);
    const unknown = [...new Set(plan.workers)].filter((w) => !known.has(w));
    if (unknown.length > 0)
      throw new UpgradePlanError(
        `invalid workers upgrade plan: versions ${unknown.join(',')} doesn't match any versions in the control plane upgrade plan nor the control plane version`,
      );
  }
  let workers = [...plan.workers];
  if (workers.length === 0) {
    // Every third minor is a worker step (workers may be at most three minors behind), then the topology version.
    for (let i = 1; i < desired.minor - minWorkers.minor; i++) {
      if (i % 3 !== 0) continue;
      const target = minors.get(minWorkers.minor + i);
      if (target === undefined)
        throw new UpgradePlanError(
          `invalid upgrade plan; unable to identify version for minor ${minWorkers.minor + i}`,
        );
      workers.push(target);
    }
    if (workers.at(-1) !== request.desiredVersion) workers = [...workers, request.desiredVersion];
  }
  let current = minWorkers;
  workers.forEach((target, i) => {
    const parsed = parseVersionTolerant(target);
    if (!parsed)
      throw new UpgradePlanError(
        `invalid workers upgrade plan, item ${i}; failed to parse version ${target}: not a semantic version`,
      );
    const c = compareWithBuildTags(parsed, current);
    if (c <= 0)
      throw new UpgradePlanError(
        `invalid workers upgrade plan, item ${i}; version ${target} must be greater than ${v(current)}`,
      );
    if (c === 2) {
      const targetOrder = versionOrder.get(target);
      if (targetOrder === undefined)
        throw new UpgradePlanError(
          `invalid workers upgrade plan, item ${i}; failer to determine version ${target} order`,
        );
      const currentOrder = versionOrder.get(v(current));
      if (currentOrder === undefined) throw new UpgradePlanError(`failer to determine version ${v(current)} order`);
      if (targetOrder < currentOrder)
        throw new UpgradePlanError(
          `invalid workers upgrade plan, item ${i}; version ${target} must be before ${v(current)}`,
        );
    }
    if (parsed.minor - current.minor > 3)
      throw new UpgradePlanError(
        `invalid workers upgrade plan, item ${i}; workers cannot go from minor ${current.minor} (${v(current)}) to minor ${parsed.minor} (${target}), an intermediate step is required to comply with Kubernetes version skew rules`,
      );
    current = parsed;
  });
  if (compareWithBuildTags(current, desired) !== 0)
    throw new UpgradePlanError(
      `invalid workers upgrade plan; workers upgrade plan must end with version ${request.desiredVersion}, ends with ${v(current)} instead`,
    );
  return workers;
}

/** Where a ClusterClass's plans come from (upstream: the extension wins over the list of versions). */
export type UpgradePlanSource =
  | { readonly kind: 'OneMinor' }
  | { readonly kind: 'KubernetesVersions'; readonly versions: readonly string[] }
  | { readonly kind: 'Extension'; readonly name: string };

/** The plan source of a ClusterClass. */
export function computeUpgradePlanSource(cc: ClusterClass): UpgradePlanSource {
  const extension = cc.spec.upgrade?.external?.generateUpgradePlanExtension;
  if (extension) return { kind: 'Extension', name: extension };
  const versions = cc.spec.kubernetesVersions ?? [];
  if (versions.length > 0) return { kind: 'KubernetesVersions', versions };
  return { kind: 'OneMinor' };
}

/**
 * Upstream ComputeUpgradePlan: the plans of this pass. `generated` is the GenerateUpgradePlan answer for exactly
 * `computeUpgradePlanRequest(...)` when the class names an extension (the I/O side called it).
 *
 * @example
 * computeUpgradePlan('v1.33.0', current, { kind: 'KubernetesVersions', versions }); // { controlPlane: ['v1.32.0', 'v1.33.0'], machineDeployments: ['v1.33.0'], ... }
 */
export function computeUpgradePlan(
  topologyVersion: string,
  current: CurrentState,
  source: UpgradePlanSource,
  generated?: GeneratedUpgradePlan,
): UpgradePlans {
  const request = computeUpgradePlanRequest(topologyVersion, current);
  if (!request) return noPlan('');
  if (request.upToDate) return noPlan(request.minWorkersVersion);
  let plan: GeneratedUpgradePlan;
  if (source.kind === 'Extension') {
    if (!generated)
      throw new UpgradePlanError(`the GenerateUpgradePlan extension ${source.name} has not answered for this pass`);
    plan = generated;
  } else if (source.kind === 'KubernetesVersions') {
    plan = getUpgradePlanFromClusterClassVersions(source.versions, request);
  } else {
    plan = getUpgradePlanOneMinor(request);
  }
  const workers = defaultAndValidateUpgradePlans(request, plan);
  return {
    controlPlane: [...plan.controlPlane],
    machineDeployments: Object.keys(current.machineDeployments).length > 0 ? workers : [],
    machinePools: Object.keys(current.machinePools).length > 0 ? workers : [],
    minWorkersVersion: request.minWorkersVersion,
  };
}
