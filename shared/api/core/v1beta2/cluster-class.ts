// `cluster.x-k8s.io/v1beta2` ClusterClass: the blueprint (templates, variables, patches) a managed topology is built
// from. Templates are referenced with `templateRef` (apiVersion/kind/name in the ClusterClass's namespace).
import * as z from 'zod';
import { intOrString, listMap, preserveUnknown } from '#shared/api/meta.ts';
import { KubeObjectMeta, ObjectMeta, StringMap } from '#shared/api/object-meta.ts';
import {
  AvailabilityGates,
  ClusterClassTemplateReference,
  Conditions,
  MachineSetDeletionOrder,
  MachineTaints,
  ReadinessGates,
  V1Beta1Conditions,
  machineDeletionTimeoutsShape,
  seconds,
} from '#shared/api/core/v1beta2/common.ts';
import {
  ControlPlaneClassHealthCheck,
  MachineDeploymentClassHealthCheck,
} from '#shared/api/core/v1beta2/machine-health-check.ts';
import { ClusterClassStatusVariable, ClusterClassVariables } from '#shared/api/core/v1beta2/variables.ts';

/** `{ templateRef }`: how every template slot of a v1beta2 ClusterClass points at its template. */
export const TemplateSlot = z.object({ templateRef: ClusterClassTemplateReference });
export type TemplateSlot = z.infer<typeof TemplateSlot>;

/** `naming`: a Go template for generated names. */
export const NamingSpec = z.object({ template: z.string().min(1).max(1024).optional() });
export type NamingSpec = z.infer<typeof NamingSpec>;

export const InfrastructureClass = z.object({
  templateRef: ClusterClassTemplateReference,
  naming: NamingSpec.optional(),
});
export type InfrastructureClass = z.infer<typeof InfrastructureClass>;

export const ControlPlaneClass = z.object({
  metadata: ObjectMeta.optional(),
  templateRef: ClusterClassTemplateReference,
  machineInfrastructure: TemplateSlot.optional(),
  healthCheck: ControlPlaneClassHealthCheck.optional(),
  naming: NamingSpec.optional(),
  deletion: z.object(machineDeletionTimeoutsShape).optional(),
  taints: MachineTaints.optional(),
  readinessGates: ReadinessGates.optional(),
});
export type ControlPlaneClass = z.infer<typeof ControlPlaneClass>;

export const MachineDeploymentClassRolloutStrategy = z.object({
  type: z.enum(['RollingUpdate', 'OnDelete']),
  rollingUpdate: z.object({ maxUnavailable: intOrString().optional(), maxSurge: intOrString().optional() }).optional(),
});

export const MachineDeploymentClass = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1).max(256),
  bootstrap: TemplateSlot,
  infrastructure: TemplateSlot,
  healthCheck: MachineDeploymentClassHealthCheck.optional(),
  failureDomain: z.string().min(1).max(256).optional(),
  naming: NamingSpec.optional(),
  deletion: z.object({ order: MachineSetDeletionOrder.optional(), ...machineDeletionTimeoutsShape }).optional(),
  taints: MachineTaints.optional(),
  minReadySeconds: seconds().optional(),
  readinessGates: ReadinessGates.optional(),
  rollout: z.object({ strategy: MachineDeploymentClassRolloutStrategy.optional() }).optional(),
});
export type MachineDeploymentClass = z.infer<typeof MachineDeploymentClass>;

export const MachinePoolClass = z.object({
  metadata: ObjectMeta.optional(),
  class: z.string().min(1).max(256),
  bootstrap: TemplateSlot,
  infrastructure: TemplateSlot,
  failureDomains: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
  naming: NamingSpec.optional(),
  deletion: z.object(machineDeletionTimeoutsShape).optional(),
  taints: MachineTaints.optional(),
  minReadySeconds: seconds().optional(),
});
export type MachinePoolClass = z.infer<typeof MachinePoolClass>;

export const WorkersClass = z.object({
  machineDeployments: listMap(MachineDeploymentClass, ['class']).min(1).max(100).optional(),
  machinePools: listMap(MachinePoolClass, ['class']).min(1).max(100).optional(),
});
export type WorkersClass = z.infer<typeof WorkersClass>;

export const JSONPatch = z.object({
  op: z.enum(['add', 'replace', 'remove']),
  path: z.string().min(1).max(512),
  value: preserveUnknown().optional(),
  valueFrom: z
    .object({
      variable: z.string().min(1).max(256).optional(),
      template: z.string().min(1).max(10240).optional(),
    })
    .optional(),
});
export type JSONPatch = z.infer<typeof JSONPatch>;

export const PatchSelector = z.object({
  apiVersion: z.string().min(1).max(512),
  kind: z.string().min(1).max(256),
  matchResources: z.object({
    controlPlane: z.boolean().optional(),
    infrastructureCluster: z.boolean().optional(),
    machineDeploymentClass: z.object({ names: z.array(z.string().min(1).max(256)).max(100).optional() }).optional(),
    machinePoolClass: z.object({ names: z.array(z.string().min(1).max(256)).max(100).optional() }).optional(),
  }),
});
export type PatchSelector = z.infer<typeof PatchSelector>;

export const PatchDefinition = z.object({
  selector: PatchSelector,
  jsonPatches: z.array(JSONPatch).min(1).max(100),
});
export type PatchDefinition = z.infer<typeof PatchDefinition>;

export const ClusterClassPatch = z.object({
  name: z.string().min(1).max(256),
  description: z.string().min(1).max(1024).optional(),
  enabledIf: z.string().min(1).max(256).optional(),
  definitions: z.array(PatchDefinition).min(1).max(100).optional(),
  external: z
    .object({
      generatePatchesExtension: z.string().min(1).max(512).optional(),
      validateTopologyExtension: z.string().min(1).max(512).optional(),
      discoverVariablesExtension: z.string().min(1).max(512).optional(),
      settings: StringMap.optional(),
    })
    .optional(),
});
export type ClusterClassPatch = z.infer<typeof ClusterClassPatch>;

/** `spec.upgrade`: an external extension that computes the upgrade plan. */
export const ClusterClassUpgrade = z.object({
  external: z.object({ generateUpgradePlanExtension: z.string().min(1).max(512).optional() }).optional(),
});

export const ClusterClassSpec = z.object({
  availabilityGates: AvailabilityGates.optional(),
  infrastructure: InfrastructureClass,
  controlPlane: ControlPlaneClass,
  workers: WorkersClass.optional(),
  variables: ClusterClassVariables.optional(),
  patches: z.array(ClusterClassPatch).min(1).max(1000).optional(),
  upgrade: ClusterClassUpgrade.optional(),
  kubernetesVersions: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
});
export type ClusterClassSpec = z.infer<typeof ClusterClassSpec>;

export const ClusterClassStatus = z.object({
  conditions: Conditions.optional(),
  variables: z.array(ClusterClassStatusVariable).max(1000).optional(),
  observedGeneration: z.number().int().optional(),
  deprecated: z.object({ v1beta1: z.object({ conditions: V1Beta1Conditions.optional() }).optional() }).optional(),
});
export type ClusterClassStatus = z.infer<typeof ClusterClassStatus>;

export const ClusterClass = z.object({
  apiVersion: z.literal('cluster.x-k8s.io/v1beta2'),
  kind: z.literal('ClusterClass'),
  metadata: KubeObjectMeta,
  spec: ClusterClassSpec,
  status: ClusterClassStatus.optional(),
});
export type ClusterClass = z.infer<typeof ClusterClass>;
