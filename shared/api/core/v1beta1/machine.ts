// The machine template shared by MachineDeployments and MachinePools (`cluster.x-k8s.io/v1beta1` MachineTemplateSpec).
import * as z from 'zod';
import { duration } from '#shared/api/meta.ts';
import { ObjectMeta, ObjectReference } from '#shared/api/object-meta.ts';

export const Bootstrap = z.object({
  configRef: ObjectReference.optional(),
  dataSecretName: z.string().optional(),
});

export const MachineSpec = z.object({
  clusterName: z.string().min(1),
  bootstrap: Bootstrap,
  infrastructureRef: ObjectReference,
  version: z.string().optional(),
  providerID: z.string().optional(),
  failureDomain: z.string().optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
});
export type MachineSpec = z.infer<typeof MachineSpec>;

export const MachineTemplateSpec = z.object({
  metadata: ObjectMeta.optional(),
  spec: MachineSpec,
});
export type MachineTemplateSpec = z.infer<typeof MachineTemplateSpec>;
