// The health gate's facts about one Cluster, read from its v1beta2 status: the conditions upstream v1.14's Cluster
// controller and topology controller write (TopologyReconciled, ControlPlaneAvailable, WorkersAvailable,
// ControlPlaneMachinesUpToDate, WorkerMachinesUpToDate, RollingOut, Remediating) and the observed generation; and,
// of its control plane and the MachineDeployments and MachinePools its topology owns, whether their rollout of the
// latest spec is observed and finished (get-rollout-progress.ts).
import { computeRolloutProgress, type ReplicaSource } from '#shared/rollout/current/get-rollout-progress.ts';
import type { CheckResult, ClusterHealth } from '#shared/rollout/types.ts';

/** Reasons upstream writes on a True-when-good condition that mean "nothing to check" (no machines, no workers). */
const vacuousReasons = new Set(['NoReplicas', 'NoWorkers']);

/** The parts of a v1beta2 condition the gate reads. */
type Condition = {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly observedGeneration?: number | undefined;
};

/** The parts of a Cluster the gate reads. */
export type HealthSource = {
  readonly metadata: { readonly generation?: number | undefined };
  readonly status?:
    | { readonly observedGeneration?: number | undefined; readonly conditions?: readonly Condition[] | undefined }
    | undefined;
};

/** What the gate reads besides the Cluster, each from the server as it is now. */
export type HealthParts = {
  /** The Cluster's control plane object (`spec.controlPlaneRef`); undefined when not read. */
  readonly controlPlane?: ReplicaSource | undefined;
  /** The MachineDeployments and MachinePools its topology owns. */
  readonly workers?: readonly ReplicaSource[] | undefined;
  /** The MachineSets of those MachineDeployments. */
  readonly machineSets?: readonly ReplicaSource[] | undefined;
};

const describe = (type: string, c: Condition | undefined): string =>
  c === undefined ? `${type} not reported` : `${type} is ${c.status} (${c.reason})`;

function positive(type: string, c: Condition | undefined, generation: number): CheckResult {
  const detail = describe(type, c);
  if (c === undefined) return { ok: false, detail };
  const current = c.observedGeneration === undefined || c.observedGeneration >= generation;
  const ok = (c.status === 'True' || vacuousReasons.has(c.reason)) && current;
  return { ok, detail: current ? detail : `${detail} for generation ${c.observedGeneration}, not ${generation}` };
}

function negative(type: string, c: Condition | undefined): CheckResult {
  return { ok: c?.status !== 'True', detail: describe(type, c) };
}

/** A Cluster-level check, failing too when the objects it aggregates say so. */
function combine(check: CheckResult, failing: readonly string[]): CheckResult {
  return failing.length === 0 ? check : { ok: false, detail: [check.detail, ...failing].join('; ') };
}

/**
 * Reads every check of the health gate off a Cluster, its control plane and the MachineDeployments (with their
 * MachineSets) and MachinePools its topology owns. The gate passes only once the change is observed and finished:
 * a condition reported for an older generation does not count (a Cluster just changed still shows the old
 * TopologyReconciled True until the topology controller runs), nor does an object whose controller has not observed
 * its latest spec, nor a Cluster whose control plane or workers do not have all their replicas up to date and
 * available, nor a MachineDeployment with a MachineSet of an older template still holding Machines (the Cluster's
 * aggregated conditions say "up to date" until upstream's Machine controller marks the old Machines).
 *
 * @example
 * getClusterHealth(cluster, { controlPlane, workers, machineSets }).TopologyReconciled;
 * // { ok: false, detail: 'TopologyReconciled is False (ClusterUpgrading)' }
 */
export function getClusterHealth(cluster: HealthSource, parts: HealthParts = {}): ClusterHealth {
  const generation = cluster.metadata.generation ?? 0;
  const conditions = new Map((cluster.status?.conditions ?? []).map((c) => [c.type, c]));
  const at = (type: string) => conditions.get(type);
  const observed = cluster.status?.observedGeneration;
  const topologyObserved = at('TopologyReconciled')?.observedGeneration;
  const controlPlane = parts.controlPlane;
  const workers = parts.workers ?? [];
  const { controlPlane: cp, workers: w } = computeRolloutProgress(controlPlane, workers, parts.machineSets ?? []);
  const unobserved = [...cp.unobserved, ...w.unobserved];
  const observedOk =
    observed !== undefined &&
    observed >= generation &&
    (topologyObserved ?? generation) >= generation &&
    unobserved.length === 0;
  return {
    ObservedGeneration: {
      ok: observedOk,
      detail: [
        `generation ${generation}, observed ${observed ?? 'none'}${topologyObserved === undefined ? '' : `, topology observed ${topologyObserved}`}`,
        ...unobserved,
      ].join('; '),
    },
    TopologyReconciled: positive('TopologyReconciled', at('TopologyReconciled'), generation),
    ControlPlaneAvailable: combine(
      positive('ControlPlaneAvailable', at('ControlPlaneAvailable'), generation),
      cp.notAvailable,
    ),
    WorkersAvailable: combine(positive('WorkersAvailable', at('WorkersAvailable'), generation), w.notAvailable),
    ControlPlaneMachinesUpToDate: combine(
      positive('ControlPlaneMachinesUpToDate', at('ControlPlaneMachinesUpToDate'), generation),
      cp.notUpToDate,
    ),
    WorkerMachinesUpToDate: combine(
      positive('WorkerMachinesUpToDate', at('WorkerMachinesUpToDate'), generation),
      w.notUpToDate,
    ),
    NotRollingOut: combine(negative('RollingOut', at('RollingOut')), [...cp.rollingOut, ...w.rollingOut]),
    NotRemediating: negative('Remediating', at('Remediating')),
  };
}
