// `cluster.x-k8s.io/v1beta2` MachineDeployment.
import * as z from 'zod';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { intOrString, timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import {
  Conditions,
  MachineSetDeletionOrder,
  StatusVersion,
  V1Beta1Conditions,
} from '#shared/api/core/v1beta2/common.ts';
import { MachineTemplateSpec } from '#shared/api/core/v1beta2/machine.ts';

export const MachineDeploymentRolloutStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']),
  rollingUpdate: z.object({ maxUnavailable: intOrString().optional(), maxSurge: intOrString().optional() }).optional(),
});
export type MachineDeploymentRolloutStrategy = z.infer<typeof MachineDeploymentRolloutStrategy>;

export const MachineDeploymentRolloutSpec = z.object({
  after: timestamp().optional(),
  strategy: MachineDeploymentRolloutStrategy.optional(),
});
export type MachineDeploymentRolloutSpec = z.infer<typeof MachineDeploymentRolloutSpec>;

/** `MachineNamingSpec` (`spec.machineNaming`). */
export const MachineNamingSpec = z.object({ template: z.string().min(1).max(256).optional() });

export const MachineDeploymentSpec = z.object({
  clusterName: z.string().min(1).max(63),
  replicas: z.number().int().optional(),
  rollout: MachineDeploymentRolloutSpec.optional(),
  selector: LabelSelector,
  template: MachineTemplateSpec,
  machineNaming: MachineNamingSpec.optional(),
  remediation: z.object({ maxInFlight: intOrString().optional() }).optional(),
  deletion: z.object({ order: MachineSetDeletionOrder.optional() }).optional(),
  paused: z.boolean().optional(),
});
export type MachineDeploymentSpec = z.infer<typeof MachineDeploymentSpec>;

export const MachineDeploymentStatus = z.object({
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().optional(),
  selector: z.string().optional(),
  replicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  availableReplicas: z.number().int().optional(),
  upToDateReplicas: z.number().int().optional(),
  versions: z.array(StatusVersion).optional(),
  phase: z.string().optional(),
  deprecated: z
    .object({
      v1beta1: z
        .object({
          conditions: V1Beta1Conditions.optional(),
          updatedReplicas: z.number().int().optional(),
          readyReplicas: z.number().int().optional(),
          availableReplicas: z.number().int().optional(),
          unavailableReplicas: z.number().int().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type MachineDeploymentStatus = z.infer<typeof MachineDeploymentStatus>;

export const MachineDeployment = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('MachineDeployment'),
  metadata: KubeObjectMeta,
  spec: MachineDeploymentSpec,
  status: MachineDeploymentStatus.optional(),
});
export type MachineDeployment = z.infer<typeof MachineDeployment>;
