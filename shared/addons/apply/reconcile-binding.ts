// Writes ClusterResourceSetBindings. Several ClusterResourceSets (and passes) write the same binding and its lists
// are atomic, so every update carries the resourceVersion it was computed from (optimistic lock, as upstream's
// `MergeFromWithOptimisticLock`); a conflict means "read again", never a lost entry. Bindings are computed in
// v1beta2 and written in the version the server serves (v1beta1 through the edge conversion up to upstream v1.10).
import { isDeepStrictEqual } from 'node:util';
import type { ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { BindingWithoutCRS } from '#shared/addons/desired/binding.ts';
import { describeObject } from '#shared/errors/index.ts';
import {
  computeServedObject,
  createObject,
  deleteObject,
  patchObject,
  servedApiVersion,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';

/** JSON-equal, ignoring key order and undefined fields. */
function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
}

function refOf(binding: KubeObject) {
  return {
    apiVersion: binding.apiVersion,
    kind: binding.kind,
    namespace: binding.metadata.namespace,
    name: binding.metadata.name ?? '',
  };
}

/**
 * Creates the binding when there is none, updates owner references and spec when they differ from `current`
 * (merge patch locked on `current`'s resourceVersion), and does nothing otherwise. Returns what it did, for the
 * pass's `changed` list. Throws KubeConflictError when the binding changed meanwhile.
 *
 * @example
 * await reconcileBinding(kube, current, computeBinding(current, cluster, crs, outcomes, now), 'capi-serverless-addons');
 */
export async function reconcileBinding(
  kube: KubeClient,
  current: ClusterResourceSetBinding | undefined,
  desired: ClusterResourceSetBinding,
  fieldManager: string,
): Promise<string | undefined> {
  const what = describeObject('ClusterResourceSetBinding', desired.metadata.namespace, desired.metadata.name);
  const served = await computeServedObject(kube, desired as KubeObject);
  if (current === undefined) {
    await createObject(kube, served, { fieldManager });
    return `created ${what}`;
  }
  const currentOwners = current.metadata.ownerReferences ?? [];
  const desiredOwners = desired.metadata.ownerReferences ?? [];
  if (sameJson(currentOwners, desiredOwners) && sameJson(current.spec, desired.spec)) return undefined;
  await patchObject(
    kube,
    refOf(served),
    {
      metadata: { resourceVersion: current.metadata.resourceVersion, ownerReferences: desiredOwners },
      // NOTE: a merge patch replaces the atomic `bindings` list whole, with what the served version says.
      spec: served['spec'] ?? {},
    },
    { fieldManager },
  );
  return `updated ${what}`;
}

/**
 * Deletes a binding, only the very object that was read (uid and resourceVersion preconditions).
 *
 * @example
 * await deleteBinding(kube, binding); // 'deleted ClusterResourceSetBinding default/c1'
 */
export async function deleteBinding(kube: KubeClient, binding: ClusterResourceSetBinding): Promise<string | undefined> {
  const apiVersion = await servedApiVersion(kube, binding.apiVersion, binding.kind);
  const deleted = await deleteObject(kube, refOf({ ...binding, apiVersion } as KubeObject), {
    uid: binding.metadata.uid,
    resourceVersion: binding.metadata.resourceVersion,
  });
  return deleted
    ? `deleted ${describeObject('ClusterResourceSetBinding', binding.metadata.namespace, binding.metadata.name)}`
    : undefined;
}

/**
 * Carries out {@link BindingWithoutCRS} (a ClusterResourceSet being deleted): update or delete `current`.
 *
 * @example
 * await reconcileBindingWithoutCRS(kube, binding, computeBindingWithoutCRS(binding, 'calico'), 'capi-serverless-addons');
 */
export async function reconcileBindingWithoutCRS(
  kube: KubeClient,
  current: ClusterResourceSetBinding,
  plan: BindingWithoutCRS,
  fieldManager: string,
): Promise<string | undefined> {
  switch (plan.action) {
    case 'none':
      return undefined;
    case 'delete':
      return deleteBinding(kube, current);
    case 'update':
      return reconcileBinding(kube, current, plan.binding, fieldManager);
  }
}
