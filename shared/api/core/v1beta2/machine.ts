// `cluster.x-k8s.io/v1beta2` Machine, and the MachineTemplateSpec shared by MachineDeployments and MachinePools.
import * as z from 'zod';
import { timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta, ObjectMeta } from '#shared/api/object-meta.ts';
import {
  Conditions,
  ContractVersionedObjectReference,
  MachineTaints,
  ReadinessGates,
  V1Beta1Conditions,
  machineDeletionTimeoutsShape,
  seconds,
} from '#shared/api/core/v1beta2/common.ts';

export const Bootstrap = z.object({
  configRef: ContractVersionedObjectReference.optional(),
  dataSecretName: z.string().max(253).optional(),
});
export type Bootstrap = z.infer<typeof Bootstrap>;

export const MachineDeletionSpec = z.object(machineDeletionTimeoutsShape);
export type MachineDeletionSpec = z.infer<typeof MachineDeletionSpec>;

export const MachineSpec = z.object({
  clusterName: z.string().min(1).max(63),
  bootstrap: Bootstrap,
  infrastructureRef: ContractVersionedObjectReference,
  version: z.string().min(1).max(256).optional(),
  providerID: z.string().min(1).max(512).optional(),
  failureDomain: z.string().min(1).max(256).optional(),
  minReadySeconds: seconds().optional(),
  readinessGates: ReadinessGates.optional(),
  deletion: MachineDeletionSpec.optional(),
  taints: MachineTaints.optional(),
});
export type MachineSpec = z.infer<typeof MachineSpec>;

export const MachineTemplateSpec = z.object({
  metadata: ObjectMeta.optional(),
  spec: MachineSpec,
});
export type MachineTemplateSpec = z.infer<typeof MachineTemplateSpec>;

export const MachineStatus = z.object({
  conditions: Conditions.optional(),
  initialization: z
    .object({
      infrastructureProvisioned: z.boolean().optional(),
      bootstrapDataSecretCreated: z.boolean().optional(),
    })
    .optional(),
  nodeRef: z.object({ name: z.string() }).optional(),
  lastUpdated: timestamp().optional(),
  failureDomain: z.string().optional(),
  phase: z.string().optional(),
  observedGeneration: z.number().int().optional(),
  deprecated: z
    .object({
      v1beta1: z
        .object({
          conditions: V1Beta1Conditions.optional(),
          failureReason: z.string().optional(),
          failureMessage: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});

export const Machine = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('Machine'),
  metadata: KubeObjectMeta,
  spec: MachineSpec,
  status: z.looseObject(MachineStatus.shape).optional(),
});
export type Machine = z.infer<typeof Machine>;
