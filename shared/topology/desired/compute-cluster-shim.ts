// The cluster shim (upstream internal/topology/clustershim and reconcileClusterShim): a Secret `<cluster>-shim`, owned
// by the Cluster, that owns the InfrastructureCluster and ControlPlane a pass creates until the core Cluster controller
// adopts them. The core controller adopts them only once the Cluster references both, so the infrastructure provider
// never provisions an InfrastructureCluster whose control plane was not created.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { OwnerReference } from '#shared/api/object-meta.ts';
import { computeClusterOwnerRef, groupOf } from '#shared/topology/desired/template-to-object.ts';
import type { CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';

/** upstream clusterv1.ClusterSecretType: the type of the Secrets Cluster API creates for a Cluster. */
export const ClusterSecretType = 'cluster.x-k8s.io/secret';

/**
 * What a pass does with the shim: `ensure` it exists and owns the InfrastructureCluster and ControlPlane (one of them
 * does not exist yet), `delete` it (the Cluster owns both and the shim still owns one), or nothing.
 */
export type ClusterShimAction = 'ensure' | 'delete' | 'none';

/** `<cluster>-shim`, upstream clustershim.New's name. */
export function computeClusterShimName(clusterName: string): string {
  return `${clusterName}-shim`;
}

/**
 * The shim Secret of `cluster`: named `<cluster>-shim` in its namespace, of type `cluster.x-k8s.io/secret`, owned by the
 * Cluster (no controller flag), no labels and no data, as upstream's clustershim.New.
 *
 * @example
 * computeClusterShim(cluster).metadata.name; // 'c-shim'
 */
export function computeClusterShim(cluster: Cluster): Unstructured {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: computeClusterShimName(cluster.metadata.name ?? ''),
      namespace: cluster.metadata.namespace ?? '',
      ownerReferences: [computeClusterOwnerRef(cluster)],
    },
    type: ClusterSecretType,
  };
}

/** An owner reference to the shim `shim` (upstream ownerrefs.OwnerReferenceTo: no controller flag). */
export function computeShimOwnerRef(shim: Unstructured): OwnerReference {
  return { apiVersion: 'v1', kind: 'Secret', name: shim.metadata.name ?? '', uid: shim.metadata.uid ?? '' };
}

/** `ref` names the Cluster's shim (upstream HasOwnerReferenceFrom: kind and name). */
export function isShimOwnerRef(ref: { kind: string; name: string }, clusterName: string): boolean {
  return ref.kind === 'Secret' && ref.name === computeClusterShimName(clusterName);
}

const ownerRefsOf = (obj: Unstructured | undefined) => (obj?.metadata.ownerReferences ?? []) as OwnerReference[];

/** `obj` has an owner reference to the Cluster named `clusterName` (upstream HasOwnerReferenceFrom: kind and name). */
function isOwnedByCluster(obj: Unstructured, clusterName: string): boolean {
  return ownerRefsOf(obj).some((r) => r.kind === 'Cluster' && r.name === clusterName);
}

/**
 * Upstream reconcileClusterShim's decision: while the InfrastructureCluster or the ControlPlane does not exist, the
 * shim must exist and own both; once both exist, the Cluster owns both (the core controller adopted them) and the shim
 * still owns one of them, the shim is deleted.
 *
 * @example
 * computeClusterShimAction(current); // 'ensure' while the control plane was not created
 */
export function computeClusterShimAction(current: CurrentState): ClusterShimAction {
  const infrastructureCluster = current.infrastructureCluster;
  const controlPlane = current.controlPlane?.object;
  if (!infrastructureCluster || !controlPlane) return 'ensure';
  const clusterName = current.cluster.metadata.name ?? '';
  const clusterOwnsAll =
    isOwnedByCluster(infrastructureCluster, clusterName) && isOwnedByCluster(controlPlane, clusterName);
  const shimOwnsOne = [infrastructureCluster, controlPlane].some((o) =>
    ownerRefsOf(o).some((r) => isShimOwnerRef(r, clusterName)),
  );
  return clusterOwnsAll && shimOwnsOne ? 'delete' : 'none';
}

/**
 * The owner references the desired InfrastructureCluster or ControlPlane carries from `current` so that server-side
 * apply does not drop them (upstream's "carry over shim owner reference"): the shim's, unless this pass deletes the
 * shim; and a Cluster reference without the controller flag (one an earlier version of this pass applied, before the
 * core controller adopted the object: the pass still co-owns it). A new object gets none here: the shim's reference is
 * added when the pass has the shim ({@link computeShimOwnedObject}), the Cluster's by the core controller.
 * NOTE: dropping the shim's reference in the pass that deletes the shim removes it by server-side apply, so a
 * management cluster without a garbage collector is left with no dangling reference either (upstream leaves that to
 * the garbage collector).
 */
export function computeCarriedOwnerRefs(
  cluster: Cluster,
  current: Unstructured | undefined,
  shimAction: ClusterShimAction,
): OwnerReference[] | undefined {
  const clusterName = cluster.metadata.name ?? '';
  const carried = ownerRefsOf(current)
    .filter(
      (r) =>
        (isShimOwnerRef(r, clusterName) && shimAction !== 'delete') ||
        (r.kind === 'Cluster' && r.uid === cluster.metadata.uid && r.uid !== undefined && r.controller !== true),
    )
    .map((r) => ({ ...r }));
  return carried.length > 0 ? carried : undefined;
}

/**
 * `obj` with `ref` among its owner references, replacing one to the same group, kind and name (upstream
 * util.EnsureOwnerRef).
 *
 * @example
 * computeShimOwnedObject(desired.infrastructureCluster, computeShimOwnerRef(shim));
 */
export function computeShimOwnedObject(obj: Unstructured, ref: OwnerReference): Unstructured {
  const same = (r: OwnerReference) =>
    groupOf(r.apiVersion) === groupOf(ref.apiVersion) && r.kind === ref.kind && r.name === ref.name;
  const refs = ownerRefsOf(obj);
  const next = refs.some(same) ? refs.map((r) => (same(r) ? { ...ref } : r)) : [...refs, { ...ref }];
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: next } };
}

/**
 * `desired` with the shim `ref` among the owners of the InfrastructureCluster and ControlPlane (upstream
 * reconcileClusterShim, while one of them is yet to be created).
 *
 * @example
 * computeShimOwnedState(desired, computeShimOwnerRef(shim)).infrastructureCluster.metadata.ownerReferences;
 */
export function computeShimOwnedState(desired: DesiredState, ref: OwnerReference): DesiredState {
  return {
    ...desired,
    infrastructureCluster: computeShimOwnedObject(desired.infrastructureCluster, ref),
    controlPlane: { ...desired.controlPlane, object: computeShimOwnedObject(desired.controlPlane.object, ref) },
  };
}

/**
 * After a pass that succeeded, the shim still waits to be deleted: the pass ensured it, or the core controller has not
 * adopted both objects yet. The pass then asks to run again when an owned object changes (the adoption), as nothing in
 * the Cluster's own facts changes.
 *
 * @example
 * isClusterShimPending(current); // true right after the pass that created the InfrastructureCluster and ControlPlane
 */
export function isClusterShimPending(current: CurrentState): boolean {
  const action = computeClusterShimAction(current);
  if (action !== 'none') return action === 'ensure';
  const clusterName = current.cluster.metadata.name ?? '';
  return [current.infrastructureCluster, current.controlPlane?.object].some((o) =>
    ownerRefsOf(o).some((r) => isShimOwnerRef(r, clusterName)),
  );
}
