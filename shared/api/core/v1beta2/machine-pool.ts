// `cluster.x-k8s.io/v1beta2` MachinePool.
import * as z from 'zod';
import { KubeObjectMeta, ObjectReference } from '#shared/api/object-meta.ts';
import { Conditions, StatusVersion, V1Beta1Conditions } from '#shared/api/core/v1beta2/common.ts';
import { MachineTemplateSpec } from '#shared/api/core/v1beta2/machine.ts';

export const MachinePoolSpec = z.object({
  clusterName: z.string().min(1).max(63),
  replicas: z.number().int().optional(),
  template: MachineTemplateSpec,
  providerIDList: z.array(z.string().min(1).max(512)).max(10000).optional(),
  failureDomains: z.array(z.string().min(1).max(256)).max(100).optional(),
});
export type MachinePoolSpec = z.infer<typeof MachinePoolSpec>;

export const MachinePoolStatus = z.object({
  conditions: Conditions.optional(),
  initialization: z
    .object({
      infrastructureProvisioned: z.boolean().optional(),
      bootstrapDataSecretCreated: z.boolean().optional(),
    })
    .optional(),
  nodeRefs: z.array(ObjectReference).optional(),
  replicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  availableReplicas: z.number().int().optional(),
  upToDateReplicas: z.number().int().optional(),
  versions: z.array(StatusVersion).optional(),
  phase: z.string().optional(),
  observedGeneration: z.number().int().optional(),
  deprecated: z
    .object({
      v1beta1: z
        .object({
          conditions: V1Beta1Conditions.optional(),
          failureReason: z.string().optional(),
          failureMessage: z.string().optional(),
          readyReplicas: z.number().int().optional(),
          availableReplicas: z.number().int().optional(),
          unavailableReplicas: z.number().int().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type MachinePoolStatus = z.infer<typeof MachinePoolStatus>;

export const MachinePool = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('MachinePool'),
  metadata: KubeObjectMeta,
  spec: MachinePoolSpec,
  status: MachinePoolStatus.optional(),
});
export type MachinePool = z.infer<typeof MachinePool>;
