// One topology pass over a Cluster: read current state → compute desired state (pure) → server-side apply → the
// TopologyReconciled condition → outcome. The code the topology Lambda, the local mode and the tests all run.
import type { Cluster } from '#shared/api/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { CapiError, describeObject, errorMessage } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import { callAllExtensions } from '#shared/runtime-sdk/index.ts';
import {
  computeNoChangeRecord,
  createApplyProofs,
  type ApplyProofs,
  type NoChangeRecord,
} from '#shared/topology/apply/apply-proofs.ts';
import { reconcileConditions } from '#shared/topology/apply/reconcile-condition.ts';
import type { ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import { reconcileState } from '#shared/topology/apply/reconcile-state.ts';
import { getBlueprint, getClusterClass } from '#shared/topology/current/get-blueprint.ts';
import { ContractCacheTtlMs, createContractResolver } from '#shared/topology/current/get-contracts.ts';
import {
  computeUnreferencedKinds,
  getCurrentState,
  type CurrentStateReads,
} from '#shared/topology/current/get-current-state.ts';
import { createKubeReader, getCluster } from '#shared/topology/current/kube-reader.ts';
import { computeDesiredState, computeUnpatchedDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
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
import type { Unstructured } from '#shared/topology/types.ts';
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
};

/** What the runtime hands one pass besides its dependencies. */
export type TopologyPassInput = {
  /** Objects already read for this pass (the Cluster and its ClusterClass the runtime read to decide it is due). */
  readonly prefetched?: readonly Unstructured[];
  /** The previous pass's no-change record: objects proven unchanged skip their dry run. */
  readonly noChange?: NoChangeRecord | undefined;
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
  return cc.metadata.generation === cc.status?.observedGeneration;
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
 * The optional reads of the current state: MachineHealthChecks and MachinePools only when the class or topology has
 * them or the previous pass applied some (they may have to be deleted); everything without a previous record.
 */
function computeCurrentStateReads(cluster: Cluster, cc: ClusterClass, proofs: ApplyProofs): CurrentStateReads {
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
  };
}

/** The Cluster as hook requests carry it: without managedFields and the last-applied annotation (upstream's cleanupCluster). */
function computeHookRequestCluster(raw: Unstructured): Unstructured {
  const metadata: Record<string, unknown> = { ...raw.metadata };
  delete metadata['managedFields'];
  const annotations = { ...((metadata['annotations'] as Record<string, string> | undefined) ?? {}) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  else delete metadata['annotations'];
  return { ...raw, metadata: metadata as Unstructured['metadata'] };
}

/** Read, compute and apply; resolves the state the condition is computed from. */
async function reconcile(
  deps: TopologyDeps,
  cluster: Cluster,
  rawCluster: Unstructured,
  changed: string[],
  pass: { readonly prefetched: readonly Unstructured[]; readonly proofs: ApplyProofs },
): Promise<PassState> {
  const reader = createKubeReader(deps.kube, { prefetched: pass.prefetched });
  const contracts = createContractResolver(reader, {
    cache: { store: deps.kube.discovery, nowMs: deps.now().getTime(), ttlMs: ContractCacheTtlMs },
  });
  const clusterClass = await step('failed to retrieve ClusterClass', () => getClusterClass(reader, cluster));
  if (!isClusterClassReconciled(clusterClass))
    return { kind: 'ClusterClassNotReconciled', failure: computeClusterClassFailure(clusterClass) };
  const topologyCluster = await step('failed to validate Cluster variables', () =>
    computeValidatedCluster(cluster, clusterClass),
  );
  const blueprint = await step('error reading the ClusterClass', () => getBlueprint(reader, contracts, clusterClass));
  const current = await step('error reading current state of the Cluster topology', () =>
    getCurrentState(
      reader,
      contracts,
      topologyCluster,
      computeCurrentStateReads(topologyCluster, clusterClass, pass.proofs),
      computeUnreferencedKinds(blueprint),
    ),
  );
  // Upstream's callBeforeClusterCreateHook: nothing is created while a BeforeClusterCreate handler blocks.
  if (!topologyCluster.spec?.infrastructureRef && !topologyCluster.spec?.controlPlaneRef) {
    const answer = await step('error calling the BeforeClusterCreate hook', () =>
      callAllExtensions(deps, 'BeforeClusterCreate', topologyCluster.metadata.namespace ?? '', {
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
  const desired = await step('error computing the desired state of the Cluster topology', async () => {
    const input = { cluster: topologyCluster, blueprint, current };
    if (!hasExternalPatches(blueprint)) return computeDesiredState(input, { randomSuffix: deps.randomSuffix });
    const unpatched = computeUnpatchedDesiredState(input, { randomSuffix: deps.randomSuffix });
    const extensions = deps.extensions ?? createPatchExtensions(deps, topologyCluster.metadata.namespace ?? '');
    return await runPatchEngine(extensions, { cluster: topologyCluster, blueprint, desired: unpatched });
  });
  const ctx: ApplyContext = {
    kube: deps.kube,
    fieldManager: deps.fieldManager ?? TopologyManagerName,
    randomSuffix: deps.randomSuffix,
    rawOf: (obj) =>
      (obj.kind === 'Cluster' && obj.metadata.uid === rawCluster.metadata.uid ? rawCluster : undefined) ??
      reader.raw({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name ?? '',
      }) ??
      obj,
    changed,
    proofs: pass.proofs,
    heldTemplates: [],
  };
  await step('error reconciling the Cluster topology', () => reconcileState(ctx, reader, current, desired));
  const cpVersion = getPath(desired.controlPlane.object, controlPlaneContract.version);
  return {
    kind: 'Reconciled',
    version: topologyCluster.spec?.topology?.version ?? '',
    upgrade: desired.upgrade,
    controlPlaneVersion: typeof cpVersion === 'string' ? cpVersion : undefined,
    controlPlaneKind: desired.controlPlane.object.kind,
    creating: !cluster.spec?.infrastructureRef && !cluster.spec?.controlPlaneRef,
    heldTemplates: ctx.heldTemplates?.length ?? 0,
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
  if (cluster.spec.paused || cluster.metadata.annotations?.[PausedAnnotation] !== undefined)
    return { result: 'Success', changed: [] };

  const changed: string[] = [];
  // NOTE: a record is only trusted for the very Cluster it was made for (a re-created Cluster has another uid).
  const proofs = createApplyProofs(
    input.noChange?.objectUid === cluster.metadata.uid ? input.noChange?.objects : undefined,
  );
  let state: PassState;
  if (cluster.metadata.deletionTimestamp) state = { kind: 'Deleted' };
  else {
    try {
      state = await reconcile(deps, cluster, raw as Unstructured, changed, { prefetched, proofs });
    } catch (err) {
      state = { kind: 'Failed', message: errorMessage(err) };
    }
  }
  const write = { kube: deps.kube, fieldManager: deps.fieldManager ?? TopologyManagerName, now: deps.now() };
  const condition = computeTopologyReconciledCondition(state);
  try {
    if (await reconcileConditions(write, raw as Unstructured, [condition]))
      changed.push(
        `set ${condition.condition.type}=${condition.condition.status} on Cluster ${key.namespace}/${key.name}`,
      );
  } catch (err) {
    const message = state.kind === 'Failed' ? `${state.message}; ${errorMessage(err)}` : errorMessage(err);
    return computeOutcome({ kind: 'Failed', message }, changed);
  }
  const outcome = computeOutcome(state, changed);
  if (state.kind !== 'Reconciled' || outcome.result === 'Error') return outcome;
  return { ...outcome, noChange: computeNoChangeRecord(raw as Unstructured, proofs.recorded()) };
}
