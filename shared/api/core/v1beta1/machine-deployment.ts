// `cluster.x-k8s.io/v1beta1` MachineDeployment.
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { intOrString, timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { MachineTemplateSpec } from '#shared/api/core/v1beta1/machine.ts';

const int32 = () => z.number().int().min(-2147483648).max(2147483647);

export const MachineDeploymentStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']).optional(),
  rollingUpdate: z
    .object({
      maxUnavailable: intOrString().optional(),
      maxSurge: intOrString().optional(),
      deletePolicy: z.enum(['Random', 'Newest', 'Oldest']).optional(),
    })
    .optional(),
  remediation: z.object({ maxInFlight: intOrString().optional() }).optional(),
});
export type MachineDeploymentStrategy = z.infer<typeof MachineDeploymentStrategy>;

export const MachineDeploymentSpec = z.object({
  clusterName: z.string().min(1),
  replicas: int32().optional(),
  rolloutAfter: timestamp().optional(),
  selector: LabelSelector,
  template: MachineTemplateSpec,
  strategy: MachineDeploymentStrategy.optional(),
  minReadySeconds: int32().optional(),
  revisionHistoryLimit: int32().optional(),
  paused: z.boolean().optional(),
  progressDeadlineSeconds: int32().optional(),
});
export type MachineDeploymentSpec = z.infer<typeof MachineDeploymentSpec>;

export const MachineDeploymentStatus = z.object({
  observedGeneration: z.number().int().optional(),
  selector: z.string().optional(),
  replicas: z.number().int().optional(),
  updatedReplicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  availableReplicas: z.number().int().optional(),
  unavailableReplicas: z.number().int().optional(),
  phase: z.string().optional(),
  conditions: Conditions.optional(),
});
export type MachineDeploymentStatus = z.infer<typeof MachineDeploymentStatus>;

export const MachineDeployment = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta1'),
  kind: z.literal('MachineDeployment'),
  metadata: KubeObjectMeta,
  spec: MachineDeploymentSpec,
  status: MachineDeploymentStatus.optional(),
});
export type MachineDeployment = z.infer<typeof MachineDeployment>;
