// One topology pass over a Cluster: read current state → compute desired state (pure) → server-side apply → the
// TopologyReconciled condition → outcome. The code the topology Lambda, the local mode and the tests all run.
import { isDeepStrictEqual } from 'node:util';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { CapiError, describeObject, errorMessage } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import {
  computeNoChangeRecord,
  createApplyProofs,
  type ApplyProofs,
  type NoChangeRecord,
} from '#shared/topology/apply/apply-proofs.ts';
import { reconcileConditions } from '#shared/topology/apply/reconcile-condition.ts';
import type { ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import { reconcileState } from '#shared/topology/apply/reconcile-state.ts';
import { isClusterSpecChangedMeanwhile } from '#shared/topology/compute-spec-changed-meanwhile.ts';
import { getBlueprint, getClusterClass } from '#shared/topology/current/get-blueprint.ts';
import { ContractCacheTtlMs, createContractResolver } from '#shared/topology/current/get-contracts.ts';
import {
  computeUnreferencedKinds,
  getCurrentState,
  type CurrentStateReads,
} from '#shared/topology/current/get-current-state.ts';
import { createKubeReader, getCluster } from '#shared/topology/current/kube-reader.ts';
import { createSharedReader, type SharedReads } from '#shared/topology/current/shared-reader.ts';
import { applyPatchesToDesiredState } from '#shared/topology/desired/apply-patches.ts';
import { DesiredStateError } from '#shared/topology/desired/compute-desired-state.ts';
import { isClusterShimPending } from '#shared/topology/desired/compute-cluster-shim.ts';
import { OkToDeleteAnnotation, PendingHooksAnnotation } from '#shared/topology/desired/lifecycle-hooks.ts';
import { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import {
  createUpgradePlanCaller,
  getGeneratedUpgradePlan,
  type UpgradePlanCaller,
} from '#shared/topology/get-upgrade-plan.ts';
import { TopologyManagerName } from '#shared/topology/labels.ts';
import {
  computeOutcome,
  computeTopologyReconciledCondition,
  type PassState,
  type TopologyOutcome,
} from '#shared/topology/outcome.ts';
import {
  createPatchExtensions,
  hasExternalPatches,
  runPatchEngine,
  type PatchExtensions,
} from '#shared/topology/run-patch-engine.ts';
import {
  callAfterHooks,
  computeDesiredStateWithHooks,
  computeHookRequestCluster,
  createLifecycleHookCaller,
  reconcileBeforeClusterDelete,
  reconcilePendingHooks,
  type LifecycleHookCaller,
} from '#shared/topology/run-lifecycle-hooks.ts';
import type { ComputedUpgradePlans, CurrentState, Unstructured } from '#shared/topology/types.ts';
import { computeDefaultedTopology, validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import { toValidationError } from '#shared/topology/variables/index.ts';

export type TopologyDeps = {
  /** The management cluster. */
  readonly kube: KubeClient;
  /** Field manager of every write (default `capi-topology`, as upstream). */
  readonly fieldManager?: string;
  /** 5 random characters for generated names (templates, objects). */
  readonly randomSuffix: () => string;
  readonly now: () => Date;
  /** Runtime Extension calls of external patches (default: the Runtime SDK client over `kube`). */
  readonly extensions?: PatchExtensions;
  /** Lifecycle hook calls (default: every registered handler through the Runtime SDK client over `kube`). */
  readonly callHook?: LifecycleHookCaller;
  /** GenerateUpgradePlan calls (default: the handler the ClusterClass names, through the Runtime SDK client). */
  readonly generateUpgradePlan?: UpgradePlanCaller;
  /** The ClusterClass's templates as other passes of the same invocation read them (none: each pass reads them). */
  readonly sharedReads?: SharedReads;
};

/** What the runtime hands one pass besides its dependencies. */
export type TopologyPassInput = {
  /** Objects already read for this pass (the Cluster and its ClusterClass the runtime read to decide it is due). */
  readonly prefetched?: readonly Unstructured[];
  /** The previous pass's no-change record: objects proven unchanged skip their dry run. */
  readonly noChange?: NoChangeRecord | undefined;
  /**
   * Whether templates of the topology that nothing references may exist although this pass writes no
   * MachineDeployment (see `ApplyContext.discoverLeftovers`); default true. The runtime passes false after a pass
   * that succeeded, unless the pass is forced.
   */
  readonly discoverLeftovers?: boolean;
  /**
   * Read the Cluster's MachineDeployments, MachinePools and their templates by the names in `noChange` (GETs)
   * instead of label-selected LISTs. The runtime asks for it after a pass that succeeded, unless this one is forced
   * (a tick's resync, a deleted owned object, a pass that died before recording); ignored without a record of this
   * very Cluster. Default false.
   */
  readonly readByName?: boolean;
  /**
   * The error the previous pass over this Cluster ended with, when it failed (the checkpoint's `lastError`): a
   * ControlPlane refused again with it is found by a dry run before anything is created for it.
   */
  readonly previousError?: string | undefined;
};

/** Upstream's paused annotation (`cluster.x-k8s.io/paused`). */
const PausedAnnotation = 'cluster.x-k8s.io/paused';

/** An error with the step it happened in, as upstream wraps them ("error reading the ClusterClass: …"). */
async function step<T>(what: string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err instanceof CapiError ? err : undefined;
    throw new CapiError(
      `${what}: ${errorMessage(err)}`,
      {
        ...(e?.kind ? { kind: e.kind } : {}),
        ...(e?.namespace ? { namespace: e.namespace } : {}),
        ...(e?.objectName ? { name: e.objectName } : {}),
        ...(e?.fieldPath ? { fieldPath: e.fieldPath } : {}),
        reason: e?.reason ?? 'TopologyReconcileFailed',
      },
      { cause: err },
    );
  }
}

/** A ClusterClass whose current generation was reconciled by its own pass (upstream compares the generations). */
export function isClusterClassReconciled(cc: ClusterClass): boolean {
  return computeClassNotReconciledMessage(cc) === undefined;
}

/**
 * Why the ClusterClass is not reconciled, worded as upstream v1.14.2's topology controller returns it (its
 * `reconcile`: the VariablesReady condition first, then the observed generation); undefined when it is.
 *
 * @example
 * computeClassNotReconciledMessage(classAtGeneration2ObservedAt1);
 * // 'ClusterClass is not successfully reconciled: ClusterClass.status.observedGeneration must be 2, but is 1'
 */
export function computeClassNotReconciledMessage(cc: ClusterClass): string | undefined {
  const prefix = 'ClusterClass is not successfully reconciled';
  const variables = cc.status?.conditions?.find((c) => c.type === 'VariablesReady');
  if (variables === undefined || variables.status === 'False')
    return `${prefix}: status of VariablesReady condition on ClusterClass must be "True"`;
  const generation = cc.metadata.generation ?? 0;
  const observed = cc.status?.observedGeneration ?? 0;
  if (generation !== observed)
    return `${prefix}: ClusterClass.status.observedGeneration must be ${generation}, but is ${observed}`;
  return undefined;
}

/** Why the class's own pass failed, from its VariablesReady condition (undefined when it did not say). */
function computeClusterClassFailure(cc: ClusterClass): string | undefined {
  const variables = cc.status?.conditions?.find((c) => c.type === 'VariablesReady');
  if (variables?.status !== 'False' || !variables.message) return undefined;
  return `${describeObject('ClusterClass', cc.metadata.namespace, cc.metadata.name)}: ${variables.message}`;
}

/** Defaults and validates the Cluster's variables against its class (upstream DefaultAndValidateVariables). */
function computeValidatedCluster(cluster: Cluster, cc: ClusterClass): Cluster {
  const id = { kind: 'Cluster', namespace: cluster.metadata.namespace, name: cluster.metadata.name };
  const defaulted = computeDefaultedTopology(cluster, cc);
  if (!defaulted.ok) throw toValidationError(defaulted.errors, id);
  const errors = validateClusterTopology(defaulted.cluster, cc);
  if (errors.length > 0) throw toValidationError(errors, id);
  return defaulted.cluster;
}

/**
 * Notes the MachineDeployments, MachinePools and their templates the pass found and did not delete, so the record
 * names every one of them (those it applied are recorded already): the next pass reads them by these names.
 */
function noteOwnedObjects(proofs: ApplyProofs, current: CurrentState): void {
  for (const md of Object.values(current.machineDeployments))
    for (const obj of [md.object as Unstructured, md.infrastructureMachineTemplate, md.bootstrapTemplate])
      if (obj) proofs.note(obj);
  for (const mp of Object.values(current.machinePools))
    for (const obj of [mp.object as Unstructured, mp.infrastructureMachinePoolObject, mp.bootstrapObject])
      if (obj) proofs.note(obj);
}

/**
 * The optional reads of the current state: MachineHealthChecks and MachinePools only when the class or topology has
 * them or the previous pass applied some (they may have to be deleted); everything without a previous record.
 */
function computeCurrentStateReads(
  cluster: Cluster,
  cc: ClusterClass,
  proofs: ApplyProofs,
  discoverLeftovers: boolean,
  recordedNames: ReadonlySet<string> | undefined,
): CurrentStateReads {
  const topology = cluster.spec?.topology;
  const workers = cc.spec.workers;
  const wantsHealthChecks =
    cc.spec.controlPlane.healthCheck !== undefined ||
    topology?.controlPlane?.healthCheck !== undefined ||
    (workers?.machineDeployments ?? []).some((md) => md.healthCheck !== undefined) ||
    (topology?.workers?.machineDeployments ?? []).some((md) => md.healthCheck !== undefined);
  const wantsPools = (workers?.machinePools ?? []).length > 0 || (topology?.workers?.machinePools ?? []).length > 0;
  return {
    machineHealthChecks: wantsHealthChecks || proofs.mayHaveApplied('MachineHealthCheck'),
    machinePools: wantsPools || proofs.mayHaveApplied('MachinePool'),
    // NOTE: read by name, the unused templates are looked for among the recorded names (no template LIST to share).
    listsTemplates: discoverLeftovers && recordedNames === undefined,
    recordedNames,
  };
}

/**
 * What one topology pass carries from step to step (after upstream's `exp/topology/scope.Scope`): made once by
 * {@link reconcileTopology}, read and extended by each step, read again for the condition and the outcome. The only
 * fields a step changes are `latest`, `changed` and `plans`, each named for what it records.
 */
type TopologyPassScope = {
  /** The Cluster as the pass read it (typed). */
  readonly cluster: Cluster;
  /** The Cluster as this pass last read or wrote it (pending-hooks and ok-to-delete marks move it). */
  latest: Unstructured;
  /** What the pass changed, in order (the outcome's `changed`). */
  readonly changed: string[];
  /** Objects the runtime already read (the Cluster, its class), reused instead of read again. */
  readonly prefetched: readonly Unstructured[];
  /** The previous pass's no-change record, to skip dry runs for objects nobody touched. */
  readonly proofs: ApplyProofs;
  /** Whether to LIST the template kinds to find unused templates (default on). */
  readonly discoverLeftovers: boolean;
  /** The owned objects the last pass that succeeded left, read by name instead of listed (undefined: list). */
  readonly recordedNames: ReadonlySet<string> | undefined;
  /** The previous pass's error, when it failed (see `TopologyPassInput.previousError`). */
  readonly previousError: string | undefined;
  /** Set once the upgrade plans are computed, so a pass that fails after that still writes them (as upstream). */
  plans?: ComputedUpgradePlans | undefined;
};

/** Read, compute and apply; resolves the state the condition is computed from. */
async function reconcile(deps: TopologyDeps, scope: TopologyPassScope): Promise<PassState> {
  const { cluster, changed } = scope;
  const rawCluster = scope.latest;
  const callHook = deps.callHook ?? createLifecycleHookCaller(deps);
  const fieldManager = deps.fieldManager ?? TopologyManagerName;
  const reader = createKubeReader(deps.kube, { prefetched: scope.prefetched });
  const contracts = createContractResolver(reader, {
    cache: { store: deps.kube.discovery, nowMs: deps.now().getTime(), ttlMs: ContractCacheTtlMs },
  });
  const clusterClass = await step('failed to retrieve ClusterClass', () => getClusterClass(reader, cluster));
  const notReconciled = computeClassNotReconciledMessage(clusterClass);
  if (notReconciled !== undefined)
    return {
      kind: 'ClusterClassNotReconciled',
      message: notReconciled,
      failure: computeClusterClassFailure(clusterClass),
      paused: clusterClass.metadata.annotations?.[PausedAnnotation] !== undefined,
    };
  const topologyCluster = await step('failed to validate Cluster variables', () =>
    computeValidatedCluster(cluster, clusterClass),
  );
  const templates = deps.sharedReads ? createSharedReader(reader, deps.sharedReads) : reader;
  const blueprint = await step('error reading the ClusterClass', () =>
    getBlueprint(templates, contracts, clusterClass),
  );
  const current = await step('error reading current state of the Cluster topology', () =>
    getCurrentState(
      reader,
      contracts,
      topologyCluster,
      computeCurrentStateReads(
        topologyCluster,
        clusterClass,
        scope.proofs,
        scope.discoverLeftovers,
        scope.recordedNames,
      ),
      computeUnreferencedKinds(blueprint),
    ),
  );
  // Upstream's callBeforeClusterCreateHook: nothing is created while a BeforeClusterCreate handler blocks.
  if (!topologyCluster.spec?.infrastructureRef && !topologyCluster.spec?.controlPlaneRef) {
    const answer = await step('error calling the BeforeClusterCreate hook', () =>
      callHook('BeforeClusterCreate', topologyCluster.metadata.namespace ?? '', {
        cluster: computeHookRequestCluster(rawCluster),
      }),
    );
    if (answer.retryAfterSeconds > 0) {
      return {
        kind: 'CreationBlocked',
        hook: 'BeforeClusterCreate',
        message: answer.message,
        retryAfterSeconds: answer.retryAfterSeconds,
      };
    }
  }
  // NOTE: the pending-hooks marks are written as soon as they are decided, even when a later hook call fails.
  const record = async (pending: readonly string[], plans: ComputedUpgradePlans | undefined) => {
    scope.plans = plans ?? scope.plans;
    const before = scope.latest;
    scope.latest = await reconcilePendingHooks(deps.kube, fieldManager, scope.latest, pending);
    if (scope.latest !== before)
      changed.push(
        pending.length === 0
          ? `removed ${PendingHooksAnnotation} from Cluster ${describeKey(cluster)} (no hook pending)`
          : `set ${PendingHooksAnnotation}=${pending.join(',')} on Cluster ${describeKey(cluster)}`,
      );
  };
  const patched = await step('error computing the desired state of the Cluster topology', async () => {
    const generatedUpgradePlan = await getGeneratedUpgradePlan(
      deps.generateUpgradePlan ?? createUpgradePlanCaller(deps),
      { cluster: topologyCluster, rawCluster, blueprint, current },
      deps.now().getTime(),
    );
    const input = { cluster: topologyCluster, blueprint, current, generatedUpgradePlan };
    const unpatched = await computeDesiredStateWithHooks(
      callHook,
      input,
      rawCluster,
      { randomSuffix: deps.randomSuffix },
      record,
    );
    if (!hasExternalPatches(blueprint)) return applyPatchesToDesiredState(topologyCluster, blueprint, unpatched);
    const extensions = deps.extensions ?? createPatchExtensions(deps, topologyCluster.metadata.namespace ?? '');
    const patched = await runPatchEngine(extensions, { cluster: topologyCluster, blueprint, desired: unpatched });
    return { ...patched, hooks: unpatched.hooks };
  });
  // NOTE: as upstream's reconcileState, the After* hooks are called once the desired state and its patches are computed,
  // so a pass whose patches fail has not called them.
  const desired = await step('error reconciling the Cluster topology', () =>
    callAfterHooks(callHook, patched, topologyCluster, rawCluster, (pending) => record(pending, undefined)),
  );
  const ctx: ApplyContext = {
    kube: deps.kube,
    fieldManager: deps.fieldManager ?? TopologyManagerName,
    randomSuffix: deps.randomSuffix,
    rawOf: (obj) =>
      (obj.kind === 'Cluster' && obj.metadata.uid === scope.latest.metadata.uid ? scope.latest : undefined) ??
      reader.raw({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name ?? '',
      }) ??
      obj,
    changed,
    proofs: scope.proofs,
    heldTemplates: [],
    mitigated: [],
    discoverLeftovers: scope.discoverLeftovers,
    recordedNames: scope.recordedNames,
    previousError: scope.previousError,
  };
  await step('error reconciling the Cluster topology', () => reconcileState(ctx, reader, current, desired));
  noteOwnedObjects(scope.proofs, current);
  const cpVersion = getPath(desired.controlPlane.object, controlPlaneContract.version);
  return {
    kind: 'Reconciled',
    version: topologyCluster.spec?.topology?.version ?? '',
    upgrade: desired.upgrade,
    controlPlaneVersion: typeof cpVersion === 'string' ? cpVersion : undefined,
    controlPlaneKind: desired.controlPlane.object.kind,
    creating: !cluster.spec?.infrastructureRef && !cluster.spec?.controlPlaneRef,
    heldTemplates: ctx.heldTemplates?.length ?? 0,
    mitigatedManagedFields: ctx.mitigated?.length ?? 0,
    awaitedAdoption: isClusterShimPending(current)
      ? `${desired.controlPlane.object.kind} ${desired.controlPlane.object.metadata.namespace ?? ''}/${desired.controlPlane.object.metadata.name ?? ''}`
      : undefined,
    hooks: {
      tracked: desired.hooks?.tracked ?? [],
      afterClusterUpgradePending: (desired.hooks?.pending ?? []).includes('AfterClusterUpgrade'),
    },
  };
}

/**
 * One pass over the Cluster `key`: converges its managed topology and records TopologyReconciled. A Cluster without
 * topology, paused or gone is left alone; a deleted one only gets the `Deleted` reason (owner references let the
 * garbage collector remove what the topology created).
 *
 * @example
 * const outcome = await reconcileTopology({ kube, randomSuffix, now: () => new Date() }, { namespace: 'default', name: 'c1' });
 * // { result: 'Success', changed: ['created DockerCluster default/c1-x2bz9', ...] }
 */
export async function reconcileTopology(
  deps: TopologyDeps,
  key: ObjectKey,
  input: TopologyPassInput = {},
): Promise<TopologyOutcome> {
  const prefetched = input.prefetched ?? [];
  const read = await getCluster(deps.kube, key, prefetched);
  if (!read) return { result: 'Success', changed: [] };
  const { cluster, raw } = read;
  if (!cluster.spec?.topology) return { result: 'Success', changed: [] };

  const changed: string[] = [];
  // NOTE: a record is only trusted for the very Cluster it was made for (a re-created Cluster has another uid).
  const record = input.noChange?.objectUid === cluster.metadata.uid ? input.noChange?.objects : undefined;
  const proofs = createApplyProofs(record);
  let state: PassState;
  const scope: TopologyPassScope = {
    cluster,
    latest: raw as Unstructured,
    changed,
    prefetched,
    proofs,
    discoverLeftovers: input.discoverLeftovers ?? true,
    recordedNames: input.readByName === true && record !== undefined ? new Set(Object.keys(record)) : undefined,
    previousError: input.previousError,
  };
  // NOTE: as upstream's reconcileTopologyReconciledCondition: a paused Cluster is left alone but for the condition,
  // which says it is paused (False, reason Paused), before anything else (deletion included).
  const paused = computePausedMessage(cluster);
  try {
    state = paused
      ? { kind: 'Paused', message: paused }
      : cluster.metadata.deletionTimestamp
        ? await reconcileDelete(deps, scope)
        : await reconcile(deps, scope);
  } catch (err) {
    state = { kind: 'Failed', message: errorMessage(err), plans: computeFailedPassPlans(err, scope.plans) };
  }
  const write = { kube: deps.kube, fieldManager: deps.fieldManager ?? TopologyManagerName, now: deps.now() };
  const condition = computeTopologyReconciledCondition(state);
  try {
    if (await reconcileConditions(write, scope.latest, [condition], (now) => computeUpgradePlanStatus(state, now)))
      changed.push(
        `set ${condition.condition.type}=${condition.condition.status} on Cluster ${key.namespace}/${key.name}`,
      );
  } catch (err) {
    const message = state.kind === 'Failed' ? `${state.message}; ${errorMessage(err)}` : errorMessage(err);
    return computeOutcome({ kind: 'Failed', message }, changed);
  }
  let outcome = computeOutcome(state, changed);
  if (state.kind !== 'Reconciled' || outcome.result === 'Error') return outcome;
  if (isClusterSpecChangedMeanwhile(raw as Unstructured, scope.latest) && outcome.result === 'Success')
    outcome = { ...outcome, result: 'Requeue', requeueAfterMs: 0 };
  return {
    ...outcome,
    noChange: computeNoChangeRecord(scope.latest, proofs.recorded()),
    ownedGenerations: proofs.generations(),
    ownedMetadata: proofs.metadataHashes(),
  };
}

/**
 * Why a Cluster is paused, as upstream's TopologyReconciled message words it; undefined when it is not.
 *
 * @example
 * computePausedMessage({ metadata: {}, spec: { paused: true } }); // 'Cluster spec.paused is set to true'
 */
export function computePausedMessage(cluster: {
  readonly metadata: { readonly annotations?: Readonly<Record<string, string>> | undefined };
  readonly spec?: { readonly paused?: boolean | undefined } | undefined;
}): string | undefined {
  const messages = [
    ...(cluster.spec?.paused ? ['Cluster spec.paused is set to true'] : []),
    ...(cluster.metadata.annotations?.[PausedAnnotation] !== undefined
      ? [`Cluster has the ${PausedAnnotation} annotation`]
      : []),
  ];
  return messages.length > 0 ? messages.join(', ') : undefined;
}

/**
 * A deleting Cluster (upstream's reconcileDelete): BeforeClusterDelete until its handlers let the deletion proceed,
 * then the ok-to-delete annotation upstream's core Cluster controller waits for.
 */
async function reconcileDelete(
  deps: TopologyDeps,
  scope: Pick<TopologyPassScope, 'latest' | 'changed'>,
): Promise<PassState> {
  const callHook = deps.callHook ?? createLifecycleHookCaller(deps);
  const fieldManager = deps.fieldManager ?? TopologyManagerName;
  const result = await step('error calling the BeforeClusterDelete hook', () =>
    reconcileBeforeClusterDelete(deps.kube, fieldManager, callHook, scope.latest),
  );
  scope.latest = result.raw;
  if (result.blocked) return { kind: 'Deleted', hooks: [{ hook: 'BeforeClusterDelete', answer: result.answer }] };
  if (result.marked) scope.changed.push(`set ${OkToDeleteAnnotation} on Cluster ${describeKey(result.raw)}`);
  return { kind: 'Deleted' };
}

/**
 * The plans a failed pass had computed: the desired state's own (a failure of the computation after them) or those
 * recorded with the hooks (a failure of a hook call, the patches or the apply).
 */
function computeFailedPassPlans(
  err: unknown,
  recorded: ComputedUpgradePlans | undefined,
): ComputedUpgradePlans | undefined {
  let cause: unknown = err;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause instanceof DesiredStateError && cause.upgradePlans) return cause.upgradePlans;
    cause = cause.cause;
  }
  return recorded;
}

