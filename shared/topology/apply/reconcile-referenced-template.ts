// Template rotation (upstream reconcileReferencedTemplate): a template whose spec changes is never edited; a new
// template with a new generated name is created and the owner is pointed at it afterwards. Metadata-only changes are
// applied in place, so labels and annotations never cause a rollout.
import { computeApplyIntent, defaultAllowedPaths, type IntentOptions } from '#shared/topology/apply/apply-intent.ts';
import { getApplyChanges } from '#shared/topology/apply/get-apply-changes.ts';
import { mitigateManagedFieldsIssue } from '#shared/topology/apply/mitigate-managed-fields.ts';
import { applyIntent, createObject, describeKube, type ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import { computeSimpleName } from '#shared/topology/desired/names.ts';
import { groupOf } from '#shared/topology/desired/template-to-object.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type ReconcileTemplateInput = {
  readonly current?: Unstructured | undefined;
  readonly desired: Unstructured;
  /** Prefix of a rotated template's name, e.g. `<cluster>-<topology>-`. */
  readonly templateNamePrefix: string;
};

export type ReconcileTemplateResult = {
  /** The name the owner must reference after this step. */
  readonly name: string;
  /** The template this step created (new, or the replacement of a rotation), for cleanup when a later step fails. */
  readonly created?: Unstructured;
  /** The template replaced by a rotation; delete it only once the owner no longer references it. */
  readonly replaced?: Unstructured;
};

const opts: IntentOptions = { allowedPaths: defaultAllowedPaths };

/**
 * Creates, updates in place, or rotates one referenced template.
 *
 * @example
 * const infra = await reconcileReferencedTemplate(ctx, { current, desired, templateNamePrefix: 'c1-md-0-' });
 * md = withInfrastructureRefName(md, infra.name);
 */
export async function reconcileReferencedTemplate(
  ctx: ApplyContext,
  input: ReconcileTemplateInput,
): Promise<ReconcileTemplateResult> {
  const { desired } = input;
  if (!input.current) {
    const created = await createObject(ctx, desired, opts);
    return { name: desired.metadata.name ?? '', created };
  }
  let current = ctx.rawOf(input.current);
  let specPaths: readonly string[] = [];
  const sameKind = groupOf(current.apiVersion) === groupOf(desired.apiVersion) && current.kind === desired.kind;
  if (sameKind) {
    current = await mitigateManagedFieldsIssue(ctx, current);
    const intent = computeApplyIntent(
      { ...desired, metadata: { ...desired.metadata, name: current.metadata.name } },
      opts,
      current.metadata.uid,
    );
    const name = current.metadata.name ?? '';
    if (ctx.proofs?.isProven(current, intent)) {
      ctx.proofs.record(current, intent);
      return { name };
    }
    const changes = await getApplyChanges(ctx.kube, current, intent, opts, ctx.fieldManager);
    if (!changes.hasChanges) {
      ctx.proofs?.record(current, intent);
      return { name };
    }
    if (!changes.hasSpecChanges) {
      await applyIntent(ctx, intent, current);
      ctx.changed.push(`updated ${describeKube(current)} in place (${changes.paths.slice(0, 5).join(', ')})`);
      return { name };
    }
    specPaths = changes.paths.filter((p) => p === 'spec' || p.startsWith('spec.'));
  }
  // NOTE: the engine keeps the current name so a pass never renames; a rotation needs a fresh one.
  const rotated: Unstructured = {
    ...desired,
    metadata: { ...desired.metadata, name: computeSimpleName(input.templateNamePrefix, ctx.randomSuffix) },
  };
  const created = await createObject(ctx, rotated, opts);
  const why = sameKind ? ` (${specPaths.slice(0, 5).join(', ')})` : ` (now a ${desired.kind})`;
  ctx.changed.push(`rotated ${describeKube(current)} to ${rotated.metadata.name ?? ''}${why}`);
  return { name: rotated.metadata.name ?? '', created, replaced: current };
}
