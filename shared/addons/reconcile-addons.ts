// One ClusterResourceSet pass: read current state → compute what to apply (pure) → apply to the workload clusters →
// record bindings and status → outcome. Also the pass for a Cluster event (every ClusterResourceSet selecting it,
// or removing its binding once it is gone) and the deletion of a ClusterResourceSet.
import type { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { matchesLabelSelector } from '#shared/api/label-selector.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { computeBinding, computeBindingWithoutCRS } from '#shared/addons/desired/binding.ts';
import type { ClusterOutcome, ResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
import { computeResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
import {
  computeResourcesAppliedCondition,
  computeResourcesAppliedV1Beta2Condition,
  type ResourcesAppliedInput,
} from '#shared/addons/desired/resources-applied-condition.ts';
import { computeResourcesToApply } from '#shared/addons/desired/resources-to-apply.ts';
import { computePausedCondition, isPaused, PausedCondition } from '#shared/addons/desired/paused-condition.ts';
import { computeSecretTypeCheck } from '#shared/addons/desired/secret-type-check.ts';
import { computeFinalizers, holdsFinalizer } from '#shared/addons/desired/finalizers.ts';
import {
  ClusterResourceSetResourcesApplied,
  ResourcesAppliedV1Beta1Condition,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { getBinding, listBindings, listBindingsOf, type BindingLookup } from '#shared/addons/current/get-binding.ts';
import { getClusterResourceSet, listClusterResourceSets } from '#shared/addons/current/get-cluster-resource-set.ts';
import { getResources, type CurrentResources } from '#shared/addons/current/get-resources.ts';
import { getWorkloadConnection } from '#shared/addons/current/get-workload-connection.ts';
import {
  clusterKeyOf,
  getCluster,
  isClusterWaitingForBeforeClusterDelete,
  listSelectedClusters,
  type AddonsCluster,
} from '#shared/addons/current/list-selected-clusters.ts';
import { applyResourceObjects } from '#shared/addons/apply/apply-resource-objects.ts';
import { deleteBinding, reconcileBinding, reconcileBindingWithoutCRS } from '#shared/addons/apply/reconcile-binding.ts';
import {
  getOwnerApiVersion,
  reconcileFinalizers,
  reconcileResourceOwnerRefs,
  reconcileStatus,
} from '#shared/addons/apply/reconcile-cluster-resource-set.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { getWorkloadClusterClient, KubeConflictError, type KubeClient } from '#shared/kube/index.ts';

export type AddonsDeps = {
  /** The management cluster. */
  readonly kube: KubeClient;
  /** A client for a workload cluster; default: from its `<cluster>-kubeconfig` Secret. The pass closes it. */
  readonly workloadClient?: (cluster: ObjectKey) => Promise<KubeClient>;
  readonly now: () => Date;
  readonly fieldManager: string;
  /** Aborted shortly before the Lambda timeout: the pass stops between clusters and asks to be requeued. */
  readonly signal?: AbortSignal;
};

/** How a pass ended (the runtime's PassOutcome: backoff on Error is recorded by its checkpoint middleware). */
export type AddonsOutcome = {
  readonly result: 'Success' | 'Requeue' | 'Error';
  readonly requeueAfterMs?: number;
  readonly changed: readonly string[];
  readonly error?: string;
};

/** A selected Cluster without infrastructure or kubeconfig yet: look again in a minute (upstream v1.9 does). */
const waitingRequeueMs = 60_000;
/** Another pass wrote the same binding: read again soon rather than back off (upstream: 100 ms). */
const conflictRequeueMs = 100;

type ClusterPass = {
  readonly outcome?: ClusterOutcome;
  readonly changed: readonly string[];
  readonly waiting?: boolean;
  readonly conflict?: boolean;
  readonly error?: string;
};

const isDefined = <T>(value: T | undefined): value is T => value !== undefined;

function workloadClientOf(deps: AddonsDeps): (cluster: ObjectKey) => Promise<KubeClient> {
  return deps.workloadClient ?? ((cluster) => getWorkloadClusterClient(deps.kube, cluster, { timeoutMs: 10_000 }));
}

/**
 * Applies what `crs` still owes one Cluster and records it in the Cluster's binding. A Cluster without a workload
 * client yet (`notReady` says why, or its kubeconfig Secret is missing) gets its binding entry and a
 * RemoteClusterClientFailed outcome saying why, as upstream v1.14 records it, and is looked at again later.
 */
async function reconcileCluster(
  deps: AddonsDeps,
  crs: ClusterResourceSet,
  cluster: AddonsCluster,
  resources: CurrentResources,
  bindingOf: BindingLookup,
  ownerApiVersion: string,
  notReady?: string,
): Promise<ClusterPass> {
  const key = clusterKeyOf(cluster);
  const where = describeObject('Cluster', key.namespace, key.name);
  const binding = bindingOf(key);
  const plan = computeResourcesToApply(crs, binding, resources.fetched);
  if (!plan.proceed) {
    // A Secret of the wrong type or a failed read stops the pass for this Cluster before anything is written.
    return { outcome: { cluster: key, resources: plan.resources.map((d) => computeResourceOutcome(d)) }, changed: [] };
  }

  const changed: string[] = [];
  let outcomes: ResourceOutcome[] = plan.resources.map((d) => computeResourceOutcome(d));
  let remoteClientError: string | undefined;
  let waiting = false;
  if (plan.resources.some((d) => d.action === 'apply')) {
    const connection =
      notReady === undefined
        ? await getWorkloadConnection(workloadClientOf(deps), key)
        : ({ status: 'waiting', reason: notReady } as const);
    if (connection.status !== 'connected') {
      waiting = connection.status === 'waiting';
      remoteClientError = connection.status === 'waiting' ? connection.reason : connection.message;
      outcomes = outcomes.map((o, i) =>
        plan.resources[i]?.action === 'apply' ? { ref: o.ref, outcome: 'Skipped' } : o,
      );
    } else {
      try {
        let unreachable: string | undefined;
        outcomes = [];
        for (const decision of plan.resources) {
          if (decision.action !== 'apply' || unreachable !== undefined) {
            outcomes.push(computeResourceOutcome(decision, unreachable === undefined ? {} : { error: unreachable }));
            continue;
          }
          const result = await applyResourceObjects(
            connection.client,
            decision.objects,
            plan.strategy,
            deps.fieldManager,
          );
          changed.push(...result.changed.map((c) => `${c} in ${where}`));
          outcomes.push(computeResourceOutcome(decision, result.error === undefined ? {} : { error: result.error }));
          if (result.unreachable) unreachable = result.error;
        }
      } finally {
        connection.client.close();
      }
    }
  }

  const outcome: ClusterOutcome = { cluster: key, remoteClientError, resources: outcomes };
  try {
    const desired = computeBinding(binding, cluster, crs, outcomes, deps.now(), ownerApiVersion);
    const written = await reconcileBinding(deps.kube, binding, desired, deps.fieldManager);
    return { outcome, waiting, changed: [...changed, ...(written === undefined ? [] : [written])] };
  } catch (err) {
    if (err instanceof KubeConflictError) return { outcome, waiting, changed, conflict: true };
    return { outcome, waiting, changed, error: errorMessage(err) };
  }
}

/** Why a selected Cluster gets nothing applied yet (upstream's ClusterCache does not connect to it either). */
const notReadyReason =
  'its infrastructure is not ready yet (status.initialization.infrastructureProvisioned is not true)';

/** Summarises a pass: Error when anything failed, Requeue when a Cluster is waiting or a write conflicted. */
function computeAddonsOutcome(
  changed: readonly string[],
  errors: readonly string[],
  requeue: { readonly conflict: boolean; readonly waiting: boolean; readonly aborted: boolean },
): AddonsOutcome {
  if (errors.length > 0) return { result: 'Error', changed, error: errors.join('; ') };
  if (requeue.conflict || requeue.aborted) return { result: 'Requeue', requeueAfterMs: conflictRequeueMs, changed };
  if (requeue.waiting) return { result: 'Requeue', requeueAfterMs: waitingRequeueMs, changed };
  return { result: 'Success', changed };
}

/**
 * A deleted ClusterResourceSet leaves every binding, then lets go of its finalizer and upstream's (which upstream,
 * refused by the handoff policy, cannot remove itself). Workload objects stay.
 */
async function reconcileDelete(deps: AddonsDeps, crs: ClusterResourceSet): Promise<AddonsOutcome> {
  if (!holdsFinalizer(crs)) return { result: 'Success', changed: [] };
  const name = crs.metadata.name ?? '';
  const changed: string[] = [];
  // NOTE: upstream only visits the Clusters the selector matches now (and stops at the first without a binding);
  // we visit every binding that names the ClusterResourceSet, so relabelled Clusters are cleaned too.
  for (const binding of await listBindingsOf(deps.kube, crs.metadata.namespace ?? '', name)) {
    try {
      const written = await reconcileBindingWithoutCRS(
        deps.kube,
        binding,
        computeBindingWithoutCRS(binding, name),
        deps.fieldManager,
      );
      if (written !== undefined) changed.push(written);
    } catch (err) {
      if (err instanceof KubeConflictError)
        return computeAddonsOutcome(changed, [], { conflict: true, waiting: false, aborted: false });
      throw err;
    }
  }
  const removed = await reconcileFinalizers(deps.kube, crs, computeFinalizers(crs, 'released'), deps.fieldManager);
  return { result: 'Success', changed: [...changed, ...(removed === undefined ? [] : [removed])] };
}

/**
 * One pass for the ClusterResourceSet `key`: put capi-serverless's finalizer in place of upstream's, own the
 * referenced ConfigMaps/Secrets, apply what each selected, ready Cluster still needs (a failing Cluster does not stop
 * the others), write the bindings and the `ResourcesApplied` condition. A ClusterResourceSet being deleted is removed
 * from every binding instead.
 *
 * @example
 * const outcome = await reconcileAddons({ kube, now: () => new Date(), fieldManager: 'capi-serverless-addons' },
 *   { namespace: 'default', name: 'calico' });
 * outcome.result; // 'Success' | 'Requeue' | 'Error'
 */
export async function reconcileAddons(deps: AddonsDeps, key: ObjectKey): Promise<AddonsOutcome> {
  const crs = await getClusterResourceSet(deps.kube, key);
  if (crs === undefined) return { result: 'Success', changed: [] };
  const changed: string[] = [];
  // Upstream: the finalizer first, then a paused ClusterResourceSet (even one being deleted) only gets its condition.
  // NOTE: capi-serverless's own finalizer, and upstream's taken away: upstream's controller, which runs beside us, then
  // always has its finalizer to add first, the handoff policy refuses that write, and it never applies anything.
  if (crs.metadata.deletionTimestamp === undefined) {
    const finalizer = await reconcileFinalizers(deps.kube, crs, computeFinalizers(crs, 'active'), deps.fieldManager);
    if (finalizer !== undefined) changed.push(finalizer);
  }
  const previousPaused = crs.status?.conditions?.find((c) => c.type === PausedCondition);
  const paused = computePausedCondition(crs, deps.now(), previousPaused);
  if (isPaused(crs)) {
    const status = await reconcileStatus(deps.kube, crs, { conditions: [paused] }, deps.fieldManager);
    return { result: 'Success', changed: [...changed, status].filter(isDefined) };
  }
  if (crs.metadata.deletionTimestamp !== undefined) return reconcileDelete(deps, crs);

  /** Both ResourcesApplied conditions (v1beta2 and the deprecated v1beta1 one) and Paused, for the status. */
  const computeStatus = (input: ResourcesAppliedInput, observeGeneration: boolean) => {
    const now = deps.now();
    const previous = crs.status?.conditions?.find((c) => c.type === ClusterResourceSetResourcesApplied.type);
    const previousV1Beta1 = crs.status?.deprecated?.v1beta1?.conditions?.find(
      (c) => c.type === ResourcesAppliedV1Beta1Condition,
    );
    const applied = computeResourcesAppliedV1Beta2Condition(input, crs.metadata.generation, now, previous);
    const appliedV1Beta1 = computeResourcesAppliedCondition(input, now, previousV1Beta1);
    return {
      conditions: [applied, paused].filter(isDefined),
      v1beta1Conditions: [appliedV1Beta1].filter(isDefined),
      observeGeneration,
    };
  };

  const selected = await listSelectedClusters(deps.kube, crs);
  if (selected.status === 'error') {
    const status = await reconcileStatus(
      deps.kube,
      crs,
      computeStatus({ clusterMatchError: selected.message, clusters: [] }, false),
      deps.fieldManager,
    );
    return computeAddonsOutcome([...changed, status].filter(isDefined), [selected.message], {
      conflict: false,
      waiting: false,
      aborted: false,
    });
  }

  const anySelected = selected.ready.length + selected.waiting.length > 0;
  const resources: CurrentResources = anySelected
    ? await getResources(deps.kube, crs)
    : { fetched: new Map(), objects: new Map() };
  // Upstream checks a Secret's type before it adds the owner reference: a Secret of another type is never touched.
  const owned = [...resources.objects.values()].filter(
    (obj) =>
      obj.kind !== 'Secret' ||
      computeSecretTypeCheck({
        namespace: obj.metadata.namespace ?? '',
        name: obj.metadata.name ?? '',
        type: typeof obj['type'] === 'string' ? obj['type'] : undefined,
      }) === undefined,
  );
  changed.push(...(await reconcileResourceOwnerRefs(deps.kube, crs, owned, deps.fieldManager)));
  const ownerApiVersion = await getOwnerApiVersion(deps.kube);

  const passes: ClusterPass[] = [];
  let aborted = false;
  // NOTE: one LIST for every selected Cluster's binding; a binding changed meanwhile by another ClusterResourceSet's
  // pass makes our write fail its resourceVersion precondition (a conflict, retried), never overwrites it.
  const bindingOf: BindingLookup = anySelected
    ? await listBindings(deps.kube, crs.metadata.namespace ?? '')
    : () => undefined;
  const clusters = [
    ...selected.ready.map((cluster) => ({ cluster, notReady: undefined })),
    ...selected.waiting.map((cluster) => ({ cluster, notReady: notReadyReason })),
  ];
  for (const { cluster, notReady } of clusters) {
    if (deps.signal?.aborted) {
      aborted = true;
      break;
    }
    try {
      passes.push(await reconcileCluster(deps, crs, cluster, resources, bindingOf, ownerApiVersion, notReady));
    } catch (err) {
      passes.push({ changed: [], error: errorMessage(err) });
    }
  }

  const outcomes = passes.map((p) => p.outcome).filter(isDefined);
  // A Cluster that is only waiting for its infrastructure or kubeconfig is reported, but is no error: look again later.
  const failed = computeResourcesAppliedCondition(
    { clusters: passes.filter((p) => p.waiting !== true).flatMap((p) => (p.outcome ? [p.outcome] : [])) },
    deps.now(),
  );
  const errors = [
    ...(failed?.status === 'False' && failed.message !== undefined ? [failed.message] : []),
    ...passes.map((p) => p.error).filter(isDefined),
  ];
  // NOTE: upstream records observedGeneration only after a pass without errors.
  const status = await reconcileStatus(
    deps.kube,
    crs,
    computeStatus({ clusters: outcomes }, errors.length === 0),
    deps.fieldManager,
  );
  return computeAddonsOutcome([...changed, ...passes.flatMap((p) => p.changed), status].filter(isDefined), errors, {
    conflict: passes.some((p) => p.conflict === true),
    waiting: selected.waiting.length > 0 || passes.some((p) => p.waiting === true),
    aborted,
  });
}

function selects(crs: ClusterResourceSet, cluster: AddonsCluster): boolean {
  try {
    return matchesLabelSelector(crs.spec.clusterSelector, cluster.metadata.labels, { empty: 'nothing' });
  } catch {
    return false; // an invalid selector is reported by the ClusterResourceSet's own pass
  }
}

/** The worst of several outcomes: Error over Requeue (soonest) over Success; changes and errors concatenated. */
function mergeOutcomes(outcomes: readonly AddonsOutcome[]): AddonsOutcome {
  const changed = outcomes.flatMap((o) => o.changed);
  const errors = outcomes.map((o) => o.error).filter(isDefined);
  if (outcomes.some((o) => o.result === 'Error')) return { result: 'Error', changed, error: errors.join('; ') };
  const requeues = outcomes.filter((o) => o.result === 'Requeue').map((o) => o.requeueAfterMs ?? waitingRequeueMs);
  if (requeues.length > 0) return { result: 'Requeue', requeueAfterMs: Math.min(...requeues), changed };
  return { result: 'Success', changed };
}

/**
 * The pass for a Cluster event: every ClusterResourceSet in its namespace that selects it runs (so a new or
 * relabelled Cluster gets its add-ons without waiting for a tick); a Cluster that is gone or being deleted loses its
 * ClusterResourceSetBinding (upstream's binding controller; bindings carry no Cluster owner reference since v1.4), a
 * topology Cluster only once its BeforeClusterDelete hooks let it go (ok-to-delete), as upstream's.
 *
 * @example
 * await reconcileAddonsForCluster(deps, { namespace: 'default', name: 'c1' });
 */
export async function reconcileAddonsForCluster(deps: AddonsDeps, clusterKey: ObjectKey): Promise<AddonsOutcome> {
  const cluster = await getCluster(deps.kube, clusterKey);
  if (cluster !== undefined && isClusterWaitingForBeforeClusterDelete(cluster))
    return { result: 'Success', changed: [] };
  if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) {
    const binding = await getBinding(deps.kube, clusterKey);
    if (binding === undefined || (binding.spec.clusterName || clusterKey.name) !== clusterKey.name) {
      return { result: 'Success', changed: [] };
    }
    const deleted = await deleteBinding(deps.kube, binding);
    return { result: 'Success', changed: deleted === undefined ? [] : [deleted] };
  }
  const sets = (await listClusterResourceSets(deps.kube, clusterKey.namespace)).filter(
    (crs) => crs.metadata.deletionTimestamp === undefined && selects(crs, cluster),
  );
  const outcomes: AddonsOutcome[] = [];
  for (const crs of sets) {
    outcomes.push(await reconcileAddons(deps, { namespace: clusterKey.namespace, name: crs.metadata.name ?? '' }));
  }
  return mergeOutcomes(outcomes);
}
