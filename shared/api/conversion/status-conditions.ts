// Conditions across versions, as upstream moves them: v1beta1 `status.conditions` (legacy) live in v1beta2 under
// `status.deprecated.v1beta1.conditions`, and v1beta1 `status.v1beta2.conditions` (metav1) become v1beta2
// `status.conditions`. Neither kind is ever turned into the other.
import {
  compactOrUndefined,
  listAt,
  objectAt,
  omitKeys,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

/**
 * The hub status of a v1beta1 `status`: conditions moved as above, `deprecatedFields` (e.g. failureReason) moved
 * under `deprecated.v1beta1`, `v1beta2Fields` lifted from `status.v1beta2`; other fields copied.
 */
export function convertStatusToHub(
  status: Unstructured | undefined,
  {
    deprecatedFields = [],
    v1beta2Fields = [],
  }: { deprecatedFields?: readonly string[]; v1beta2Fields?: readonly string[] } = {},
): Unstructured | undefined {
  if (status === undefined) return undefined;
  const v1beta2 = objectAt(status, 'v1beta2');
  const out = omitKeys(status, ['conditions', 'v1beta2', ...deprecatedFields]);
  const conditions = listAt(v1beta2, 'conditions');
  if (conditions !== undefined) out['conditions'] = conditions;
  for (const field of v1beta2Fields) {
    if (v1beta2?.[field] !== undefined) out[field] = v1beta2[field];
  }
  const deprecated: Unstructured = {};
  const legacy = listAt(status, 'conditions');
  if (legacy !== undefined) deprecated['conditions'] = legacy;
  for (const field of deprecatedFields) {
    if (status[field] !== undefined) deprecated[field] = status[field];
  }
  if (Object.keys(deprecated).length > 0) out['deprecated'] = { v1beta1: deprecated };
  return out;
}

/** The v1beta1 status of a hub `status`, the inverse of {@link convertStatusToHub}. */
export function convertStatusFromHub(
  status: Unstructured | undefined,
  {
    deprecatedFields = [],
    v1beta2Fields = [],
  }: { deprecatedFields?: readonly string[]; v1beta2Fields?: readonly string[] } = {},
): Unstructured | undefined {
  if (status === undefined) return undefined;
  const deprecated = objectAt(objectAt(status, 'deprecated'), 'v1beta1');
  const out = omitKeys(status, ['conditions', 'deprecated', ...v1beta2Fields]);
  const legacy = listAt(deprecated, 'conditions');
  if (legacy !== undefined) out['conditions'] = legacy;
  for (const field of deprecatedFields) {
    if (deprecated?.[field] !== undefined) out[field] = deprecated[field];
  }
  const v1beta2: Unstructured = {};
  const conditions = listAt(status, 'conditions');
  if (conditions !== undefined) v1beta2['conditions'] = conditions;
  for (const field of v1beta2Fields) {
    if (status[field] !== undefined) v1beta2[field] = status[field];
  }
  const lifted = compactOrUndefined(v1beta2);
  if (lifted !== undefined || conditions !== undefined) out['v1beta2'] = v1beta2;
  return out;
}
