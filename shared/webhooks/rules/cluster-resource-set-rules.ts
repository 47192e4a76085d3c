// ClusterResourceSet rules of the admission webhook, as upstream's: the selector parses and is not empty (an empty
// selector selects nothing), `strategy` defaults to ApplyOnce, and `strategy` and `clusterSelector` are immutable;
// a ClusterResourceSetBinding's `spec.clusterName` is immutable once set.
import type { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { isEmptyLabelSelector, validateLabelSelector } from '#shared/api/label-selector.ts';
import { jsonEqual, type FieldError } from '#shared/topology/variables/index.ts';

/**
 * Field errors of a ClusterResourceSet create (`current` undefined) or update.
 *
 * @example
 * validateClusterResourceSet(undefined, crs); // [] when the selector is valid and not empty
 */
export function validateClusterResourceSet(
  current: ClusterResourceSet | undefined,
  desired: ClusterResourceSet,
): FieldError[] {
  const selector = desired.spec.clusterSelector;
  const badValue = { json: selector };
  const errors: FieldError[] = validateLabelSelector(selector).map((problem) => ({
    type: 'Invalid',
    field: 'spec.clusterSelector',
    badValue,
    detail: problem,
  }));
  if (errors.length === 0 && isEmptyLabelSelector(selector))
    errors.push({ type: 'Invalid', field: 'spec.clusterSelector', badValue, detail: 'selector must not be empty' });
  if (current?.spec.strategy && current.spec.strategy !== desired.spec.strategy)
    errors.push({
      type: 'Invalid',
      field: 'spec.strategy',
      badValue: desired.spec.strategy ?? '',
      detail: 'field is immutable',
    });
  if (current && !jsonEqual(current.spec.clusterSelector, selector))
    errors.push({ type: 'Invalid', field: 'spec.clusterSelector', badValue, detail: 'field is immutable' });
  return errors;
}

/**
 * Field errors of a ClusterResourceSetBinding create (`current` undefined) or update (upstream's binding webhook):
 * `spec.clusterName`, once set, never changes.
 *
 * @example
 * validateClusterResourceSetBinding(old, { ...old, spec: { ...old.spec, clusterName: 'other' } }); // [spec.clusterName: field is immutable]
 */
export function validateClusterResourceSetBinding(
  current: ClusterResourceSetBinding | undefined,
  desired: ClusterResourceSetBinding,
): FieldError[] {
  const before = current?.spec?.clusterName ?? '';
  const after = desired.spec?.clusterName ?? '';
  if (before === '' || before === after) return [];
  return [{ type: 'Invalid', field: 'spec.clusterName', badValue: after, detail: 'field is immutable' }];
}
