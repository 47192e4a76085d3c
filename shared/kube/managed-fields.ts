// Field managers' entries in `metadata.managedFields`: whether a manager's apply entry is there, and upstream's
// mitigation for an object whose entries were dropped (kubernetes/kubernetes#136919), as upstream Cluster API v1.14's
// `internal/util/ssa` MitigateManagedFieldsIssue computes it. Pure: the write is the caller's.

/** One entry of `metadata.managedFields`, as the API server returns it. */
export type ManagedFieldsEntry = {
  readonly manager?: string;
  readonly operation?: string;
  readonly apiVersion?: string;
  readonly time?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: Readonly<Record<string, unknown>>;
  readonly subresource?: string;
};

/**
 * The manager the API server invents on the first server-side apply to an object without managed fields: it owns every
 * field the object has, so it co-owns the applier's fields and keeps them when the applier drops them.
 */
export const BeforeFirstApplyManager = 'before-first-apply';

/** An object's metadata, of which only `managedFields` is read. */
type WithManagedFields = object & { readonly managedFields?: unknown };

const entriesOf = (metadata: WithManagedFields): readonly ManagedFieldsEntry[] =>
  Array.isArray(metadata.managedFields) ? (metadata.managedFields as ManagedFieldsEntry[]) : [];

/**
 * Whether `manager` has an apply entry for the main resource (not a subresource such as status).
 *
 * @example
 * hasApplyEntry(md.metadata, 'capi-topology'); // false once someone purged the MachineDeployment's managedFields
 */
export function hasApplyEntry(metadata: WithManagedFields, manager: string): boolean {
  return entriesOf(metadata).some(
    (e) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === '',
  );
}

/**
 * The managedFields to write before `manager` applies an object again, or undefined when none are needed: when the
 * object has no managed fields at all, or has a `before-first-apply` entry, the latter goes and `manager` gets a seed
 * apply entry (owning `metadata.name` only) unless it has one. Applying to an object without managed fields makes the
 * API server add a `before-first-apply` entry owning every field, which would keep fields the topology stops setting;
 * the seed prevents that, and the next apply replaces it with the manager's real fields. Upstream's cases:
 * `[]` → `[manager]`; `[before-first-apply, others…]` → `[others…, manager]`; `[before-first-apply, manager, others…]`
 * → `[manager, others…]`; anything else: no write.
 *
 * @example
 * computeManagedFieldsMitigation({}, 'capi-topology', 'cluster.x-k8s.io/v1beta2');
 * // [{ manager: 'capi-topology', operation: 'Apply', apiVersion: 'cluster.x-k8s.io/v1beta2', fieldsType: 'FieldsV1',
 * //    fieldsV1: { 'f:metadata': { 'f:name': {} } } }]
 */
export function computeManagedFieldsMitigation(
  metadata: WithManagedFields,
  manager: string,
  apiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const entries = entriesOf(metadata);
  const beforeFirstApply = (e: ManagedFieldsEntry) => e.manager === BeforeFirstApplyManager;
  if (entries.length > 0 && !entries.some(beforeFirstApply)) return undefined;
  const kept = entries.filter((e) => !beforeFirstApply(e));
  if (kept.some((e) => e.manager === manager)) return kept;
  return [
    ...kept,
    {
      manager,
      operation: 'Apply',
      apiVersion,
      fieldsType: 'FieldsV1',
      // NOTE: an entry must own something; `metadata.name` is in every intent, so the next apply keeps it owned.
      fieldsV1: { 'f:metadata': { 'f:name': {} } },
    },
  ];
}
