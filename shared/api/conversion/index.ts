// Conversions at the edge: `cluster.x-k8s.io` and `addons.cluster.x-k8s.io` objects between v1beta1 and v1beta2 (the
// hub the engine works on), with the field mapping and the conversion-data annotation upstream's webhooks use.
export { ConversionDataAnnotation } from '#shared/api/conversion/conversion-data.ts';
export { ConversionError } from '#shared/api/conversion/conversion-error.ts';
export type { ApiVersionGetter } from '#shared/api/conversion/references.ts';
export {
  apiVersionOf,
  ConvertibleKinds,
  convertFromHub,
  convertToHub,
  HubVersion,
  isConvertible,
  SpokeVersion,
} from '#shared/api/conversion/convert.ts';
export type { Unstructured } from '#shared/api/conversion/unstructured.ts';
