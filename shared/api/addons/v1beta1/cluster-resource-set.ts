// `addons.cluster.x-k8s.io/v1beta1` ClusterResourceSet and ClusterResourceSetBinding, as in Cluster API v1.7 to
// v1.10: the project's own CRDs for these kinds are generated from them (a server serving only v1beta1). The add-on
// pass works on the v1beta2 shapes in addons.ts.
// NOTE: upstream's CRDs carry no list-type markers on `resources`/`bindings` (atomic, the default), so neither do we.
import * as z from 'zod';
import { AddonsV1Beta1ApiVersion } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { Conditions as MetaConditions } from '#shared/api/core/v1beta2/common.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';

/** A Secret or ConfigMap in the ClusterResourceSet's namespace. */
export const ResourceRefV1Beta1 = z.object({
  name: z.string().min(1),
  kind: z.enum(['Secret', 'ConfigMap']),
});
export type ResourceRefV1Beta1 = z.infer<typeof ResourceRefV1Beta1>;

export const ClusterResourceSetSpecV1Beta1 = z.object({
  clusterSelector: LabelSelector,
  resources: z.array(ResourceRefV1Beta1).optional(),
  /** Defaults to ApplyOnce (upstream's defaulting webhook); immutable. */
  strategy: z.enum(['ApplyOnce', 'Reconcile']).optional(),
});
export type ClusterResourceSetSpecV1Beta1 = z.infer<typeof ClusterResourceSetSpecV1Beta1>;

export const ClusterResourceSetStatusV1Beta1 = z.object({
  observedGeneration: z.number().int().optional(),
  conditions: Conditions.optional(),
  /** The v1beta2 (metav1) conditions, as upstream v1.10 added them to v1beta1 objects. */
  v1beta2: z.object({ conditions: MetaConditions.optional() }).optional(),
});
export type ClusterResourceSetStatusV1Beta1 = z.infer<typeof ClusterResourceSetStatusV1Beta1>;

export const ClusterResourceSetV1Beta1 = z.object({
  apiVersion: z.literal(AddonsV1Beta1ApiVersion),
  kind: z.literal('ClusterResourceSet'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetSpecV1Beta1,
  status: ClusterResourceSetStatusV1Beta1.optional(),
});
export type ClusterResourceSetV1Beta1 = z.infer<typeof ClusterResourceSetV1Beta1>;

/** The status of one resource of a ClusterResourceSet on the binding's cluster. */
export const ResourceBindingV1Beta1 = z.object({
  name: z.string().min(1),
  kind: z.enum(['Secret', 'ConfigMap']),
  /** `sha256:<hex>` of the resource's data; omitted (upstream: empty) when the data could not be read. */
  hash: z.string().optional(),
  lastAppliedTime: timestamp().optional(),
  applied: z.boolean(),
});
export type ResourceBindingV1Beta1 = z.infer<typeof ResourceBindingV1Beta1>;

export const ResourceSetBindingV1Beta1 = z.object({
  clusterResourceSetName: z.string(),
  resources: z.array(ResourceBindingV1Beta1).optional(),
});
export type ResourceSetBindingV1Beta1 = z.infer<typeof ResourceSetBindingV1Beta1>;

export const ClusterResourceSetBindingSpecV1Beta1 = z.object({
  bindings: z.array(ResourceSetBindingV1Beta1).optional(),
  /** Name of the Cluster this binding belongs to (before v1.4 it was only an owner reference). */
  clusterName: z.string().optional(),
});
export type ClusterResourceSetBindingSpecV1Beta1 = z.infer<typeof ClusterResourceSetBindingSpecV1Beta1>;

export const ClusterResourceSetBindingV1Beta1 = z.object({
  apiVersion: z.literal(AddonsV1Beta1ApiVersion),
  kind: z.literal('ClusterResourceSetBinding'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetBindingSpecV1Beta1.optional(),
});
export type ClusterResourceSetBindingV1Beta1 = z.infer<typeof ClusterResourceSetBindingV1Beta1>;
