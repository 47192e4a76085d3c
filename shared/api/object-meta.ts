// Object metadata and references shared by every kind (Kubernetes `metav1.ObjectMeta`, `corev1.ObjectReference`,
// and Cluster API's own small `ObjectMeta` with only labels and annotations).
import * as z from 'zod';
import { timestamp } from '#shared/api/meta.ts';

export const StringMap = z.record(z.string(), z.string());
export type StringMap = z.infer<typeof StringMap>;

export const OwnerReference = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
  uid: z.string().min(1),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReference>;

/**
 * Metadata of a top-level object as the API server returns it. Loose: fields we do not model (managedFields, …) are
 * kept so nothing read is lost; the CRD generator emits it as `type: object` as controller-gen does.
 */
export const KubeObjectMeta = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: timestamp().optional().nullable(),
  deletionTimestamp: timestamp().optional(),
  labels: StringMap.optional(),
  annotations: StringMap.optional(),
  ownerReferences: z.array(OwnerReference).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type KubeObjectMeta = z.infer<typeof KubeObjectMeta>;

/** Cluster API's `ObjectMeta`: the labels and annotations a topology propagates. */
export const ObjectMeta = z.object({
  labels: StringMap.optional(),
  annotations: StringMap.optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** `corev1.ObjectReference` (controller-gen marks it atomic). */
export const ObjectReference = z
  .object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    fieldPath: z.string().optional(),
  })
  .meta({ 'x-kubernetes-map-type': 'atomic' });
export type ObjectReference = z.infer<typeof ObjectReference>;

/** `corev1.LocalObjectReference`. */
export const LocalObjectReference = z
  .object({ name: z.string().optional() })
  .meta({ 'x-kubernetes-map-type': 'atomic' });

/** Identity of a namespaced object. */
export type ObjectKey = { readonly namespace: string; readonly name: string };
