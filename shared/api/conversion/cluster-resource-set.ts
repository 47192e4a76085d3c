// ClusterResourceSet and ClusterResourceSetBinding between `addons.cluster.x-k8s.io` v1beta1 and v1beta2: the specs
// are the same; conditions move as everywhere (status-conditions.ts) and a binding's empty `lastAppliedTime` is dropped.
import { convertStatusFromHub, convertStatusToHub } from '#shared/api/conversion/status-conditions.ts';
import { compact, listAt, mapObjects, type Unstructured } from '#shared/api/conversion/unstructured.ts';

/** The v1beta2 status of a v1beta1 ClusterResourceSet status. */
export function convertClusterResourceSetStatusToHub(status: Unstructured | undefined) {
  return convertStatusToHub(status);
}

/** The v1beta1 status of a v1beta2 ClusterResourceSet status. */
export function convertClusterResourceSetStatusFromHub(status: Unstructured | undefined) {
  return convertStatusFromHub(status);
}

/**
 * A ClusterResourceSetBinding spec in either direction: the fields are the same in both versions; the resources'
 * `lastAppliedTime` is dropped when empty (v1beta1 pointer vs v1beta2 `omitzero` value), and going down an unset
 * v1beta2 `applied` (a pointer) is written as v1beta1's always-present `applied: false`.
 */
export function convertClusterResourceSetBindingSpec(
  spec: Unstructured,
  { toV1beta1 = false }: { readonly toV1beta1?: boolean } = {},
): Unstructured {
  return compact({
    ...spec,
    bindings: mapObjects(listAt(spec, 'bindings'), (binding) =>
      compact({
        ...binding,
        resources: mapObjects(listAt(binding, 'resources'), (resource) =>
          compact(toV1beta1 ? { ...resource, applied: resource['applied'] === true } : resource),
        ),
      }),
    ),
  });
}
