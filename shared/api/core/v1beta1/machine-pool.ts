// `cluster.x-k8s.io/v1beta1` MachinePool (upstream serves it from the exp API package under the core group).
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { KubeObjectMeta, ObjectReference } from '#shared/api/object-meta.ts';
import { MachineTemplateSpec } from '#shared/api/core/v1beta1/machine.ts';

export const MachinePoolSpec = z.object({
  clusterName: z.string().min(1),
  replicas: z.number().int().optional(),
  template: MachineTemplateSpec,
  minReadySeconds: z.number().int().optional(),
  providerIDList: z.array(z.string()).optional(),
  failureDomains: z.array(z.string()).optional(),
});
export type MachinePoolSpec = z.infer<typeof MachinePoolSpec>;

export const MachinePoolStatus = z.object({
  nodeRefs: z.array(ObjectReference).optional(),
  replicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  availableReplicas: z.number().int().optional(),
  unavailableReplicas: z.number().int().optional(),
  failureReason: z.string().optional(),
  failureMessage: z.string().optional(),
  phase: z.string().optional(),
  bootstrapReady: z.boolean().optional(),
  infrastructureReady: z.boolean().optional(),
  observedGeneration: z.number().int().optional(),
  conditions: Conditions.optional(),
});

export const MachinePool = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta1'),
  kind: z.literal('MachinePool'),
  metadata: KubeObjectMeta,
  spec: MachinePoolSpec,
  status: MachinePoolStatus.optional(),
});
export type MachinePool = z.infer<typeof MachinePool>;
