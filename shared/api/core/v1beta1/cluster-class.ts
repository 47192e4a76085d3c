// `cluster.x-k8s.io/v1beta1` ClusterClass: the blueprint (templates, variables, patches) a managed topology is built from.
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import { duration, listMap, preserveUnknown } from '#shared/api/meta.ts';
import { MachineDeploymentStrategy } from '#shared/api/core/v1beta1/machine-deployment.ts';
import { MachineHealthCheckClass } from '#shared/api/core/v1beta1/machine-health-check.ts';
import { KubeObjectMeta, ObjectMeta, ObjectReference, StringMap } from '#shared/api/object-meta.ts';
import { ClusterClassStatusVariable, ClusterClassVariable } from '#shared/api/core/v1beta1/variables.ts';

const int32 = () => z.number().int().min(-2147483648).max(2147483647);

/** A reference to a template in the ClusterClass's namespace. */
export const LocalObjectTemplate = z.object({ ref: ObjectReference });
export type LocalObjectTemplate = z.infer<typeof LocalObjectTemplate>;

export const NamingStrategy = z.object({ template: z.string().optional() });

export const ControlPlaneClass = z.object({
  metadata: ObjectMeta.optional(),
  ref: ObjectReference,
  machineInfrastructure: LocalObjectTemplate.optional(),
  machineHealthCheck: MachineHealthCheckClass.optional(),
  namingStrategy: NamingStrategy.optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
});
export type ControlPlaneClass = z.infer<typeof ControlPlaneClass>;

export const MachineDeploymentClass = z.object({
  class: z.string().min(1),
  template: z.object({
    metadata: ObjectMeta.optional(),
    bootstrap: LocalObjectTemplate,
    infrastructure: LocalObjectTemplate,
  }),
  machineHealthCheck: MachineHealthCheckClass.optional(),
  failureDomain: z.string().optional(),
  namingStrategy: NamingStrategy.optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
  minReadySeconds: int32().optional(),
  strategy: MachineDeploymentStrategy.optional(),
});
export type MachineDeploymentClass = z.infer<typeof MachineDeploymentClass>;

export const MachinePoolClass = z.object({
  class: z.string().min(1),
  template: z.object({
    metadata: ObjectMeta.optional(),
    bootstrap: LocalObjectTemplate,
    infrastructure: LocalObjectTemplate,
  }),
  failureDomains: z.array(z.string()).optional(),
  namingStrategy: NamingStrategy.optional(),
  nodeDrainTimeout: duration().optional(),
  nodeVolumeDetachTimeout: duration().optional(),
  nodeDeletionTimeout: duration().optional(),
  minReadySeconds: int32().optional(),
});
export type MachinePoolClass = z.infer<typeof MachinePoolClass>;

export const WorkersClass = z.object({
  machineDeployments: listMap(MachineDeploymentClass, ['class']).optional(),
  machinePools: listMap(MachinePoolClass, ['class']).optional(),
});

export const JSONPatch = z.object({
  op: z.enum(['add', 'replace', 'remove']),
  path: z.string().min(1),
  value: preserveUnknown().optional(),
  valueFrom: z.object({ variable: z.string().optional(), template: z.string().optional() }).optional(),
});
export type JSONPatch = z.infer<typeof JSONPatch>;

export const PatchSelector = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  matchResources: z.object({
    controlPlane: z.boolean().optional(),
    infrastructureCluster: z.boolean().optional(),
    machineDeploymentClass: z.object({ names: z.array(z.string()).optional() }).optional(),
    machinePoolClass: z.object({ names: z.array(z.string()).optional() }).optional(),
  }),
});
export type PatchSelector = z.infer<typeof PatchSelector>;

export const PatchDefinition = z.object({
  selector: PatchSelector,
  jsonPatches: z.array(JSONPatch),
});
export type PatchDefinition = z.infer<typeof PatchDefinition>;

export const ClusterClassPatch = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  enabledIf: z.string().optional(),
  definitions: z.array(PatchDefinition).optional(),
  external: z
    .object({
      generateExtension: z.string().optional(),
      validateExtension: z.string().optional(),
      discoverVariablesExtension: z.string().optional(),
      settings: StringMap.optional(),
    })
    .optional(),
});
export type ClusterClassPatch = z.infer<typeof ClusterClassPatch>;

export const ClusterClassSpec = z.object({
  infrastructure: LocalObjectTemplate.optional(),
  controlPlane: ControlPlaneClass.optional(),
  workers: WorkersClass.optional(),
  variables: z.array(ClusterClassVariable).optional(),
  patches: z.array(ClusterClassPatch).optional(),
});
export type ClusterClassSpec = z.infer<typeof ClusterClassSpec>;

export const ClusterClassStatus = z.object({
  variables: z.array(ClusterClassStatusVariable).optional(),
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().optional(),
});
export type ClusterClassStatus = z.infer<typeof ClusterClassStatus>;

export const ClusterClass = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta1'),
  kind: z.literal('ClusterClass'),
  metadata: KubeObjectMeta,
  spec: ClusterClassSpec.optional(),
  status: ClusterClassStatus.optional(),
});
export type ClusterClass = z.infer<typeof ClusterClass>;
