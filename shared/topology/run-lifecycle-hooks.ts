// The I/O side of the Runtime SDK lifecycle hooks in a topology pass: the desired-state computation (pure) says which
// hook it needs answered next; this calls it (all registered handlers, answers aggregated) and computes again, until
// nothing is left to ask; then the pending-hooks annotation is written as the computation marked it. Deletion's
// BeforeClusterDelete and its ok-to-delete annotation live here too (upstream's reconcileDelete).
import { ConversionDataAnnotation } from '#shared/api/conversion/index.ts';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { patchObject, refOf, type KubeClient } from '#shared/kube/index.ts';
import { callAllExtensions } from '#shared/runtime-sdk/index.ts';
import { computeWriteError } from '#shared/topology/apply/errors.ts';
import { computeAfterHooksDesiredState } from '#shared/topology/desired/compute-after-hooks.ts';
import {
  computeUnpatchedDesiredState,
  type DesiredStateInput,
} from '#shared/topology/desired/compute-desired-state.ts';
import {
  computePendingHooks,
  computePendingHooksValue,
  LifecycleHook,
  OkToDeleteAnnotation,
  PendingHooksAnnotation,
  type HookAnswer,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import type { ComputedUpgradePlans, DesiredState, PureDeps, Unstructured } from '#shared/topology/types.ts';

/** The hook calls of a pass (default: every registered handler through the Runtime SDK client). */
export type LifecycleHookCaller = (
  hook: LifecycleHook,
  namespace: string,
  request: Readonly<Record<string, unknown>>,
) => Promise<HookAnswer>;

/** Calls all handlers of a hook registered for the namespace, as upstream's CallAllExtensions. */
export function createLifecycleHookCaller(deps: { readonly kube: KubeClient }): LifecycleHookCaller {
  return (hook, namespace, request) => callAllExtensions(deps, hook, namespace, request);
}

/**
 * The Cluster as hook requests carry it (upstream's cleanupCluster): no managedFields, status, last-applied or
 * conversion-data annotations; `pendingHooks` is the pending-hooks annotation as the pass has marked it so far
 * (upstream marks the object it sends).
 */
export function computeHookRequestCluster(raw: Unstructured, pendingHooks?: readonly string[]): Unstructured {
  const metadata: Record<string, unknown> = { ...raw.metadata };
  delete metadata['managedFields'];
  const annotations = { ...((metadata['annotations'] as Record<string, string> | undefined) ?? {}) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  delete annotations[ConversionDataAnnotation];
  if (pendingHooks !== undefined) {
    const value = computePendingHooksValue(pendingHooks);
    if (value === undefined) delete annotations[PendingHooksAnnotation];
    else annotations[PendingHooksAnnotation] = value;
  }
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  else delete metadata['annotations'];
  const out: Unstructured = { ...raw, metadata: metadata as Unstructured['metadata'] };
  delete out['status'];
  return out;
}

/** The hooks pending on a Cluster. */
export function getPendingHooks(cluster: Pick<Cluster, 'metadata'>): string[] {
  return computePendingHooks(cluster.metadata.annotations?.[PendingHooksAnnotation]);
}

/** Upper bound on hook calls in one pass (each hook is asked at most once; the loop cannot run away). */
const maxHookCalls = Object.keys(LifecycleHook).length;

/**
 * The unpatched desired state with every hook it depends on answered: computes, calls the hook the computation asks
 * for, computes again with the answer. `record` receives the pending hooks of the last computation even when a call
 * fails, so marks made before the failure are written as upstream writes each mark at once, and the upgrade plans of
 * the last computation, which upstream writes to the Cluster's status even when the pass fails later.
 *
 * @example
 * const unpatched = await computeDesiredStateWithHooks(callHook, { cluster, blueprint, current }, rawCluster, pure, record);
 */
export async function computeDesiredStateWithHooks(
  callHook: LifecycleHookCaller,
  input: Omit<DesiredStateInput, 'hooks'>,
  rawCluster: Unstructured,
  pure: PureDeps,
  record: (pending: readonly string[], plans: ComputedUpgradePlans | undefined) => Promise<void>,
): Promise<DesiredState> {
  const pending = getPendingHooks(input.cluster);
  const answers: Partial<Record<LifecycleHook, HookAnswer>> = {};
  const namespace = input.cluster.metadata.namespace ?? '';
  for (let calls = 0; ; calls++) {
    const desired = computeUnpatchedDesiredState({ ...input, hooks: { pending, answers: { ...answers } } }, pure);
    const call = desired.hooks?.call;
    if (!call || calls >= maxHookCalls) {
      await record(desired.hooks?.pending ?? pending, desired.upgrade.plans);
      return desired;
    }
    try {
      const answer = await callHook(call.hook, namespace, {
        cluster: computeHookRequestCluster(rawCluster, desired.hooks?.pending),
        ...call.request,
      });
      answers[call.hook] = { retryAfterSeconds: answer.retryAfterSeconds, message: answer.message };
    } catch (err) {
      await record(desired.hooks?.pending ?? pending, desired.upgrade.plans);
      throw err;
    }
  }
}

/**
 * Upstream's callAfterHooks, run in the pass after the patches (as upstream's reconcileState): decides
 * AfterControlPlaneInitialized and AfterClusterUpgrade on the patched desired state, calls what the decision asks
 * for, and hands the pending hooks to `record` (also when a call fails). Resolves the desired state with the hooks'
 * answers tracked and the upgrade step dropped once AfterClusterUpgrade is done.
 *
 * @example
 * const final = await callAfterHooks(callHook, patched, cluster, rawCluster, record);
 */
export async function callAfterHooks(
  callHook: LifecycleHookCaller,
  desired: DesiredState,
  cluster: Cluster,
  rawCluster: Unstructured,
  record: (pending: readonly string[]) => Promise<void>,
): Promise<DesiredState> {
  if (!desired.hooks) return desired;
  const answers: Partial<Record<LifecycleHook, HookAnswer>> = {};
  const namespace = cluster.metadata.namespace ?? '';
  for (let calls = 0; ; calls++) {
    const decided = computeAfterHooksDesiredState(desired, cluster, { ...answers });
    const call = decided.hooks?.call;
    if (!call || calls >= maxHookCalls) {
      await record(decided.hooks?.pending ?? desired.hooks.pending);
      return decided;
    }
    try {
      const answer = await callHook(call.hook, namespace, {
        cluster: computeHookRequestCluster(rawCluster, decided.hooks?.pending),
        ...call.request,
      });
      answers[call.hook] = { retryAfterSeconds: answer.retryAfterSeconds, message: answer.message };
    } catch (err) {
      await record(decided.hooks?.pending ?? desired.hooks.pending);
      throw err;
    }
  }
}

/**
 * Writes the pending-hooks annotation (a merge patch, as upstream's MarkAsPending/MarkAsDone) when it differs;
 * resolves the Cluster as the server has it afterwards (`raw` unchanged when nothing was written).
 *
 * @example
 * raw = await reconcilePendingHooks(kube, 'capi-topology', raw, ['AfterClusterUpgrade']);
 */
export async function reconcilePendingHooks(
  kube: KubeClient,
  fieldManager: string,
  raw: Unstructured,
  pending: readonly string[],
): Promise<Unstructured> {
  const before = computePendingHooksValue(computePendingHooks(raw.metadata.annotations?.[PendingHooksAnnotation]));
  const after = computePendingHooksValue(pending);
  if (before === after) return raw;
  try {
    return (await patchObject(
      kube,
      refOf(raw),
      { metadata: { annotations: { [PendingHooksAnnotation]: after ?? null } } },
      { fieldManager },
    )) as Unstructured;
  } catch (err) {
    throw computeWriteError(`mark hooks [${pending.join(',')}] as pending on`, err, raw);
  }
}

/** What BeforeClusterDelete decided for a deleting Cluster. */
export type DeleteHookResult =
  | { readonly blocked: false; readonly raw: Unstructured; readonly marked: boolean }
  | { readonly blocked: true; readonly raw: Unstructured; readonly answer: HookAnswer };

/**
 * Upstream's reconcileDelete: unless the Cluster already has the ok-to-delete annotation, calls BeforeClusterDelete;
 * a blocking answer holds the deletion (upstream's core Cluster controller waits for the annotation), a non-blocking
 * one (or no handler registered) sets the annotation.
 *
 * @example
 * const result = await reconcileBeforeClusterDelete(kube, 'capi-topology', callHook, raw);
 */
export async function reconcileBeforeClusterDelete(
  kube: KubeClient,
  fieldManager: string,
  callHook: LifecycleHookCaller,
  raw: Unstructured,
): Promise<DeleteHookResult> {
  if (raw.metadata.annotations?.[OkToDeleteAnnotation] !== undefined) return { blocked: false, raw, marked: false };
  const answer = await callHook(LifecycleHook.BeforeClusterDelete, raw.metadata.namespace ?? '', {
    cluster: computeHookRequestCluster(raw),
  });
  if (answer.retryAfterSeconds > 0) return { blocked: true, raw, answer };
  try {
    const marked = (await patchObject(
      kube,
      refOf(raw),
      { metadata: { annotations: { [OkToDeleteAnnotation]: '' } } },
      { fieldManager },
    )) as Unstructured;
    return { blocked: false, raw: marked, marked: true };
  } catch (err) {
    throw computeWriteError('mark as ok to delete', err, raw);
  }
}
