// References between v1beta1 (`corev1.ObjectReference` with apiVersion and namespace) and v1beta2
// (`ContractVersionedObjectReference` with apiGroup; template references keep apiVersion), as upstream converts them.
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';
import {
  compact,
  compactOrUndefined,
  objectAt,
  stringAt,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

/**
 * Answers the apiVersion to write for a group and kind when going back to v1beta1; upstream reads it from the
 * contract label of the kind's CRD (`cluster.x-k8s.io/<contract>: <versions>`), so the caller does the same.
 */
export type ApiVersionGetter = (group: string, kind: string) => string | undefined;

/** The group of an apiVersion, as Go's `schema.ParseGroupVersion` splits it (`v1` has the empty group). */
export function groupOfApiVersion(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0] ?? '';
  throw new ConversionError(
    `failed to convert object: failed to parse apiVersion: unexpected GroupVersion string: ${apiVersion}`,
  );
}

/**
 * A v1beta1 object reference as a v1beta2 contract-versioned reference: apiVersion becomes apiGroup, namespace and
 * the other fields are dropped (upstream's `convertToContractVersionedObjectReference`).
 *
 * @example
 * convertToContractVersionedObjectReference({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'DockerCluster', name: 'c' });
 * // { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerCluster', name: 'c' }
 */
export function convertToContractVersionedObjectReference(ref: Unstructured): Unstructured {
  const apiVersion = stringAt(ref, 'apiVersion');
  return compact({
    apiGroup: apiVersion === undefined ? undefined : groupOfApiVersion(apiVersion),
    kind: ref['kind'],
    name: ref['name'],
  });
}

/**
 * A v1beta2 contract-versioned reference back as a v1beta1 object reference, in `namespace`, with the apiVersion the
 * getter answers for its group and kind (upstream's `convertToObjectReference`).
 */
export function convertToObjectReference(
  ref: Unstructured,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  const group = stringAt(ref, 'apiGroup') ?? '';
  const kind = stringAt(ref, 'kind') ?? '';
  const apiVersion = apiVersionFor(group, kind);
  if (apiVersion === undefined) {
    throw new ConversionError(`failed to convert object: no apiVersion known for ${kind}.${group}`, {
      kind,
      reason: 'ConversionFailed',
    });
  }
  return compact({ apiVersion, kind: ref['kind'], namespace, name: ref['name'] });
}

/** A contract-versioned reference is defined when it names something (upstream's `IsDefined`). */
export function isReferenceDefined(ref: Unstructured | undefined): ref is Unstructured {
  return ref !== undefined && stringAt(ref, 'name') !== undefined;
}

/**
 * A v1beta1 `LocalObjectTemplate` (`{ref: ObjectReference}`) as a v1beta2 `templateRef` (apiVersion, kind, name).
 */
export function convertLocalObjectTemplateToTemplateRef(template: Unstructured | undefined): Unstructured | undefined {
  const ref = objectAt(template, 'ref');
  if (ref === undefined) return undefined;
  return compactOrUndefined({ kind: ref['kind'], name: ref['name'], apiVersion: ref['apiVersion'] });
}

/**
 * A v1beta2 `templateRef` back as a v1beta1 `LocalObjectTemplate`, its ref in `namespace` (the ClusterClass's own).
 */
export function convertTemplateRefToLocalObjectTemplate(
  templateRef: Unstructured | undefined,
  namespace: string | undefined,
): Unstructured {
  return {
    ref: compact({
      apiVersion: templateRef?.['apiVersion'],
      kind: templateRef?.['kind'],
      namespace,
      name: templateRef?.['name'],
    }),
  };
}

/** A remediation template reference: v1beta1 ObjectReference → v1beta2 (apiVersion, kind, name). */
export function convertToRemediationTemplateReference(ref: Unstructured): Unstructured {
  return compact({ name: ref['name'], kind: ref['kind'], apiVersion: ref['apiVersion'] });
}

/** A remediation template reference back: v1beta2 → v1beta1 ObjectReference, in `namespace` when given. */
export function convertFromRemediationTemplateReference(
  ref: Unstructured,
  namespace: string | undefined,
): Unstructured {
  return compact({ apiVersion: ref['apiVersion'], kind: ref['kind'], namespace, name: ref['name'] });
}
