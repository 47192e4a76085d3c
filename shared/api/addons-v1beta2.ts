// `addons.cluster.x-k8s.io/v1beta2` ClusterResourceSet and ClusterResourceSetBinding, as upstream v1.14 stores them:
// metav1 conditions in `status.conditions`, the v1beta1 ones under `status.deprecated.v1beta1`, `applied` a pointer.
// NOTE: the addons pass still works on the v1beta1 shapes in addons.ts; these are the shapes it moves to.
import * as z from 'zod';
import { ClusterResourceSetStrategy } from '#shared/api/addons.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { Conditions, V1Beta1Conditions } from '#shared/api/v1beta2/common.ts';

export const AddonsV1Beta2ApiVersion = 'addons.cluster.x-k8s.io/v1beta2';

/** Condition types and reasons upstream v1.14 writes on a ClusterResourceSet (`api/addons/v1beta2`). */
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

export const ResourceRefV1Beta2 = z.object({
  name: z.string().min(1).max(253),
  kind: z.enum(['Secret', 'ConfigMap']),
});
export type ResourceRefV1Beta2 = z.infer<typeof ResourceRefV1Beta2>;

export const ClusterResourceSetSpecV1Beta2 = z.object({
  clusterSelector: LabelSelector,
  resources: z.array(ResourceRefV1Beta2).min(1).max(100),
  strategy: z.enum([ClusterResourceSetStrategy.ApplyOnce, ClusterResourceSetStrategy.Reconcile]).optional(),
});

export const ClusterResourceSetStatusV1Beta2 = z.object({
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().min(1).optional(),
  deprecated: z.object({ v1beta1: z.object({ conditions: V1Beta1Conditions.optional() }).optional() }).optional(),
});

export const ClusterResourceSetV1Beta2 = z.object({
  apiVersion: z.literal(AddonsV1Beta2ApiVersion),
  kind: z.literal('ClusterResourceSet'),
  metadata: KubeObjectMeta,
  spec: ClusterResourceSetSpecV1Beta2,
  status: ClusterResourceSetStatusV1Beta2.optional(),
});
export type ClusterResourceSetV1Beta2 = z.infer<typeof ClusterResourceSetV1Beta2>;

export const ResourceBindingV1Beta2 = z.object({
  name: z.string().min(1).max(253),
  kind: z.enum(['Secret', 'ConfigMap']),
  hash: z.string().min(1).max(256).optional(),
  lastAppliedTime: timestamp().optional(),
  applied: z.boolean(),
});

export const ResourceSetBindingV1Beta2 = z.object({
  clusterResourceSetName: z.string().min(1).max(253),
  resources: z.array(ResourceBindingV1Beta2).max(100).optional(),
});

export const ClusterResourceSetBindingV1Beta2 = z.object({
  apiVersion: z.literal(AddonsV1Beta2ApiVersion),
  kind: z.literal('ClusterResourceSetBinding'),
  metadata: KubeObjectMeta,
  spec: z.object({
    bindings: z.array(ResourceSetBindingV1Beta2).max(100).optional(),
    clusterName: z.string().min(1).max(63),
  }),
});
export type ClusterResourceSetBindingV1Beta2 = z.infer<typeof ClusterResourceSetBindingV1Beta2>;
