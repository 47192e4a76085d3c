// `addons.cluster.x-k8s.io/v1beta1` ClusterResourceSet and ClusterResourceSetBinding, as in Cluster API v1.7.
// NOTE: upstream's CRDs carry no list-type markers on `resources`/`bindings` (atomic, the default), so neither do we.
import * as z from 'zod';
import { Conditions } from '#shared/api/condition.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';

export const AddonsGroup = 'addons.cluster.x-k8s.io';
export const AddonsApiVersion = 'addons.cluster.x-k8s.io/v1beta1';

/** The only Secret type a ClusterResourceSet may read (`ClusterResourceSetSecretType`). */
export const ClusterResourceSetSecretType = 'addons.cluster.x-k8s.io/resource-set';

/** Finalizer the controller puts on a ClusterResourceSet to clean bindings up on deletion. */
export const ClusterResourceSetFinalizer = 'addons.cluster.x-k8s.io';

export const ClusterResourceSetResourceKind = { Secret: 'Secret', ConfigMap: 'ConfigMap' } as const;
export type ClusterResourceSetResourceKind =
  (typeof ClusterResourceSetResourceKind)[keyof typeof ClusterResourceSetResourceKind];

export const ClusterResourceSetStrategy = { ApplyOnce: 'ApplyOnce', Reconcile: 'Reconcile' } as const;
export type ClusterResourceSetStrategy = (typeof ClusterResourceSetStrategy)[keyof typeof ClusterResourceSetStrategy];

/** Condition type and reasons (`exp/addons/api/v1beta1/condition_consts.go`). */
export const ResourcesAppliedCondition = 'ResourcesApplied';
export const ClusterResourceSetReason = {
  RemoteClusterClientFailed: 'RemoteClusterClientFailed',
  ClusterMatchFailed: 'ClusterMatchFailed',
  ApplyFailed: 'ApplyFailed',
  RetrievingResourceFailed: 'RetrievingResourceFailed',
  WrongSecretType: 'WrongSecretType',
} as const;
export type ClusterResourceSetReason = (typeof ClusterResourceSetReason)[keyof typeof ClusterResourceSetReason];

/** A Secret or ConfigMap in the ClusterResourceSet's namespace. */
export const ResourceRef = z.object({
  name: z.string().min(1),
  kind: z.enum(['Secret', 'ConfigMap']),
});
export type ResourceRef = z.infer<typeof ResourceRef>;

export const ClusterResourceSetSpec = z.object({
  clusterSelector: LabelSelector,
  resources: z.array(ResourceRef).optional(),
  /** Defaults to ApplyOnce (upstream's defaulting webhook); immutable. */
  strategy: z.enum(['ApplyOnce', 'Reconcile']).optional(),
});
export type ClusterResourceSetSpec = z.infer<typeof ClusterResourceSetSpec>;

export const ClusterResourceSetStatus = z.object({
  observedGeneration: z.number().int().optional(),
  conditions: Conditions.optional(),
});
export type ClusterResourceSetStatus = z.infer<typeof ClusterResourceSetStatus>;

export const ClusterResourceSet = z.object({
  apiVersion: z.literal(AddonsApiVersion),
  kind: z.literal('ClusterResourceSet'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetSpec,
  status: ClusterResourceSetStatus.optional(),
});
export type ClusterResourceSet = z.infer<typeof ClusterResourceSet>;

/** The status of one resource of a ClusterResourceSet on the binding's cluster. */
export const ResourceBinding = z.object({
  name: z.string().min(1),
  kind: z.enum(['Secret', 'ConfigMap']),
  /** `sha256:<hex>` of the resource's data; omitted (upstream: empty) when the data could not be read. */
  hash: z.string().optional(),
  lastAppliedTime: timestamp().optional(),
  applied: z.boolean(),
});
export type ResourceBinding = z.infer<typeof ResourceBinding>;

export const ResourceSetBinding = z.object({
  clusterResourceSetName: z.string(),
  resources: z.array(ResourceBinding).optional(),
});
export type ResourceSetBinding = z.infer<typeof ResourceSetBinding>;

export const ClusterResourceSetBindingSpec = z.object({
  bindings: z.array(ResourceSetBinding).optional(),
  /** Name of the Cluster this binding belongs to (before v1.4 it was only an owner reference). */
  clusterName: z.string().optional(),
});
export type ClusterResourceSetBindingSpec = z.infer<typeof ClusterResourceSetBindingSpec>;

export const ClusterResourceSetBinding = z.object({
  apiVersion: z.literal(AddonsApiVersion),
  kind: z.literal('ClusterResourceSetBinding'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetBindingSpec.optional(),
});
export type ClusterResourceSetBinding = z.infer<typeof ClusterResourceSetBinding>;
