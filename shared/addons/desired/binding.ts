// The ClusterResourceSetBinding of a cluster: one per Cluster (same name), owned by every ClusterResourceSet that
// applies to it, recording per resource whether it was applied, with which hash and when.
import type { OwnerReference } from '#shared/api/object-meta.ts';
import type {
  ClusterResourceSet,
  ClusterResourceSetBinding,
  ResourceBinding,
  ResourceRef,
  ResourceSetBinding,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { AddonsApiVersion, AddonsGroup } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';

/** Enough of a Cluster to bind to it. */
export type BindingCluster = {
  readonly metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined };
};

/** `metav1.Time` as the API server writes it: RFC 3339, UTC, whole seconds. */
export function formatKubeTime(time: Date): string {
  return time.toISOString().replace(/\.\d+Z$/, 'Z');
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** Same object by group, kind and name (upstream `referSameObject`: version and uid do not matter). */
function sameOwner(
  a: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>,
  b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>,
): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/** Upstream `util.EnsureOwnerRef`: replace the reference to the same object in place, else append. */
function ensureOwnerRef(refs: readonly OwnerReference[], ref: OwnerReference): OwnerReference[] {
  const index = refs.findIndex((r) => sameOwner(r, ref));
  return index === -1 ? [...refs, ref] : refs.map((r, i) => (i === index ? ref : r));
}

/** Upstream `util.RemoveOwnerRef`: drop the first reference to the same object. */
function removeOwnerRef(
  refs: readonly OwnerReference[],
  ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>,
): OwnerReference[] {
  const index = refs.findIndex((r) => sameOwner(r, ref));
  return index === -1 ? [...refs] : refs.filter((_, i) => i !== index);
}

function sameRef(a: ResourceRef, b: ResourceRef): boolean {
  return a.name === b.name && a.kind === b.kind;
}

/** Upstream `SetBinding`: replace the entry for the same resource in place, else append. */
function setResourceBinding(resources: readonly ResourceBinding[], entry: ResourceBinding): ResourceBinding[] {
  const index = resources.findIndex((r) => sameRef(r, entry));
  return index === -1 ? [...resources, entry] : resources.map((r, i) => (i === index ? entry : r));
}

function entryFor(outcome: ResourceOutcome, lastAppliedTime: string): ResourceBinding | undefined {
  const ref = { name: outcome.ref.name, kind: outcome.ref.kind };
  switch (outcome.outcome) {
    case 'Applied':
      return { ...ref, hash: outcome.hash, lastAppliedTime, applied: true };
    case 'ApplyFailed':
      return { ...ref, hash: outcome.hash, lastAppliedTime, applied: false };
    case 'Invalid':
      // Upstream writes `hash: ""`, which `omitempty` leaves out.
      return { ...ref, lastAppliedTime, applied: false };
    default:
      return undefined;
  }
}

/**
 * The ClusterResourceSetBinding after `crs` was reconciled on `cluster`. Like upstream: named after the Cluster, in
 * its namespace; `spec.clusterName` set; an owner reference to `crs` ensured (replaced in place if present); the
 * legacy owner reference to the Cluster (before v1.4) removed, as upstream's binding controller does — there is no
 * Cluster owner reference, so deleting the binding with its Cluster is an explicit step; an entry for `crs` added
 * at the end if missing; per resource the entry replaced in place or appended: Applied → `applied: true` + hash,
 * ApplyFailed → `applied: false` + hash, Invalid → `applied: false` without hash, all stamped `now`; Skipped,
 * NotFound and read errors leave entries as they are. Existing order is kept so a binding written by an in-cluster
 * Cluster API does not churn. The owner reference names the ClusterResourceSet in `ownerApiVersion`, the version the
 * server serves (v1beta2 as upstream v1.14 writes it; v1beta1 where only that is served, so the garbage collector
 * can resolve it). Call it only when {@link computeResourcesToApply} said `proceed`.
 *
 * @example
 * const binding = computeBinding(current, cluster, crs, outcomes, new Date('2024-01-01T00:00:00Z'));
 */
export function computeBinding(
  current: ClusterResourceSetBinding | undefined,
  cluster: BindingCluster,
  crs: ClusterResourceSet,
  outcomes: readonly ResourceOutcome[],
  now: Date,
  ownerApiVersion: string = AddonsApiVersion,
): ClusterResourceSetBinding {
  const clusterName = cluster.metadata.name ?? '';
  const namespace = cluster.metadata.namespace ?? '';
  const crsName = crs.metadata.name ?? '';
  const specClusterName = current?.spec.clusterName || clusterName;

  let ownerReferences = ensureOwnerRef(current?.metadata.ownerReferences ?? [], {
    apiVersion: ownerApiVersion,
    kind: 'ClusterResourceSet',
    name: crsName,
    uid: crs.metadata.uid ?? '',
  });
  ownerReferences = removeOwnerRef(ownerReferences, {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    name: specClusterName,
  });

  const lastAppliedTime = formatKubeTime(now);
  const existing = current?.spec.bindings ?? [];
  const index = existing.findIndex((b) => b.clusterResourceSetName === crsName);
  let resources: ResourceBinding[] = [...(existing[index]?.resources ?? [])];
  for (const outcome of outcomes) {
    const entry = entryFor(outcome, lastAppliedTime);
    if (entry) resources = setResourceBinding(resources, entry);
  }
  // NOTE: upstream's `resources,omitempty` leaves an empty list out.
  const setBinding: ResourceSetBinding = {
    clusterResourceSetName: crsName,
    ...(resources.length === 0 ? {} : { resources }),
  };
  const bindings = index === -1 ? [...existing, setBinding] : existing.map((b, i) => (i === index ? setBinding : b));

  return {
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSetBinding',
    metadata: { name: clusterName, namespace, ownerReferences },
    spec: { clusterName: specClusterName, bindings },
  };
}

/** What to do with a binding once a ClusterResourceSet is deleted. */
export type BindingWithoutCRS =
  | { readonly action: 'delete' }
  | { readonly action: 'update'; readonly binding: ClusterResourceSetBinding }
  | { readonly action: 'none' };

/**
 * The binding without the deleted ClusterResourceSet `crsName` (upstream `reconcileDelete`): its entry and owner
 * reference removed; when no entry is left the binding is deleted (even if `crsName` was not in it).
 *
 * @example
 * computeBindingWithoutCRS(binding, 'crs-calico'); // { action: 'delete' } when it was the last one
 */
export function computeBindingWithoutCRS(binding: ClusterResourceSetBinding, crsName: string): BindingWithoutCRS {
  const before = binding.spec.bindings ?? [];
  const index = before.findIndex((b) => b.clusterResourceSetName === crsName);
  const bindings = index === -1 ? [...before] : before.filter((_, i) => i !== index);
  if (bindings.length === 0) return { action: 'delete' };
  const refsBefore = binding.metadata.ownerReferences ?? [];
  const ownerReferences = removeOwnerRef(refsBefore, {
    apiVersion: `${AddonsGroup}/v1beta2`, // any version: references are compared by group, kind and name
    kind: 'ClusterResourceSet',
    name: crsName,
  });
  if (index === -1 && ownerReferences.length === refsBefore.length) return { action: 'none' };
  return {
    action: 'update',
    binding: {
      ...binding,
      metadata: { ...binding.metadata, ownerReferences },
      spec: { ...binding.spec, bindings },
    },
  };
}