/**
 * Upstream's reconcileUpgradePlan: `status.controlPlane.upgradePlan` and `status.workers.upgradePlan` (the
 * MachinePools' plan when both kinds have one) as computed by a pass that got that far; removed (null: a merge
 * patch) when empty; a failed pass writes the plans it computed before failing (upstream's
 * ComputeUpgradePlanSucceeded) and leaves them alone otherwise. Only the fields that differ from `current` are returned.
 */
function computeUpgradePlanStatus(state: PassState, current: Unstructured): Record<string, unknown> {
  const plans = state.kind === 'Reconciled' ? state.upgrade.plans : state.kind === 'Failed' ? state.plans : undefined;
  if (!plans) return {};
  const workers = plans.machinePools.length > 0 ? plans.machinePools : plans.machineDeployments;
  const status = (current['status'] ?? {}) as Record<string, { upgradePlan?: unknown } | undefined>;
  const out: Record<string, unknown> = {};
  for (const [field, plan] of [
    ['controlPlane', plans.controlPlane],
    ['workers', workers],
  ] as const) {
    const want = plan.length > 0 ? plan.map((version) => ({ version })) : undefined;
    if (!isDeepStrictEqual(status[field]?.upgradePlan, want)) out[field] = { upgradePlan: want ?? null };
  }
  return out;
}

const describeKey = (obj: {
  readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined };
}) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
