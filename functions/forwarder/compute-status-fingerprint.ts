// What of an object's state the functions act on, so that the forwarder sends no event for the rest (a condition's
// message, a heartbeat, other managers' managedFields, a replica counter): for a topology-owned control plane or
// worker set, its generation, deletion, what the waiting pass decides from its status (compute-owned-gates.ts:
// provisioning, upgrading, scaling, rolled out) and whether a Cluster owns it (the core controller's adoption, which a
// pass leaving the cluster shim waits for); for a Cluster, what the topology and add-on passes read of it (spec,
// labels, annotations, deletion, initialization, the topology's own managed-fields entry).
import type { KubeObject } from '#shared/kube/objects.ts';
import { computeOwnedGates } from '#functions/forwarder/compute-owned-gates.ts';
import { OkToDeleteAnnotation, PendingHooksAnnotation } from '#shared/topology/desired/lifecycle-hooks.ts';
import { ClusterTopologyUpgradeStepAnnotation, TopologyManagerName } from '#shared/topology/labels.ts';
import { hasApplyEntry } from '#shared/kube/managed-fields.ts';

const clusterGroup = 'cluster.x-k8s.io';
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

function valueAt(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const segment of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}

/**
 * A short string that changes exactly when the generation, the deletion, one of the owned object's gates
 * ({@link computeOwnedGates}) or its adoption changes (stable order, so equal states give equal strings).
 *
 * @example
 * computeStatusFingerprint(kubeadmControlPlaneUpgrading);
 * // '2|-|provisioning=0|upgrading=1|scaling=-|cluster-owned'
 */
export function computeStatusFingerprint(obj: KubeObject & { spec?: unknown; status?: unknown }): string {
  const encode = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  // NOTE: the core Cluster controller adopting a control plane (its Cluster owner reference) is what a pass that
  // left the cluster shim waits for (upstream's watch of the control plane maps it to the Cluster).
  const adopted = (obj.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'Cluster' && groupOf(r.apiVersion) === clusterGroup,
  );
  return [
    encode(obj.metadata.generation),
    obj.metadata.deletionTimestamp === undefined ? '-' : 'deleting',
    ...computeOwnedGates(obj),
    adopted ? 'cluster-owned' : '-',
  ].join('|');
}

/**
 * Cluster conditions a pass reads: the topology's skip decision and the add-on pass's wait for the infrastructure
 * (status only), and the rollout's health gate (status and observed generation: a change's gate waits for both).
 */
const clusterConditionTypes = new Set(['ControlPlaneInitialized', 'InfrastructureReady']);
const healthGateConditionTypes = new Set([
  'TopologyReconciled',
  'ControlPlaneAvailable',
  'WorkersAvailable',
  'ControlPlaneMachinesUpToDate',
  'WorkerMachinesUpToDate',
  'RollingOut',
  'Remediating',
]);
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
const sortedEntries = (map: Record<string, string> | undefined, skip: ReadonlySet<string> = new Set()) =>
  Object.entries(map ?? {})
    .filter(([k]) => !skip.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * What the passes read of a Cluster: its generation (spec), labels, annotations (not kubectl's last-applied copy),
 * deletion, `status.initialization`, `status.phase` and the ControlPlaneInitialized and InfrastructureReady
 * conditions' status; for the rollout's health gate, `status.observedGeneration` and the status and observed generation
 * of TopologyReconciled, ControlPlaneAvailable, WorkersAvailable, *MachinesUpToDate, RollingOut and Remediating. The rest of status (the core manager's conditions, replica counters) changes often during a
 * rollout and is read by no pass.
 *
 * @example
 * computeClusterFingerprint(cluster) === computeClusterFingerprint(sameClusterWithNewConditionMessage); // true
 */
export function computeClusterFingerprint(obj: KubeObject & { status?: unknown }): string {
  const status = (obj.status ?? {}) as {
    conditions?: { type?: string; status?: string; observedGeneration?: number }[];
  };
  const conditions = (status.conditions ?? [])
    .flatMap((c) => {
      const type = c.type ?? '';
      if (clusterConditionTypes.has(type)) return [`${type}=${c.status ?? ''}`];
      if (healthGateConditionTypes.has(type)) return [`${type}=${c.status ?? ''}@${c.observedGeneration ?? ''}`];
      return [];
    })
    .sort();
  return JSON.stringify([
    obj.metadata.generation ?? null,
    obj.metadata.deletionTimestamp ?? null,
    sortedEntries(obj.metadata.labels),
    sortedEntries(obj.metadata.annotations, new Set([lastApplied])),
    valueAt(status, ['initialization']) ?? null,
    valueAt(status, ['phase']) ?? null,
    valueAt(status, ['observedGeneration']) ?? null,
    conditions,
  ]);
}

/** Annotations the topology pass writes on the Cluster itself (its hook and upgrade-step marks): read by no pass. */
const passWrittenAnnotations = new Set([
  lastApplied,
  PendingHooksAnnotation,
  OkToDeleteAnnotation,
  ClusterTopologyUpgradeStepAnnotation,
]);

/** What each controller routed Cluster changes reads of a Cluster; a change concerns those whose string changed. */
export type ClusterFingerprints = { readonly topology: string; readonly addons: string; readonly rollout: string };

/**
 * One fingerprint per controller that hears about Clusters, so a change is sent only to the controllers that read
 * what changed. topology: what its skip decision reads (spec, labels, annotations but its own marks, deletion,
 * ControlPlaneInitialized) and whether its field manager's apply entry is gone from the managed fields; addons: what
 * selects and gates a ClusterResourceSet (labels, annotations but the topology's marks, deletion,
 * `status.initialization`); rollout: {@link computeClusterFingerprint} (everything above and its health gate). During
 * an upgrade the core manager's condition updates change only the rollout's.
 *
 * @example
 * computeClusterFingerprints(cluster).topology === computeClusterFingerprints(withRollingOutTrue).topology; // true
 */
export function computeClusterFingerprints(obj: KubeObject & { status?: unknown }): ClusterFingerprints {
  const status = (obj.status ?? {}) as { conditions?: { type?: string; status?: string }[] };
  const cpInitialized = (status.conditions ?? []).find((c) => c.type === 'ControlPlaneInitialized')?.status ?? null;
  const labels = sortedEntries(obj.metadata.labels);
  const annotations = sortedEntries(obj.metadata.annotations, passWrittenAnnotations);
  const deleting = obj.metadata.deletionTimestamp ?? null;
  // NOTE: the topology's apply entry gone (someone purged the Cluster's managed fields): its pass applies again. Only
  // when gone, so a Cluster that has it prints as it did before this mark existed.
  const fieldsLost = hasApplyEntry(obj.metadata, TopologyManagerName) ? [] : ['topologyFieldsLost'];
  return {
    topology: JSON.stringify([
      obj.metadata.generation ?? null,
      deleting,
      labels,
      annotations,
      cpInitialized,
      ...fieldsLost,
    ]),
    addons: JSON.stringify([deleting, labels, annotations, valueAt(status, ['initialization']) ?? null]),
    rollout: computeClusterFingerprint(obj),
  };
}
