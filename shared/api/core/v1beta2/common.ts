// Types `cluster.x-k8s.io/v1beta2` shares across kinds: metav1.Condition, the deprecated v1beta1 status block,
// contract-versioned references, template references, taints, readiness/availability gates and small helpers.
import * as z from 'zod';
import { Condition as V1Beta1Condition } from '#shared/api/core/v1beta1/condition.ts';
import { listMap, timestamp } from '#shared/api/meta.ts';

/** `int32` as the API server bounds it. */
export const int32 = () => z.number().int().min(-2147483648).max(2147483647);
/** A non-negative `int32` (every `*Seconds` field of v1beta2). */
export const seconds = () => int32().min(0);

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const kindPattern = /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;
const apiVersionPattern =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[a-z]([-a-z0-9]*[a-z0-9])?$/;
const conditionTypePattern =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;

/** An object name (DNS-1123 subdomain). */
export const objectName = () => z.string().min(1).max(253).regex(dns1123Subdomain, 'must be a DNS-1123 subdomain');

/** `metav1.Condition`: the v1beta2 condition shape (reason and message always present). */
export const Condition = z.object({
  type: z.string().min(1).max(316).regex(conditionTypePattern),
  status: z.enum(['True', 'False', 'Unknown']),
  observedGeneration: z.number().int().min(0).optional(),
  lastTransitionTime: timestamp(),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string().max(32768),
});
export type Condition = z.infer<typeof Condition>;

/** `status.conditions` of every v1beta2 kind: a list-map keyed by type, at most 32 entries. */
export const Conditions = listMap(Condition, ['type']).max(32);

/** The v1beta1 conditions upstream keeps writing under `status.deprecated.v1beta1.conditions`. */
export const V1Beta1Conditions = z.array(V1Beta1Condition);
export { V1Beta1Condition };

/**
 * `ContractVersionedObjectReference`: a reference to a provider object without a version; the version comes from the
 * contract label on the provider's CRD.
 */
export const ContractVersionedObjectReference = z.object({
  kind: z.string().min(1).max(63).regex(kindPattern),
  name: objectName(),
  apiGroup: z.string().min(1).max(253).regex(dns1123Subdomain),
});
export type ContractVersionedObjectReference = z.infer<typeof ContractVersionedObjectReference>;

/** `ClusterClassTemplateReference` (also the shape of `MachineHealthCheckRemediationTemplateReference`). */
export const ClusterClassTemplateReference = z.object({
  kind: z.string().min(1).max(63).regex(kindPattern),
  name: objectName(),
  apiVersion: z.string().min(1).max(317).regex(apiVersionPattern),
});
export type ClusterClassTemplateReference = z.infer<typeof ClusterClassTemplateReference>;

export const MachineHealthCheckRemediationTemplateReference = ClusterClassTemplateReference;
export type MachineHealthCheckRemediationTemplateReference = ClusterClassTemplateReference;

export const ConditionPolarity = z.enum(['Positive', 'Negative']);

const conditionType = () => z.string().min(1).max(316).regex(conditionTypePattern);

/** `ClusterAvailabilityGate` (`spec.availabilityGates[]` of Cluster and ClusterClass). */
export const ClusterAvailabilityGate = z.object({
  conditionType: conditionType(),
  polarity: ConditionPolarity.optional(),
});
export type ClusterAvailabilityGate = z.infer<typeof ClusterAvailabilityGate>;
export const AvailabilityGates = listMap(ClusterAvailabilityGate, ['conditionType']).min(1).max(32);

/** `MachineReadinessGate`. */
export const MachineReadinessGate = z.object({
  conditionType: conditionType(),
  polarity: ConditionPolarity.optional(),
});
export type MachineReadinessGate = z.infer<typeof MachineReadinessGate>;
export const ReadinessGates = listMap(MachineReadinessGate, ['conditionType']).min(1).max(32);

/** `MachineTaint`. */
export const MachineTaint = z.object({
  key: z
    .string()
    .min(1)
    .max(317)
    .regex(
      /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/,
    ),
  value: z
    .string()
    .min(1)
    .max(63)
    .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/)
    .optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  propagation: z.enum(['Always', 'OnInitialization']),
});
export type MachineTaint = z.infer<typeof MachineTaint>;
export const MachineTaints = listMap(MachineTaint, ['key', 'effect']).min(1).max(64);

/** Node deletion timeouts (`MachineDeletionSpec` and the topology/class variants). */
export const machineDeletionTimeoutsShape = {
  nodeDrainTimeoutSeconds: seconds().optional(),
  nodeVolumeDetachTimeoutSeconds: seconds().optional(),
  nodeDeletionTimeoutSeconds: seconds().optional(),
};

/** `MachineSetDeletionOrder`. */
export const MachineSetDeletionOrder = z.enum(['Random', 'Newest', 'Oldest']);

/** `StatusVersion`. */
export const StatusVersion = z.object({ version: z.string().min(1).max(256), replicas: int32().optional() });
