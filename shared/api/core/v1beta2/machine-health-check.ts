// `cluster.x-k8s.io/v1beta2` MachineHealthCheck, and the health-check settings a ClusterClass or topology carries
// (`healthCheck.checks` / `healthCheck.remediation`).
import * as z from 'zod';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { intOrString, listAtomic } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import {
  Conditions,
  MachineHealthCheckRemediationTemplateReference,
  V1Beta1Conditions,
  seconds,
} from '#shared/api/core/v1beta2/common.ts';

export const UnhealthyNodeCondition = z.object({
  type: z.string().min(1),
  status: z.string().min(1),
  timeoutSeconds: seconds(),
});
export type UnhealthyNodeCondition = z.infer<typeof UnhealthyNodeCondition>;

export const UnhealthyMachineCondition = z.object({
  type: z.string().min(1).max(316),
  status: z.enum(['True', 'False', 'Unknown']),
  timeoutSeconds: seconds(),
});
export type UnhealthyMachineCondition = z.infer<typeof UnhealthyMachineCondition>;

/** `checks`: shared by MachineHealthCheck, ControlPlane/MachineDeployment class and topology health checks. */
export const MachineHealthCheckChecks = z.object({
  nodeStartupTimeoutSeconds: seconds().optional(),
  unhealthyNodeConditions: listAtomic(UnhealthyNodeCondition).min(1).max(100).optional(),
  unhealthyMachineConditions: listAtomic(UnhealthyMachineCondition).min(1).max(100).optional(),
});
export type MachineHealthCheckChecks = z.infer<typeof MachineHealthCheckChecks>;

export const RemediationTriggerIf = z.object({
  unhealthyLessThanOrEqualTo: intOrString().optional(),
  unhealthyInRange: z
    .string()
    .min(1)
    .max(32)
    .regex(/^\[[0-9]+-[0-9]+\]$/)
    .optional(),
});
export type RemediationTriggerIf = z.infer<typeof RemediationTriggerIf>;

/** `remediation` of MachineHealthCheck and of control-plane health checks. */
export const MachineHealthCheckRemediation = z.object({
  triggerIf: RemediationTriggerIf.optional(),
  templateRef: MachineHealthCheckRemediationTemplateReference.optional(),
});
export type MachineHealthCheckRemediation = z.infer<typeof MachineHealthCheckRemediation>;

/** `remediation` of MachineDeployment class and topology health checks (adds `maxInFlight`). */
export const MachineDeploymentHealthCheckRemediation = z.object({
  maxInFlight: intOrString().optional(),
  ...MachineHealthCheckRemediation.shape,
});
export type MachineDeploymentHealthCheckRemediation = z.infer<typeof MachineDeploymentHealthCheckRemediation>;

/** `ControlPlaneClassHealthCheck`. */
export const ControlPlaneClassHealthCheck = z.object({
  checks: MachineHealthCheckChecks.optional(),
  remediation: MachineHealthCheckRemediation.optional(),
});
export type ControlPlaneClassHealthCheck = z.infer<typeof ControlPlaneClassHealthCheck>;

/** `ControlPlaneTopologyHealthCheck`. */
export const ControlPlaneTopologyHealthCheck = z.object({
  enabled: z.boolean().optional(),
  ...ControlPlaneClassHealthCheck.shape,
});
export type ControlPlaneTopologyHealthCheck = z.infer<typeof ControlPlaneTopologyHealthCheck>;

/** `MachineDeploymentClassHealthCheck`. */
export const MachineDeploymentClassHealthCheck = z.object({
  checks: MachineHealthCheckChecks.optional(),
  remediation: MachineDeploymentHealthCheckRemediation.optional(),
});
export type MachineDeploymentClassHealthCheck = z.infer<typeof MachineDeploymentClassHealthCheck>;

/** `MachineDeploymentTopologyHealthCheck`. */
export const MachineDeploymentTopologyHealthCheck = z.object({
  enabled: z.boolean().optional(),
  ...MachineDeploymentClassHealthCheck.shape,
});
export type MachineDeploymentTopologyHealthCheck = z.infer<typeof MachineDeploymentTopologyHealthCheck>;

export const MachineHealthCheckSpec = z.object({
  clusterName: z.string().min(1).max(63),
  selector: LabelSelector,
  checks: MachineHealthCheckChecks.optional(),
  remediation: MachineHealthCheckRemediation.optional(),
});
export type MachineHealthCheckSpec = z.infer<typeof MachineHealthCheckSpec>;

export const MachineHealthCheckStatus = z.object({
  conditions: Conditions.optional(),
  expectedMachines: z.number().int().optional(),
  currentHealthy: z.number().int().optional(),
  remediationsAllowed: z.number().int().optional(),
  observedGeneration: z.number().int().optional(),
  targets: z.array(z.string()).optional(),
  deprecated: z.object({ v1beta1: z.object({ conditions: V1Beta1Conditions.optional() }).optional() }).optional(),
});

export const MachineHealthCheck = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('MachineHealthCheck'),
  metadata: KubeObjectMeta,
  spec: MachineHealthCheckSpec,
  status: MachineHealthCheckStatus.optional(),
});
export type MachineHealthCheck = z.infer<typeof MachineHealthCheck>;
