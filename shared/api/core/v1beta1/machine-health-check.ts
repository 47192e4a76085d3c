// `cluster.x-k8s.io/v1beta1` MachineHealthCheck, and the health-check settings a ClusterClass or topology carries.
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { duration, intOrString } from '#shared/api/meta.ts';
import { KubeObjectMeta, ObjectReference } from '#shared/api/object-meta.ts';

export const UnhealthyCondition = z.object({
  type: z.string().min(1),
  status: z.string().min(1),
  timeout: duration(),
});
export type UnhealthyCondition = z.infer<typeof UnhealthyCondition>;

/** The fields shared by `MachineHealthCheckClass`, `MachineHealthCheckTopology` and `MachineHealthCheckSpec`. */
export const machineHealthCheckClassShape = {
  unhealthyConditions: z.array(UnhealthyCondition).optional(),
  maxUnhealthy: intOrString().optional(),
  unhealthyRange: z.string().optional(),
  nodeStartupTimeout: duration().optional(),
  remediationTemplate: ObjectReference.optional(),
};

export const MachineHealthCheckClass = z.object(machineHealthCheckClassShape);
export type MachineHealthCheckClass = z.infer<typeof MachineHealthCheckClass>;

export const MachineHealthCheckTopology = z.object({ enable: z.boolean().optional(), ...machineHealthCheckClassShape });
export type MachineHealthCheckTopology = z.infer<typeof MachineHealthCheckTopology>;

export const MachineHealthCheckSpec = z.object({
  clusterName: z.string().min(1),
  selector: LabelSelector,
  ...machineHealthCheckClassShape,
});
export type MachineHealthCheckSpec = z.infer<typeof MachineHealthCheckSpec>;

export const MachineHealthCheckStatus = z.object({
  expectedMachines: z.number().int().optional(),
  currentHealthy: z.number().int().optional(),
  remediationsAllowed: z.number().int().optional(),
  observedGeneration: z.number().int().optional(),
  targets: z.array(z.string()).optional(),
  conditions: Conditions.optional(),
});

export const MachineHealthCheck = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta1'),
  kind: z.literal('MachineHealthCheck'),
  metadata: KubeObjectMeta,
  spec: MachineHealthCheckSpec,
  status: MachineHealthCheckStatus.optional(),
});
export type MachineHealthCheck = z.infer<typeof MachineHealthCheck>;
