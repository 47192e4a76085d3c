// `cluster.x-k8s.io/v1beta1` Cluster, with the managed topology (`spec.topology`) a ClusterClass stamps out.
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { duration, listMap, timestamp } from '#shared/api/meta.ts';
import { MachineDeploymentStrategy } from '#shared/api/core/v1beta1/machine-deployment.ts';
import { MachineHealthCheckTopology } from '#shared/api/core/v1beta1/machine-health-check.ts';
import { KubeObjectMeta, ObjectMeta, ObjectReference, StringMap } from '#shared/api/object-meta.ts';
import { ClusterVariable } from '#shared/api/core/v1beta1/variables.ts';

const int32 = () => z.number().int().min(-2147483648).max(2147483647);

/** Per-topology variable overrides (`variables.overrides`, a list-map keyed by name). */
export const VariableOverrides = z.object({ overrides: listMap(ClusterVariable, ['name']).optional() });

export const ControlPlaneTopology = z.object({
  metadata: ObjectMeta.optional(),
  replicas: int32().optional(),
  machineHealthCheck: MachineHealthCheckTopology.optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
  variables: VariableOverrides.optional(),
});
export type ControlPlaneTopology = z.infer<typeof ControlPlaneTopology>;

/** A name usable as a Kubernetes label value and a name part (upstream: DNS-1123 subdomain-ish, at most 63 chars). */
const topologyName = () =>
  z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must consist of lower case alphanumeric characters, "-" or "."');

export const MachineDeploymentTopology = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1),
  name: topologyName(),
  failureDomain: z.string().optional(),
  replicas: int32().optional(),
  machineHealthCheck: MachineHealthCheckTopology.optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
  minReadySeconds: int32().optional(),
  strategy: MachineDeploymentStrategy.optional(),
  variables: VariableOverrides.optional(),
});
export type MachineDeploymentTopology = z.infer<typeof MachineDeploymentTopology>;

export const MachinePoolTopology = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1),
  name: topologyName(),
  failureDomains: z.array(z.string()).optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
  minReadySeconds: int32().optional(),
  replicas: int32().optional(),
  variables: VariableOverrides.optional(),
});
export type MachinePoolTopology = z.infer<typeof MachinePoolTopology>;

export const WorkersTopology = z.object({
  machineDeployments: listMap(MachineDeploymentTopology, ['name']).optional(),
  machinePools: listMap(MachinePoolTopology, ['name']).optional(),
});
export type WorkersTopology = z.infer<typeof WorkersTopology>;

export const Topology = z.object({
  class: z.string().min(1),
  version: z.string().min(1),
  rolloutAfter: timestamp().optional(),
  controlPlane: ControlPlaneTopology.optional(),
  workers: WorkersTopology.optional(),
  variables: listMap(ClusterVariable, ['name']).optional(),
});
export type Topology = z.infer<typeof Topology>;

export const NetworkRanges = z.object({ cidrBlocks: z.array(z.string()) });

export const ClusterNetwork = z.object({
  apiServerPort: int32().optional(),
  services: NetworkRanges.optional(),
  pods: NetworkRanges.optional(),
  serviceDomain: z.string().optional(),
});

export const APIEndpoint = z.object({ host: z.string(), port: int32() });

export const ClusterSpec = z.object({
  paused: z.boolean().optional(),
  clusterNetwork: ClusterNetwork.optional(),
  controlPlaneEndpoint: APIEndpoint.optional(),
  controlPlaneRef: ObjectReference.optional(),
  infrastructureRef: ObjectReference.optional(),
  topology: Topology.optional(),
});
export type ClusterSpec = z.infer<typeof ClusterSpec>;

export const FailureDomainSpec = z.object({
  controlPlane: z.boolean().optional(),
  attributes: StringMap.optional(),
});

export const ClusterStatus = z.object({
  failureDomains: z.record(z.string(), FailureDomainSpec).optional(),
  failureReason: z.string().optional(),
  failureMessage: z.string().optional(),
  phase: z.string().optional(),
  infrastructureReady: z.boolean().optional(),
  controlPlaneReady: z.boolean().optional(),
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().optional(),
});
export type ClusterStatus = z.infer<typeof ClusterStatus>;

export const Cluster = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta1'),
  kind: z.literal('Cluster'),
  metadata: KubeObjectMeta,
  spec: ClusterSpec.optional(),
  status: ClusterStatus.optional(),
});
export type Cluster = z.infer<typeof Cluster>;
