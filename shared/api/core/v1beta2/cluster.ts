// `cluster.x-k8s.io/v1beta2` Cluster, with the managed topology (`spec.topology`) a ClusterClass stamps out.
import * as z from 'zod';
import { intOrString, listMap, timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta, ObjectMeta, StringMap } from '#shared/api/object-meta.ts';
import {
  AvailabilityGates,
  Conditions,
  ContractVersionedObjectReference,
  MachineSetDeletionOrder,
  MachineTaints,
  ReadinessGates,
  StatusVersion,
  V1Beta1Conditions,
  int32,
  machineDeletionTimeoutsShape,
  objectName,
  seconds,
} from '#shared/api/core/v1beta2/common.ts';
import {
  ControlPlaneTopologyHealthCheck,
  MachineDeploymentTopologyHealthCheck,
} from '#shared/api/core/v1beta2/machine-health-check.ts';
import { ClusterVariables, VariableOverrides } from '#shared/api/core/v1beta2/variables.ts';

/** `spec.topology.classRef`: the ClusterClass, in the Cluster's namespace unless `namespace` says otherwise. */
export const ClusterClassRef = z.object({
  name: objectName(),
  namespace: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .optional(),
});
export type ClusterClassRef = z.infer<typeof ClusterClassRef>;

export const ControlPlaneTopology = z.object({
  metadata: ObjectMeta.optional(),
  replicas: int32().optional(),
  rollout: z.object({ after: timestamp().optional() }).optional(),
  healthCheck: ControlPlaneTopologyHealthCheck.optional(),
  deletion: z.object(machineDeletionTimeoutsShape).optional(),
  taints: MachineTaints.optional(),
  readinessGates: ReadinessGates.optional(),
  variables: VariableOverrides.optional(),
});
export type ControlPlaneTopology = z.infer<typeof ControlPlaneTopology>;

/** A topology name: usable as a label value and a name part. */
const topologyName = () =>
  z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a DNS-1123 subdomain');

export const MachineDeploymentTopologyRolloutStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']),
  rollingUpdate: z.object({ maxUnavailable: intOrString().optional(), maxSurge: intOrString().optional() }).optional(),
});
export type MachineDeploymentTopologyRolloutStrategy = z.infer<typeof MachineDeploymentTopologyRolloutStrategy>;

export const MachineDeploymentTopology = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1).max(256),
  name: topologyName(),
  failureDomain: z.string().min(1).max(256).optional(),
  replicas: int32().optional(),
  healthCheck: MachineDeploymentTopologyHealthCheck.optional(),
  deletion: z.object({ order: MachineSetDeletionOrder.optional(), ...machineDeletionTimeoutsShape }).optional(),
  taints: MachineTaints.optional(),
  minReadySeconds: seconds().optional(),
  readinessGates: ReadinessGates.optional(),
  rollout: z
    .object({ after: timestamp().optional(), strategy: MachineDeploymentTopologyRolloutStrategy.optional() })
    .optional(),
  variables: VariableOverrides.optional(),
});
export type MachineDeploymentTopology = z.infer<typeof MachineDeploymentTopology>;

export const MachinePoolTopology = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1).max(256),
  name: topologyName(),
  failureDomains: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
  deletion: z.object(machineDeletionTimeoutsShape).optional(),
  taints: MachineTaints.optional(),
  minReadySeconds: seconds().optional(),
  replicas: int32().optional(),
  variables: VariableOverrides.optional(),
});
export type MachinePoolTopology = z.infer<typeof MachinePoolTopology>;

export const WorkersTopology = z.object({
  machineDeployments: listMap(MachineDeploymentTopology, ['name']).min(1).max(2000).optional(),
  machinePools: listMap(MachinePoolTopology, ['name']).min(1).max(2000).optional(),
});
export type WorkersTopology = z.infer<typeof WorkersTopology>;

export const Topology = z.object({
  classRef: ClusterClassRef,
  version: z.string().min(1).max(256),
  controlPlane: ControlPlaneTopology.optional(),
  workers: WorkersTopology.optional(),
  variables: ClusterVariables.optional(),
});
export type Topology = z.infer<typeof Topology>;

export const NetworkRanges = z.object({ cidrBlocks: z.array(z.string().min(1).max(43)).min(1).max(100) });

export const ClusterNetwork = z.object({
  apiServerPort: int32().min(1).max(65535).optional(),
  services: NetworkRanges.optional(),
  pods: NetworkRanges.optional(),
  serviceDomain: z.string().min(1).max(253).optional(),
});

export const APIEndpoint = z.object({
  host: z.string().min(1).max(512).optional(),
  port: int32().min(1).max(65535).optional(),
});

export const ClusterSpec = z.object({
  paused: z.boolean().optional(),
  clusterNetwork: ClusterNetwork.optional(),
  controlPlaneEndpoint: APIEndpoint.optional(),
  controlPlaneRef: ContractVersionedObjectReference.optional(),
  infrastructureRef: ContractVersionedObjectReference.optional(),
  topology: Topology.optional(),
  availabilityGates: AvailabilityGates.optional(),
});
export type ClusterSpec = z.infer<typeof ClusterSpec>;

export const FailureDomain = z.object({
  name: z.string().min(1).max(256),
  controlPlane: z.boolean().optional(),
  attributes: StringMap.optional(),
});

const replicaCounters = {
  desiredReplicas: z.number().int().optional(),
  replicas: z.number().int().optional(),
  upToDateReplicas: z.number().int().optional(),
  readyReplicas: z.number().int().optional(),
  availableReplicas: z.number().int().optional(),
  versions: z.array(StatusVersion).optional(),
  upgradePlan: z.array(z.object({ version: z.string() })).optional(),
};

export const ClusterStatus = z.object({
  conditions: Conditions.optional(),
  initialization: z
    .object({
      infrastructureProvisioned: z.boolean().optional(),
      controlPlaneInitialized: z.boolean().optional(),
    })
    .optional(),
  controlPlane: z.object(replicaCounters).optional(),
  workers: z.object(replicaCounters).optional(),
  failureDomains: listMap(FailureDomain, ['name']).optional(),
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
export type ClusterStatus = z.infer<typeof ClusterStatus>;

export const Cluster = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('Cluster'),
  metadata: KubeObjectMeta,
  spec: ClusterSpec.optional(),
  status: ClusterStatus.optional(),
});
export type Cluster = z.infer<typeof Cluster>;
