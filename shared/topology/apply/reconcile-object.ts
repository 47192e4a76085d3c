// Create-or-update of one topology object with server-side apply under the topology's field manager (upstream
// reconcileReferencedObject and the patch helper): create when it does not exist, otherwise dry-run first and
// apply only when the server would change something (an object whose managed fields were dropped is seeded first, as
// upstream's mitigation does).
import { describeObject } from '#shared/errors/index.ts';
import { applyObject, deleteObject, type KubeClient } from '#shared/kube/index.ts';
import {
  computeApplyIntent,
  defaultAllowedPaths,
  type FieldPath,
  type IntentOptions,
} from '#shared/topology/apply/apply-intent.ts';
import type { ApplyProofs } from '#shared/topology/apply/apply-proofs.ts';
import { computeCreateError, computeWriteError, TopologyApplyError } from '#shared/topology/apply/errors.ts';
import { getApplyChanges } from '#shared/topology/apply/get-apply-changes.ts';
import { mitigateManagedFieldsIssue } from '#shared/topology/apply/mitigate-managed-fields.ts';
import { groupOf } from '#shared/topology/desired/template-to-object.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** Everything the write side of one pass shares. */
export type ApplyContext = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly randomSuffix: () => string;
  /** The object as the server returned it in this pass (parsed objects drop fields the schema does not model). */
  readonly rawOf: (obj: Unstructured) => Unstructured;
  /** What the pass changed, human readable; appended to as writes succeed. */
  readonly changed: string[];
  /** The no-change record: skips the dry run of an object proven unchanged, records what this pass applied. */
  readonly proofs?: ApplyProofs;
  /**
   * Unused templates of the topology kept because a MachineSet not being deleted still references them (a removed or
   * rotated MachineDeployment's old MachineSets); appended to, so the pass asks for a later one to delete them.
   */
  readonly heldTemplates?: string[];
  /**
   * Look for the topology's templates that nothing references (label-selected LISTs) even when this pass writes no
   * MachineDeployment and no template: set after a pass that did not succeed (it may have rotated a template and
   * stopped before deleting the old one, or kept templates a MachineSet held) and on forced passes; default true.
   */
  readonly discoverLeftovers?: boolean;
  /**
   * `Kind namespace/name` of the owned objects the last pass that succeeded left (its no-change record), when the
   * runtime trusts it (see `TopologyPassInput.readByName`): the unused templates are then looked for among these and
   * the templates the MachineDeployments referenced, read by name, instead of by label-selected LISTs.
   */
  readonly recordedNames?: ReadonlySet<string> | undefined;
  /**
   * The error the previous pass over this Cluster ended with, when it failed: a ControlPlane create refused with the
   * same error again is found by a dry run before the pass creates the health check and template that go with it.
   */
  readonly previousError?: string | undefined;
  /**
   * Objects whose dropped managed fields this pass seeded again before applying (upstream's mitigation, see
   * mitigate-managed-fields.ts); appended to. The pass then runs once more a second later, as upstream requeues after
   * its mitigation: a purge of an object no event reports (a template, a MachinePool's infrastructure or bootstrap
   * object) may have landed after this pass read it.
   */
  readonly mitigated?: string[];
};

export type ReconcileObjectInput = {
  readonly current?: Unstructured | undefined;
  readonly desired: Unstructured;
  readonly allowedPaths?: readonly FieldPath[];
  readonly ignorePaths?: readonly FieldPath[];
};

export type ReconcileObjectResult = {
  readonly created: boolean;
  readonly updated: boolean;
  /** The object after the write (undefined when nothing was written). */
  readonly object?: Unstructured;
};

export const describeKube = (obj: Unstructured) => describeObject(obj.kind, obj.metadata.namespace, obj.metadata.name);

/**
 * Creates `desired` when there is no current object, otherwise applies it when a dry run shows a change.
 * Refuses to turn an object into one of another group or kind (upstream ObjectsAreStrictlyCompatible).
 *
 * @example
 * await reconcileObject(ctx, { current: current.infrastructureCluster, desired: desired.infrastructureCluster });
 */
