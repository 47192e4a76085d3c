// Whether a Cluster's topology pass can act on a status change of the objects it owns, pure: it can only while the
// pass waits for them (an upgrade or a creation in progress). A settled Cluster's pass reads their status changes and
// skips them (its checkpoint says Success), so the forwarder does not send them: a version upgrade's or scale-up's
// tail of replica counters costs no invocation. Spec, label, annotation, owner and deletion changes are always sent.
import type { KubeObject } from '#shared/kube/objects.ts';

type Condition = { type?: string; status?: string; observedGeneration?: number };

const conditionOf = (obj: KubeObject & { status?: unknown }, type: string): Condition | undefined =>
  ((obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/**
 * A Cluster whose topology pass is not waiting for its owned objects: TopologyReconciled True for the Cluster's current
 * generation (the pass has seen its spec; while an upgrade or a worker creation is pending, the pass writes it False,
 * ClusterUpgrading), the control plane initialized (the first pass of a new Cluster reports True while its workers
 * wait for the control plane), and not being deleted. Anything else (a Cluster the forwarder has not seen, a condition
 * of an older generation, paused, failed) is not settled: its owned objects' changes are all sent.
 *
 * @example
 * isTopologySettled(clusterWithTopologyReconciledTrueAtItsGeneration); // true
 * isTopologySettled(clusterUpgrading); // false (TopologyReconciled False, ClusterUpgrading)
 */
export function isTopologySettled(cluster: KubeObject & { status?: unknown }): boolean {
  if (cluster.metadata.deletionTimestamp !== undefined) return false;
  const reconciled = conditionOf(cluster, 'TopologyReconciled');
  if (reconciled?.status !== 'True') return false;
  if (reconciled.observedGeneration === undefined || reconciled.observedGeneration !== cluster.metadata.generation)
    return false;
  return conditionOf(cluster, 'ControlPlaneInitialized')?.status === 'True';
}

/**
 * Whether a topology-owned object's change is worth sending to its Cluster's pass. A change of what the pass owns or
 * waits for besides status (`statusOnly` false: a new or deleted object, its generation, labels, annotations,
 * deletion or adoption) always is; a status-only change only while the Cluster is not settled.
 *
 * @example
 * isOwnedChangeNeeded({ statusOnly: true, clusterSettled: true }); // false
 * isOwnedChangeNeeded({ statusOnly: false, clusterSettled: true }); // true
 */
export function isOwnedChangeNeeded(change: {
  readonly statusOnly: boolean;
  readonly clusterSettled: boolean;
}): boolean {
  return !change.statusOnly || !change.clusterSettled;
}
