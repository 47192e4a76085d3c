// The shape every Kubernetes object has, in its own module so the object reads and writes (objects.ts) and the
// paged LISTs they use (list-pages.ts) both name it and neither imports the other.
import type { KubeObjectMeta } from '#shared/api/object-meta.ts';

/** Any Kubernetes object, as read from or sent to the API server. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: KubeObjectMeta;
  [field: string]: unknown;
};
