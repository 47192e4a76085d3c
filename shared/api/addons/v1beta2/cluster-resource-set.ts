// `addons.cluster.x-k8s.io` ClusterResourceSet and ClusterResourceSetBinding in v1beta2, the shape the add-on pass
// works on (upstream v1.11+ stores them so): metav1 conditions in `status.conditions`, the v1beta1 ones under
// `status.deprecated.v1beta1`, `applied` a pointer. A server serving only v1beta1 is read and written through the
// edge conversion (shared/api/conversion); the v1beta1 shapes are in addons-v1beta1.ts.
// NOTE: upstream's CRDs mark `resources`/`bindings` atomic lists, so neither do we merge them.
import * as z from 'zod';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { Conditions, V1Beta1Conditions } from '#shared/api/core/v1beta2/common.ts';

export const AddonsGroup = 'addons.cluster.x-k8s.io';
/** The hub apiVersion: what the pass reads, computes and writes (converted at the edge when not served). */
export const AddonsApiVersion = 'addons.cluster.x-k8s.io/v1beta2';
export const AddonsV1Beta1ApiVersion = 'addons.cluster.x-k8s.io/v1beta1';

/** The only Secret type a ClusterResourceSet may read (`ClusterResourceSetSecretType`). */
export const ClusterResourceSetSecretType = 'addons.cluster.x-k8s.io/resource-set';

/**
 * capi-serverless's finalizer on a ClusterResourceSet, to clean its bindings up on deletion. NOTE: deliberately not
 * upstream's: upstream's ClusterResourceSet controller, which runs beside capi-serverless and cannot be switched off,
 * must always find its own finalizer missing, so that its first write (adding it) is refused by the handoff policy
 * and it never reaches the apply (docs/beside-upstream.md).
 */
export const ClusterResourceSetFinalizer = 'management.cluster.x-k8s.io/clusterresourceset';
/** Upstream Cluster API's finalizer (`addonsv1.ClusterResourceSetFinalizer`): removed by the add-on pass (switch-over). */
export const UpstreamClusterResourceSetFinalizer = 'addons.cluster.x-k8s.io';

export const ClusterResourceSetResourceKind = { Secret: 'Secret', ConfigMap: 'ConfigMap' } as const;
export type ClusterResourceSetResourceKind =
  (typeof ClusterResourceSetResourceKind)[keyof typeof ClusterResourceSetResourceKind];

export const ClusterResourceSetStrategy = { ApplyOnce: 'ApplyOnce', Reconcile: 'Reconcile' } as const;
export type ClusterResourceSetStrategy = (typeof ClusterResourceSetStrategy)[keyof typeof ClusterResourceSetStrategy];

/** The v1beta2 `ResourcesApplied` condition type and reasons upstream v1.14 writes (`api/addons/v1beta2`). */
export const ClusterResourceSetResourcesApplied = {
  type: 'ResourcesApplied',
  reasons: {
    Applied: 'Applied',
    NotApplied: 'NotApplied',
    WrongSecretType: 'WrongSecretType',
    InternalError: 'InternalError',
  },
} as const;

/** The `Paused` condition every upstream v1beta2 object carries (`core/v1beta2` PausedCondition and reasons). */
export const PausedCondition = {
  type: 'Paused',
  reasons: { Paused: 'Paused', NotPaused: 'NotPaused' },
} as const;

/** The v1beta1 condition type and reasons, kept in `status.deprecated.v1beta1.conditions` (`*V1Beta1Reason`). */
export const ResourcesAppliedV1Beta1Condition = 'ResourcesApplied';
export const ClusterResourceSetV1Beta1Reason = {
  RemoteClusterClientFailed: 'RemoteClusterClientFailed',
  ClusterMatchFailed: 'ClusterMatchFailed',
  ApplyFailed: 'ApplyFailed',
  RetrievingResourceFailed: 'RetrievingResourceFailed',
  WrongSecretType: 'WrongSecretType',
} as const;
export type ClusterResourceSetV1Beta1Reason =
  (typeof ClusterResourceSetV1Beta1Reason)[keyof typeof ClusterResourceSetV1Beta1Reason];

/** A Secret or ConfigMap in the ClusterResourceSet's namespace. */
export const ResourceRef = z.object({
  name: z.string().min(1).max(253),
  kind: z.enum(['Secret', 'ConfigMap']),
});
export type ResourceRef = z.infer<typeof ResourceRef>;

export const ClusterResourceSetSpec = z.object({
  clusterSelector: LabelSelector,
  // NOTE: upstream's v1beta2 CRD requires at least one entry, but its Go type (and so its conversion from a v1beta1
  // ClusterResourceSet, where the list is optional) allows none: read an absent list as empty, which applies nothing.
  resources: z.array(ResourceRef).max(100).default([]),
  /** Defaults to ApplyOnce (upstream's defaulting webhook); immutable. */
  strategy: z.enum([ClusterResourceSetStrategy.ApplyOnce, ClusterResourceSetStrategy.Reconcile]).optional(),
});
export type ClusterResourceSetSpec = z.infer<typeof ClusterResourceSetSpec>;

export const ClusterResourceSetStatus = z.object({
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().min(1).optional(),
  deprecated: z.object({ v1beta1: z.object({ conditions: V1Beta1Conditions.optional() }).optional() }).optional(),
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
  name: z.string().min(1).max(253),
  kind: z.enum(['Secret', 'ConfigMap']),
  /** `sha256:<hex>` of the resource's data; omitted (upstream: empty) when the data could not be read. */
  hash: z.string().min(1).max(256).optional(),
  lastAppliedTime: timestamp().optional(),
  applied: z.boolean(),
});
export type ResourceBinding = z.infer<typeof ResourceBinding>;

export const ResourceSetBinding = z.object({
  clusterResourceSetName: z.string().min(1).max(253),
  resources: z.array(ResourceBinding).max(100).optional(),
});
export type ResourceSetBinding = z.infer<typeof ResourceSetBinding>;

export const ClusterResourceSetBindingSpec = z.object({
  bindings: z.array(ResourceSetBinding).max(100).optional(),
  /**
   * Name of the Cluster this binding belongs to. Required upstream, but a v1beta1 binding from before v1.4 has none
   * (upstream's conversion leaves it empty), so it is optional here: reads and admission reviews of one still parse.
   */
  clusterName: z.string().min(1).max(63).optional(),
});
export type ClusterResourceSetBindingSpec = z.infer<typeof ClusterResourceSetBindingSpec>;

export const ClusterResourceSetBinding = z.object({
  apiVersion: z.literal(AddonsApiVersion),
  kind: z.literal('ClusterResourceSetBinding'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetBindingSpec,
});
export type ClusterResourceSetBinding = z.infer<typeof ClusterResourceSetBinding>;
