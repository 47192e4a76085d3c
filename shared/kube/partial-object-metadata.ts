// Metadata-only reads: the API server answers LISTs and watches with PartialObjectMetadata (apiVersion meta.k8s.io/v1:
// kind, name, uid, resourceVersion, labels, ... but no spec, data or status) when asked through the Accept header.

/**
 * The Accept header of a metadata-only LIST or watch, as client-go's metadata client sends it (JSON only): the
 * server falls back to full objects (`application/json`) only for a resource that cannot be served as metadata.
 *
 * @example
 * await kube.request({ method: 'GET', path: '/api/v1/secrets', accept: partialObjectMetadataListAccept, target });
 */
export const partialObjectMetadataListAccept =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * The Accept header of a metadata-only watch: each event's object is a PartialObjectMetadata. (Measured on
 * kube-apiserver v1.34: a watch asked `as=PartialObjectMetadataList` is closed at once without events.)
 *
 * @example
 * await startWatch(source, { path: '/api/v1/secrets', accept: partialObjectMetadataAccept }, onEvent);
 */
export const partialObjectMetadataAccept =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