export async function reconcileObject(ctx: ApplyContext, input: ReconcileObjectInput): Promise<ReconcileObjectResult> {
  const { desired } = input;
  const opts: IntentOptions = {
    allowedPaths: input.allowedPaths ?? defaultAllowedPaths,
    ...(input.ignorePaths ? { ignorePaths: input.ignorePaths } : {}),
  };
  if (!input.current) {
    const object = await createObject(ctx, desired, opts);
    return { created: true, updated: false, object };
  }
  const read = ctx.rawOf(input.current);
  if (
    groupOf(read.apiVersion) !== groupOf(desired.apiVersion) ||
    read.kind !== desired.kind ||
    read.metadata.name !== desired.metadata.name
  ) {
    throw new TopologyApplyError(
      `cannot reconcile ${describeKube(read)}: the desired object is ${describeKube(desired)} (${desired.apiVersion})`,
      {
        kind: read.kind,
        namespace: read.metadata.namespace ?? '',
        name: read.metadata.name ?? '',
        reason: 'IncompatibleObject',
      },
    );
  }
  const current = await mitigateManagedFieldsIssue(ctx, read);
  const intent = computeApplyIntent(desired, opts, current.metadata.uid);
  if (ctx.proofs?.isProven(current, intent)) {
    ctx.proofs.record(current, intent);
    return { created: false, updated: false };
  }
  const changes = await getApplyChanges(ctx.kube, current, intent, opts, ctx.fieldManager);
  if (!changes.hasChanges) {
    ctx.proofs?.record(current, intent);
    return { created: false, updated: false };
  }
  const object = await applyIntent(ctx, intent, current);
  ctx.changed.push(`updated ${describeKube(current)} (${changes.paths.slice(0, 5).join(', ')})`);
  return { created: false, updated: true, object };
}

/** Creates `desired` (server-side apply without uid); a failure names the kind but not the generated name. */
export async function createObject(
  ctx: ApplyContext,
  desired: Unstructured,
  opts: IntentOptions,
): Promise<Unstructured> {
  const intent = computeApplyIntent(desired, opts, undefined);
  let object: Unstructured;
  try {
    object = (await applyObject(ctx.kube, intent, { fieldManager: ctx.fieldManager, force: true })) as Unstructured;
  } catch (err) {
    throw computeCreateError(err, desired);
  }
  ctx.proofs?.record(object, intent);
  ctx.changed.push(`created ${describeKube(desired)}`);
  return object;
}

/**
 * Asks the server whether it would create `desired` (a server-side-apply dry run, nothing stored): resolves the error a
 * create would end with (see {@link computeCreateError}), or undefined when it would be admitted.
 *
 * @example
 * const refused = await getCreateRefusal(ctx, desired.controlPlane.object, { allowedPaths: defaultAllowedPaths });
 */
export async function getCreateRefusal(
  ctx: ApplyContext,
  desired: Unstructured,
  opts: IntentOptions,
): Promise<TopologyApplyError | undefined> {
  const intent = computeApplyIntent(desired, opts, undefined);
  try {
    await applyObject(ctx.kube, intent, { fieldManager: ctx.fieldManager, force: true, dryRun: true });
    return undefined;
  } catch (err) {
    return computeCreateError(err, desired);
  }
}

/** Applies an intent to an existing object. */
export async function applyIntent(
  ctx: ApplyContext,
  intent: Unstructured,
  current: Unstructured,
): Promise<Unstructured> {
  let object: Unstructured;
  try {
    object = (await applyObject(ctx.kube, intent, { fieldManager: ctx.fieldManager, force: true })) as Unstructured;
  } catch (err) {
    throw computeWriteError('apply', err, current);
  }
  ctx.proofs?.record(object, intent);
  return object;
}

/** Deletes an object read in this pass (only that very object: uid precondition); a missing object is fine. */
export async function deleteCurrentObject(ctx: ApplyContext, obj: Unstructured): Promise<void> {
  try {
    const deleted = await deleteObject(
      ctx.kube,
      { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' },
      { uid: obj.metadata.uid },
    );
    ctx.proofs?.forget(obj);
    if (deleted) ctx.changed.push(`deleted ${describeKube(obj)}`);
  } catch (err) {
    throw computeWriteError('delete', err, obj);
  }
}

/**
 * Best-effort removal of an object this pass created, after a later step failed (upstream's cleanup funcs). A
 * failure is swallowed: the object is owned by the Cluster and the next pass does not reference it.
 */
export async function cleanupCreatedObject(ctx: ApplyContext, obj: Unstructured | undefined): Promise<void> {
  if (!obj) return;
  await deleteCurrentObject(ctx, obj).catch(() => undefined);
}
