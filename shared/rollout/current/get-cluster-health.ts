// The health gate's facts about one Cluster, read from its v1beta2 status: the conditions upstream v1.14's Cluster
// controller and topology controller write (TopologyReconciled, ControlPlaneAvailable, WorkersAvailable,
// ControlPlaneMachinesUpToDate, WorkerMachinesUpToDate, RollingOut, Remediating) and the observed generation.
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

/**
 * Reads every check of the health gate off a Cluster. A condition reported for an older generation does not
 * count (a Cluster just changed still shows the old TopologyReconciled True until the topology controller runs).
 *
 * @example
 * getClusterHealth(cluster).TopologyReconciled; // { ok: false, detail: 'TopologyReconciled is False (ClusterUpgrading)' }
 */
export function getClusterHealth(cluster: HealthSource): ClusterHealth {
  const generation = cluster.metadata.generation ?? 0;
  const conditions = new Map((cluster.status?.conditions ?? []).map((c) => [c.type, c]));
  const at = (type: string) => conditions.get(type);
  const observed = cluster.status?.observedGeneration;
  const topologyObserved = at('TopologyReconciled')?.observedGeneration;
  const observedOk = observed !== undefined && observed >= generation && (topologyObserved ?? generation) >= generation;
  return {
    ObservedGeneration: {
      ok: observedOk,
      detail: `generation ${generation}, observed ${observed ?? 'none'}${topologyObserved === undefined ? '' : `, topology observed ${topologyObserved}`}`,
    },
    TopologyReconciled: positive('TopologyReconciled', at('TopologyReconciled'), generation),
    ControlPlaneAvailable: positive('ControlPlaneAvailable', at('ControlPlaneAvailable'), generation),
    WorkersAvailable: positive('WorkersAvailable', at('WorkersAvailable'), generation),
    ControlPlaneMachinesUpToDate: positive(
      'ControlPlaneMachinesUpToDate',
      at('ControlPlaneMachinesUpToDate'),
      generation,
    ),
    WorkerMachinesUpToDate: positive('WorkerMachinesUpToDate', at('WorkerMachinesUpToDate'), generation),
    NotRollingOut: negative('RollingOut', at('RollingOut')),
    NotRemediating: negative('Remediating', at('Remediating')),
  };
}
