// For one (ClusterResourceSet, Cluster) pair: which resources to apply, following upstream's
// `ApplyClusterResourceSet` and its ApplyOnce / Reconcile scopes (`clusterresourceset_scope.go`).
import type {
  ClusterResourceSet,
  ClusterResourceSetBinding,
  ClusterResourceSetStrategy,
  ResourceBinding,
  ResourceRef,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ResourceContent } from '#shared/addons/desired/resource-data.ts';
import { ResourceParseError } from '#shared/addons/desired/resource-data.ts';
import { computeResourceHash } from '#shared/addons/desired/resource-hash.ts';
import type { ResourceObject } from '#shared/addons/desired/resource-objects.ts';
import { computeResourceObjects } from '#shared/addons/desired/resource-objects.ts';
import type { WrongSecretTypeError } from '#shared/addons/desired/secret-type-check.ts';
import { computeSecretTypeCheck } from '#shared/addons/desired/secret-type-check.ts';

/** What the read layer found for one referenced ConfigMap/Secret. */
export type FetchedResource =
  | { readonly status: 'found'; readonly content: ResourceContent }
  | { readonly status: 'notFound' }
  | { readonly status: 'error'; readonly message: string };

/** Key of a resource in the `resources` map given to {@link computeResourcesToApply}: `Kind/name`. */
export function resourceRefKey(ref: ResourceRef): string {
  return `${ref.kind}/${ref.name}`;
}

/** The decision for one resource of the ClusterResourceSet, for one cluster. */
export type ResourceToApply =
  /** ApplyOnce and already applied, or Reconcile and applied with the same hash: nothing to do, binding unchanged. */
  | {
      readonly ref: ResourceRef;
      readonly action: 'skip';
      readonly reason: 'AlreadyApplied' | 'Unchanged';
      readonly hash: string;
    }
  /**
   * Apply every object. `NotApplied`: never applied or the last attempt failed. `Changed` (Reconcile only): the data
   * changed since it was applied, so all its objects are applied again. With ApplyOnce, objects are only created
   * (AlreadyExists is success); with Reconcile, they are created or updated.
   */
  | {
      readonly ref: ResourceRef;
      readonly action: 'apply';
      readonly reason: 'NotApplied' | 'Changed';
      readonly hash: string;
      readonly objects: readonly ResourceObject[];
    }
  /** The ConfigMap/Secret does not exist (yet): skipped without error; the binding is not touched. */
  | { readonly ref: ResourceRef; readonly action: 'notFound' }
  | { readonly ref: ResourceRef; readonly action: 'wrongSecretType'; readonly error: WrongSecretTypeError }
  | { readonly ref: ResourceRef; readonly action: 'retrievalFailed'; readonly message: string }
  /** The data cannot be read: the binding records it as not applied, with no hash. */
  | { readonly ref: ResourceRef; readonly action: 'invalid'; readonly error: ResourceParseError };

export type ResourcesToApply = {
  readonly strategy: ClusterResourceSetStrategy;
  /**
   * False when a resource is a Secret of the wrong type or could not be read (other than NotFound): upstream then
   * stops the pass for this cluster before touching the binding or applying anything.
   */
  readonly proceed: boolean;
  /** One decision per `spec.resources` entry, in order. */
  readonly resources: readonly ResourceToApply[];
};

/** The binding entry for `ref` under the ClusterResourceSet `crsName`, if any. */
export function findResourceBinding(
  binding: ClusterResourceSetBinding | undefined,
  crsName: string,
  ref: ResourceRef,
): ResourceBinding | undefined {
  const setBinding = binding?.spec.bindings?.find((b) => b.clusterResourceSetName === crsName);
  return setBinding?.resources?.find((r) => r.name === ref.name && r.kind === ref.kind);
}

function decide(
  strategy: ClusterResourceSetStrategy,
  ref: ResourceRef,
  current: ResourceBinding | undefined,
  content: ResourceContent,
): ResourceToApply {
  let hash: string;
  let objects: ResourceObject[];
  try {
    hash = computeResourceHash(content);
    objects = computeResourceObjects(content);
  } catch (err) {
    if (err instanceof ResourceParseError) return { ref, action: 'invalid', error: err };
    throw err;
  }
  if (strategy === 'ApplyOnce') {
    // NOTE: ApplyOnce never compares hashes; `applied: true` is final.
    if (current?.applied === true) return { ref, action: 'skip', reason: 'AlreadyApplied', hash };
    return { ref, action: 'apply', reason: 'NotApplied', hash, objects };
  }
  if (current === undefined || !current.applied) return { ref, action: 'apply', reason: 'NotApplied', hash, objects };
  if (current.hash !== hash) return { ref, action: 'apply', reason: 'Changed', hash, objects };
  return { ref, action: 'skip', reason: 'Unchanged', hash };
}

/**
 * Decides, per resource of `crs`, what to do on one cluster given its current ClusterResourceSetBinding (or none)
 * and what was read for each resource (`resources`, keyed by {@link resourceRefKey}; a missing entry counts as
 * NotFound). Upstream's rules: a missing ConfigMap/Secret is skipped; a Secret of the wrong type or a failed read
 * stops the whole pass (`proceed: false`); unreadable data is `invalid`; ApplyOnce applies what is not recorded as
 * applied; Reconcile also re-applies all objects when the hash changed. An unset strategy means ApplyOnce (the
 * upstream default).
 *
 * @example
 * const plan = computeResourcesToApply(crs, binding, new Map([[resourceRefKey(ref), { status: 'found', content }]]));
 * plan.resources[0]?.action; // 'apply' | 'skip' | ...
 */
export function computeResourcesToApply(
  crs: ClusterResourceSet,
  binding: ClusterResourceSetBinding | undefined,
  resources: ReadonlyMap<string, FetchedResource>,
): ResourcesToApply {
  const strategy = crs.spec.strategy ?? 'ApplyOnce';
  const crsName = crs.metadata.name ?? '';
  let proceed = true;
  const decisions = (crs.spec.resources ?? []).map((ref): ResourceToApply => {
    const fetched = resources.get(resourceRefKey(ref)) ?? { status: 'notFound' };
    if (fetched.status === 'notFound') return { ref, action: 'notFound' };
    if (fetched.status === 'error') {
      proceed = false;
      return { ref, action: 'retrievalFailed', message: fetched.message };
    }
    if (ref.kind === 'Secret') {
      const wrongType = computeSecretTypeCheck(fetched.content);
      if (wrongType) {
        proceed = false;
        return { ref, action: 'wrongSecretType', error: wrongType };
      }
    }
    return decide(strategy, ref, findResourceBinding(binding, crsName, ref), fetched.content);
  });
  return { strategy, proceed, resources: decisions };
}
