// The `cluster.x-k8s.io/conversion-data` annotation: going down to v1beta1, upstream stores the whole v1beta2 object
// (without metadata) as JSON there, and coming back up it restores the intent v1beta1 cannot express (`*bool` false
// vs unset, `*int32` zero vs unset). Same name and format as upstream's `MarshalData`/`UnmarshalData`.
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';
import { isUnstructured, objectAt, type Unstructured } from '#shared/api/conversion/unstructured.ts';

export const ConversionDataAnnotation = 'cluster.x-k8s.io/conversion-data';

/**
 * `dst` with the conversion-data annotation holding `hub` without its metadata (upstream's `MarshalDataUnsafeNoCopy`).
 *
 * @example
 * computeWithConversionData(hubCluster, v1beta1Cluster).metadata.annotations['cluster.x-k8s.io/conversion-data'];
 */
export function computeWithConversionData(hub: Unstructured, dst: Unstructured): Unstructured {
  const { metadata: _metadata, ...withoutMetadata } = hub;
  const metadata = objectAt(dst, 'metadata') ?? {};
  const annotations = objectAt(metadata, 'annotations') ?? {};
  return {
    ...dst,
    metadata: {
      ...metadata,
      annotations: { ...annotations, [ConversionDataAnnotation]: JSON.stringify(withoutMetadata) },
    },
  };
}

/** The object restored from the annotation (if any) and `src` without the annotation (upstream's `UnmarshalData`). */
export function readConversionData(src: Unstructured): { restored: Unstructured | undefined; object: Unstructured } {
  const metadata = objectAt(src, 'metadata');
  const annotations = objectAt(metadata, 'annotations');
  const data = annotations?.[ConversionDataAnnotation];
  if (typeof data !== 'string') return { restored: undefined, object: src };
  let restored: unknown;
  try {
    restored = JSON.parse(data);
  } catch (err) {
    throw new ConversionError(
      `annotation ${ConversionDataAnnotation} is not valid JSON`,
      {
        fieldPath: `metadata.annotations[${ConversionDataAnnotation}]`,
      },
      { cause: err },
    );
  }
  const { [ConversionDataAnnotation]: _dropped, ...rest } = annotations ?? {};
  const { annotations: _annotations, ...metadataRest } = metadata ?? {};
  const object = {
    ...src,
    metadata: Object.keys(rest).length === 0 ? metadataRest : { ...metadataRest, annotations: rest },
  };
  return { restored: isUnstructured(restored) ? restored : {}, object };
}

/**
 * A v1beta1 `bool` as a v1beta2 `*bool` (upstream's `Convert_bool_To_Pointer_bool`): true stays true; false (or
 * absent) becomes false only when the restored hub had an explicit false, else unset.
 */
export function convertBoolToPointerBool(value: unknown, restored: Unstructured | undefined, restoredValue: unknown) {
  if (value === true) return true;
  return restored !== undefined && restoredValue === false ? false : undefined;
}

/** A v1beta1 `int32` as a v1beta2 `*int32` (upstream's `Convert_int32_To_Pointer_int32`), the same way. */
export function convertInt32ToPointerInt32(value: unknown, restored: Unstructured | undefined, restoredValue: unknown) {
  if (typeof value === 'number' && value !== 0) return value;
  return restored !== undefined && restoredValue === 0 ? 0 : undefined;
}
