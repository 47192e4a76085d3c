// The health gate's facts about one Cluster, read from its v1beta2 status: the conditions upstream v1.14's Cluster
// controller and topology controller write (TopologyReconciled, ControlPlaneAvailable, WorkersAvailable,
// ControlPlaneMachinesUpToDate, WorkerMachinesUpToDate, RollingOut, Remediating) and the observed generation; and,
// of the MachineDeployments and MachinePools its topology owns, their observed generation and RollingOut.
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

/**
 * The parts of a topology-owned MachineDeployment or MachinePool the gate reads. NOTE: the Cluster's own conditions
 * aggregate these objects' status, and a topology pass changes them after the Cluster's generation was observed: until
 * upstream's controller has observed a worker's new generation (and the Cluster controller aggregated it), the Cluster
 * still reports the old, healthy state. Seen beside upstream's managers: a rebase's canary passed the gate before its
 * MachineDeployment started rolling out, then lost its health during the bake.
 */
export type WorkerSource = {
  readonly kind: string;
  readonly metadata: { readonly name?: string | undefined; readonly generation?: number | undefined };
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

const nameOf = (w: WorkerSource) => `${w.kind} ${w.metadata.name ?? ''}`;

/** The workers that have not observed their latest spec yet, described. */
function computeUnobservedWorkers(workers: readonly WorkerSource[]): string[] {
  return workers
    .filter((w) => (w.status?.observedGeneration ?? 0) < (w.metadata.generation ?? 0))
    .map(
      (w) =>
        `${nameOf(w)} generation ${w.metadata.generation ?? 0}, observed ${w.status?.observedGeneration ?? 'none'}`,
    );
}

/** The workers reporting RollingOut True, described. */
function computeRollingOutWorkers(workers: readonly WorkerSource[]): string[] {
  return workers
    .filter((w) => (w.status?.conditions ?? []).some((c) => c.type === 'RollingOut' && c.status === 'True'))
    .map((w) => `${nameOf(w)} RollingOut is True`);
}

/**
 * Reads every check of the health gate off a Cluster and the MachineDeployments and MachinePools its topology owns.
 * A condition reported for an older generation does not count (a Cluster just changed still shows the old
 * TopologyReconciled True until the topology controller runs), nor does a worker that has not observed its latest
 * spec (the Cluster's aggregated conditions are then still the old ones).
 *
 * @example
 * getClusterHealth(cluster, workers).TopologyReconciled; // { ok: false, detail: 'TopologyReconciled is False (ClusterUpgrading)' }
 */
export function getClusterHealth(cluster: HealthSource, workers: readonly WorkerSource[] = []): ClusterHealth {
  const generation = cluster.metadata.generation ?? 0;
  const conditions = new Map((cluster.status?.conditions ?? []).map((c) => [c.type, c]));
  const at = (type: string) => conditions.get(type);
  const observed = cluster.status?.observedGeneration;
  const topologyObserved = at('TopologyReconciled')?.observedGeneration;
  const unobserved = computeUnobservedWorkers(workers);
  const observedOk =
    observed !== undefined &&
    observed >= generation &&
    (topologyObserved ?? generation) >= generation &&
    unobserved.length === 0;
  const rollingOut = negative('RollingOut', at('RollingOut'));
  const workersRollingOut = computeRollingOutWorkers(workers);
  return {
    ObservedGeneration: {
      ok: observedOk,
      detail: [
        `generation ${generation}, observed ${observed ?? 'none'}${topologyObserved === undefined ? '' : `, topology observed ${topologyObserved}`}`,
        ...unobserved,
      ].join('; '),
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
    NotRollingOut: {
      ok: rollingOut.ok && workersRollingOut.length === 0,
      detail: [rollingOut.detail, ...workersRollingOut].join('; '),
    },
    NotRemediating: negative('Remediating', at('Remediating')),
  };
}
