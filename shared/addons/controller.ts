// The addons controller as the runtime sees it: ClusterResourceSets are the objects it reconciles; a change of a
// Cluster, a ClusterResourceSetBinding or a ConfigMap/Secret is mapped to the ClusterResourceSets it affects, or to
// the Cluster whose binding must go once the Cluster is gone.
import {
  AddonsApiVersion,
  UpstreamClusterResourceSetFinalizer,
  type ClusterResourceSet,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { matchesLabelSelector } from '#shared/api/label-selector.ts';
import {
  getBinding,
  getCluster,
  getClusterResourceSet,
  getResources,
  isClusterWaitingForBeforeClusterDelete,
  listClusterResourceSets,
  listSelectedClusters,
  reconcileAddons,
  reconcileAddonsForCluster,
  type AddonsCluster,
  type AddonsDeps,
} from '#shared/addons/index.ts';
import { computeInputHash } from '#shared/runtime/compute-input-hash.ts';
import type {
  ChangedObject,
  KindRef,
  ObjectFacts,
  PassContext,
  PassKey,
  PassOutcome,
  Reconciler,
  RuntimeDeps,
} from '#shared/runtime/types.ts';

const clusterApiVersion = 'cluster.x-k8s.io/v1beta2';
const crsKind = { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSet' } as const satisfies KindRef;
const clusterKind = { apiVersion: clusterApiVersion, kind: 'Cluster' } as const satisfies KindRef;

const crsKey = (namespace: string, name: string): PassKey => ({ ...crsKind, namespace, name });
const clusterKey = (namespace: string, name: string): PassKey => ({ ...clusterKind, namespace, name });
const keysOf = (sets: readonly ClusterResourceSet[]): PassKey[] =>
  sets.map((crs) => crsKey(crs.metadata.namespace ?? '', crs.metadata.name ?? ''));

function addonsDepsOf(deps: RuntimeDeps, signal?: AbortSignal): AddonsDeps {
  return {
    kube: deps.kube,
    now: () => new Date(deps.now()),
    fieldManager: deps.config.fieldManager,
    ...(signal === undefined ? {} : { signal }),
  };
}

function selects(crs: ClusterResourceSet, cluster: AddonsCluster): boolean {
  try {
    return matchesLabelSelector(crs.spec.clusterSelector, cluster.metadata.labels, { empty: 'nothing' });
  } catch {
    return false; // NOTE: an invalid selector is reported by the ClusterResourceSet's own pass, not per Cluster.
  }
}

const identity = (c: AddonsCluster) => ({ name: c.metadata.name, uid: c.metadata.uid });

/**
 * The facts of a ClusterResourceSet: everything its pass reads besides its own spec — which Clusters it selects and
 * whether they are ready, and the content of its ConfigMaps/Secrets (hashed, never stored). Status, finalizers and
 * owner references, which the pass writes, stay out so its own writes never look like a change; only whether upstream's
 * finalizer is on counts (a switch-over, or a ClusterResourceSet last reconciled by an earlier capi-serverless, which
 * used it), so such a ClusterResourceSet gets a pass, which takes it away.
 * Reads: the ClusterResourceSet, one LIST of Clusters, one GET per resource (as the pass itself does).
 */
async function getClusterResourceSetFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined> {
  const crs = await getClusterResourceSet(deps.kube, { namespace: key.namespace, name: key.name });
  if (crs === undefined) return undefined;
  const selected = await listSelectedClusters(deps.kube, crs);
  const anySelected = selected.status === 'ok' && selected.ready.length + selected.waiting.length > 0;
  const resources = anySelected ? await getResources(deps.kube, crs) : undefined;
  const inputs = {
    deleting: crs.metadata.deletionTimestamp !== undefined,
    upstreamFinalizer: (crs.metadata.finalizers ?? []).includes(UpstreamClusterResourceSetFinalizer),
    clusters:
      selected.status === 'ok'
        ? { ready: selected.ready.map(identity), waiting: selected.waiting.map(identity) }
        : { error: true },
    resources: [...(resources?.fetched ?? new Map()).entries()].map(([ref, fetched]) =>
      fetched.status === 'found'
        ? { ref, content: computeInputHash({ type: fetched.content.type, data: fetched.content.data }) }
        : { ref, status: fetched.status },
    ),
  };
  return {
    uid: crs.metadata.uid ?? '',
    generation: crs.metadata.generation ?? 0,
    resourceVersion: crs.metadata.resourceVersion ?? '',
    inputHash: computeInputHash(inputs),
  };
}

/** A Cluster key is only this controller's while the Cluster is gone (or going) and its binding is still there. */
async function getGoneClusterFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined> {
  const objectKey = { namespace: key.namespace, name: key.name };
  const cluster = await getCluster(deps.kube, objectKey);
  if (cluster !== undefined && cluster.metadata.deletionTimestamp === undefined) return undefined;
  const binding = await getBinding(deps.kube, objectKey);
  if (binding === undefined) return undefined;
  return {
    uid: binding.metadata.uid ?? '',
    generation: binding.metadata.generation ?? 0,
    resourceVersion: binding.metadata.resourceVersion ?? '',
    // NOTE: the ok-to-delete mark makes a held binding's pass due again (the key is unchanged for the others).
    inputHash: computeInputHash({
      clusterGone: true,
      clusterUid: cluster?.metadata.uid,
      ...(cluster !== undefined && isClusterWaitingForBeforeClusterDelete(cluster)
        ? { waitingForBeforeClusterDelete: true }
        : {}),
    }),
  };
}

async function mapClusterChange(deps: RuntimeDeps, change: ChangedObject): Promise<PassKey[]> {
  const cluster =
    change.type === 'DELETED'
      ? undefined
      : await getCluster(deps.kube, { namespace: change.namespace, name: change.name });
  if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) {
    return [clusterKey(change.namespace, change.name)];
  }
  const sets = await listClusterResourceSets(deps.kube, change.namespace);
  return keysOf(sets.filter((crs) => selects(crs, cluster)));
}

async function mapResourceChange(deps: RuntimeDeps, change: ChangedObject): Promise<PassKey[]> {
  const sets = await listClusterResourceSets(deps.kube, change.namespace);
  return keysOf(
    sets.filter((crs) => (crs.spec.resources ?? []).some((r) => r.kind === change.kind && r.name === change.name)),
  );
}

/**
 * The addons controller's Reconciler (registered in shared/controllers.ts; functions/addons.ts is its Lambda).
 *
 * @example
 * const handler = createControllerHandler({ reconciler: addonsReconciler, logger, getDeps });
 */
export const addonsReconciler: Reconciler = {
  controller: 'addons',
  kinds: [crsKind],
  watchedKinds: [
    clusterKind,
    { apiVersion: AddonsApiVersion, kind: 'ClusterResourceSetBinding' },
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'v1', kind: 'Secret' },
  ],
  async mapChange(deps, change) {
    switch (change.kind) {
      case 'Cluster':
        return mapClusterChange(deps, change);
      case 'ClusterResourceSetBinding':
        // NOTE: a binding is named after its Cluster; it only matters here once that Cluster is gone.
        return [clusterKey(change.namespace, change.name)];
      case 'ConfigMap':
      case 'Secret':
        return mapResourceChange(deps, change);
      default:
        return [];
    }
  },
  getFacts(deps, key) {
    return key.kind === 'Cluster' ? getGoneClusterFacts(deps, key) : getClusterResourceSetFacts(deps, key);
  },
  async reconcile(deps: RuntimeDeps, key: PassKey, ctx: PassContext): Promise<PassOutcome> {
    const addonsDeps = addonsDepsOf(deps, ctx.signal);
    const objectKey = { namespace: key.namespace, name: key.name };
    return key.kind === 'Cluster'
      ? reconcileAddonsForCluster(addonsDeps, objectKey)
      : reconcileAddons(addonsDeps, objectKey);
  },
};
