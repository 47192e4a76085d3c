// The rollout controller as the runtime sees it: ClusterRollouts are the objects it reconciles; a change of a Cluster
// maps to the rollouts that select it or track it. Its facts are the rollout and the health of its Clusters, so a
// Cluster event that changes nothing the gate reads is skipped, and an idle rollout (baking, waiting for a window)
// runs no pass until the due time its checkpoint records.
import { matchesLabelSelector } from '#shared/api/label-selector.ts';
import {
  RolloutApiVersion,
  RolloutKind,
  RolloutPhase,
  healthChecks,
  ClusterRollout,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { findObject } from '#shared/kube/index.ts';
import { findClusterRollout, listClusterRollouts } from '#shared/rollout/current/get-cluster-rollout.ts';
import { clusterApiVersion, listRolloutClusters } from '#shared/rollout/current/list-rollout-clusters.ts';
import { reconcileRollout, type RolloutDeps } from '#shared/rollout/reconcile-rollout.ts';
import { computeInputHash } from '#shared/runtime/compute-input-hash.ts';
import type { ChangedObject, KindRef, ObjectFacts, PassKey, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

const rolloutKind = { apiVersion: RolloutApiVersion, kind: RolloutKind } as const satisfies KindRef;
const clusterKind = { apiVersion: clusterApiVersion, kind: 'Cluster' } as const satisfies KindRef;

/** The rollout's own field manager: its Cluster writes and its status are told apart from the topology pass's. */
export function rolloutFieldManager(base: string): string {
  return `${base}-rollout`;
}

function rolloutDepsOf(deps: RuntimeDeps, signal?: AbortSignal): RolloutDeps {
  return {
    kube: deps.kube,
    fieldManager: rolloutFieldManager(deps.config.fieldManager),
    now: deps.now,
    ...(signal === undefined ? {} : { signal }),
    warn: (message, error) => deps.logger.warn(message, { error }),
  };
}

const finished = new Set<string>([RolloutPhase.Completed, RolloutPhase.Aborted]);

/** Whether a Cluster event concerns a rollout: it selects the Cluster (labels known) or tracks it by name. */
function concerns(rollout: ClusterRollout, name: string, labels: Record<string, string> | undefined): boolean {
  if (finished.has(rollout.status?.phase ?? '')) return false;
  if ((rollout.status?.clusters ?? []).some((e) => e.name === name)) return true;
  if (labels === undefined) return false;
  try {
    return matchesLabelSelector(rollout.spec.clusterSelector, labels, { empty: 'nothing' });
  } catch {
    return false; // NOTE: an invalid selector is reported by the rollout's own pass.
  }
}

/**
 * The facts of a ClusterRollout: its generation (spec: pause, abort, retry) and, per Cluster it selects or tracks,
 * what the pass decides on (topology, generation, each health check's verdict) — never the rollout's own status.
 * Reads: the rollout and one LIST of its Clusters (plus a GET per tracked Cluster the selector no longer returns).
 */
async function getRolloutFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined> {
  const raw = await findClusterRollout(deps.kube, { namespace: key.namespace, name: key.name });
  if (raw === undefined) return undefined;
  const parsed = ClusterRollout.safeParse(raw);
  const clusters = parsed.success ? await listRolloutClusters(deps.kube, parsed.data) : [];
  const inputs = clusters
    .map((c) => ({
      name: c.name,
      uid: c.uid,
      generation: c.generation,
      selected: c.selected,
      deleting: c.deleting,
      topology: c.topology ?? null,
      health: healthChecks.map((check) => c.health[check].ok),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    uid: raw.metadata.uid ?? '',
    generation: raw.metadata.generation ?? 0,
    resourceVersion: raw.metadata.resourceVersion ?? '',
    inputHash: computeInputHash({ valid: parsed.success, clusters: inputs }),
  };
}

async function mapClusterChange(deps: RuntimeDeps, change: ChangedObject): Promise<PassKey[]> {
  const cluster =
    change.type === 'DELETED'
      ? undefined
      : await findObject(deps.kube, { ...clusterKind, namespace: change.namespace, name: change.name });
  const rollouts = await listClusterRollouts(deps.kube, change.namespace);
  return rollouts
    .filter((r) => concerns(r, change.name, cluster?.metadata.labels))
    .map((r) => ({ ...rolloutKind, namespace: r.metadata.namespace ?? '', name: r.metadata.name ?? '' }));
}

/**
 * The rollout controller's Reconciler (registered in shared/controllers.ts; functions/rollout.ts is its Lambda).
 *
 * @example
 * const handler = createControllerHandler({ reconciler: rolloutReconciler, logger, getDeps });
 */
export const rolloutReconciler: Reconciler = {
  controller: 'rollout',
  kinds: [rolloutKind],
  watchedKinds: [clusterKind],
  async mapChange(deps, change) {
    return change.kind === 'Cluster' ? mapClusterChange(deps, change) : [];
  },
  getFacts: getRolloutFacts,
  async reconcile(deps, key, ctx) {
    return reconcileRollout(rolloutDepsOf(deps, ctx.signal), { namespace: key.namespace, name: key.name });
  },
};
