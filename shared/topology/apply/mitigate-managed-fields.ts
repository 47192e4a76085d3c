// Upstream's managed-fields mitigation (v1.14 `internal/util/ssa` MitigateManagedFieldsIssue, which its topology
// controller runs on the Cluster's objects before it applies them): the API server may drop an object's managed fields
// (kubernetes/kubernetes#136919), and the first server-side apply to such an object makes every field it has
// co-owned by a `before-first-apply` manager, so fields the topology later stops setting would stay. Before applying
// again, the pass writes the object's managed fields without that entry and with a seed entry of its own.
import { describeObject } from '#shared/errors/index.ts';
import { patchObject, refOf } from '#shared/kube/index.ts';
import { computeManagedFieldsMitigation } from '#shared/kube/managed-fields.ts';
import { computeWriteError } from '#shared/topology/apply/errors.ts';
import type { ApplyContext } from '#shared/topology/apply/reconcile-object.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/**
 * `current` itself when its managed fields need nothing (see computeManagedFieldsMitigation), otherwise the object
 * after a merge patch of `metadata.managedFields` (conditional on the resourceVersion read, as upstream's JSON patch)
 * that seeds the pass's field manager; the pass's next apply then owns exactly its intent again. Noted in `changed` and
 * `mitigated`.
 *
 * @example
 * const current = await mitigateManagedFieldsIssue(ctx, ctx.rawOf(input.current)); // then dry-run and apply as usual
 */
export async function mitigateManagedFieldsIssue(ctx: ApplyContext, current: Unstructured): Promise<Unstructured> {
  const managedFields = computeManagedFieldsMitigation(current.metadata, ctx.fieldManager, current.apiVersion);
  if (managedFields === undefined) return current;
  let object: Unstructured;
  try {
    object = (await patchObject(
      ctx.kube,
      refOf(current),
      { metadata: { resourceVersion: current.metadata.resourceVersion, managedFields } },
      { fieldManager: ctx.fieldManager },
    )) as Unstructured;
  } catch (err) {
    throw computeWriteError('mitigate the managedFields issue of', err, current);
  }
  const described = describeObject(current.kind, current.metadata.namespace, current.metadata.name ?? '');
  ctx.changed.push(`seeded the ${ctx.fieldManager} managed fields of ${described} (they had been dropped)`);
  ctx.mitigated?.push(described);
  return object;
}
