// The kinds capi-serverless reads and writes, with everything needed to generate their CRDs and to address them
// on the API server (group, version, plural, scope, printer columns, subresources).
import type { z } from 'zod';
import {
  ClusterResourceSetBindingV1Beta1,
  ClusterResourceSetV1Beta1,
} from '#shared/api/addons/v1beta1/cluster-resource-set.ts';
import { Cluster as V1Beta1Cluster } from '#shared/api/core/v1beta1/cluster.ts';
import { operatorKinds } from '#shared/api/operator/v1alpha2/provider.ts';
import { ClusterRollout, RolloutGroup } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { ClusterClass as V1Beta1ClusterClass } from '#shared/api/core/v1beta1/cluster-class.ts';
import { MachineDeployment as V1Beta1MachineDeployment } from '#shared/api/core/v1beta1/machine-deployment.ts';
import { MachineHealthCheck as V1Beta1MachineHealthCheck } from '#shared/api/core/v1beta1/machine-health-check.ts';
import { MachinePool as V1Beta1MachinePool } from '#shared/api/core/v1beta1/machine-pool.ts';
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { KindInfo, PrinterColumn } from '#shared/api/kind-info.ts';
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { MachineDeployment } from '#shared/api/core/v1beta2/machine-deployment.ts';
import { MachineHealthCheck } from '#shared/api/core/v1beta2/machine-health-check.ts';
import { MachinePool } from '#shared/api/core/v1beta2/machine-pool.ts';

export type { KindInfo, PrinterColumn } from '#shared/api/kind-info.ts';

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const core = { group: 'cluster.x-k8s.io', version: 'v1beta2', namespaced: true, categories: ['cluster-api'] } as const;
const alsoV1Beta1 = (schema: z.ZodType) => [{ version: 'v1beta1', schema }] as const;

/** Kinds of `cluster.x-k8s.io` the topology controller reads and writes: v1beta2 stored, v1beta1 also served. */
export const coreKinds: readonly KindInfo[] = [
  {
    ...core,
    kind: 'Cluster',
    plural: 'clusters',
    singular: 'cluster',
    shortNames: ['cl'],
    schema: Cluster,
    servedVersions: alsoV1Beta1(V1Beta1Cluster),
    printerColumns: [
      {
        name: 'ClusterClass',
        type: 'string',
        jsonPath: '.spec.topology.classRef.name',
        description: 'ClusterClass of this Cluster, empty if the Cluster is not using a ClusterClass',
      },
      {
        name: 'Phase',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'Cluster status such as Pending/Provisioning/Provisioned/Deleting/Failed',
      },
      { ...age, description: 'Time duration since creation of Cluster' },
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.spec.topology.version',
        description: 'Kubernetes version associated with this Cluster',
      },
    ],
  },
  {
    ...core,
    kind: 'ClusterClass',
    plural: 'clusterclasses',
    singular: 'clusterclass',
    shortNames: ['cc'],
    schema: ClusterClass,
    servedVersions: alsoV1Beta1(V1Beta1ClusterClass),
    printerColumns: [{ ...age, description: 'Time duration since creation of ClusterClass' }],
  },
  {
    ...core,
    kind: 'MachineDeployment',
    plural: 'machinedeployments',
    singular: 'machinedeployment',
    shortNames: ['md'],
    schema: MachineDeployment,
    servedVersions: alsoV1Beta1(V1Beta1MachineDeployment),
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
    printerColumns: [
      { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster' },
      {
        name: 'Replicas',
        type: 'integer',
        jsonPath: '.status.replicas',
        description: 'Total number of non-terminated machines targeted by this MachineDeployment',
      },
      {
        name: 'Ready',
        type: 'integer',
        jsonPath: '.status.readyReplicas',
        description: 'Total number of ready machines targeted by this MachineDeployment',
      },
      {
        name: 'Available',
        type: 'integer',
        jsonPath: '.status.availableReplicas',
        description: 'Total number of available machines targeted by this MachineDeployment',
      },
      {
        name: 'UpToDate',
        type: 'integer',
        jsonPath: '.status.upToDateReplicas',
        description: 'Total number of up-to-date machines targeted by this MachineDeployment',
      },
      {
        name: 'Phase',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'MachineDeployment status such as ScalingUp/ScalingDown/Running/Failed/Unknown',
      },
      { ...age, description: 'Time duration since creation of MachineDeployment' },
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.spec.template.spec.version',
        description: 'Kubernetes version associated with this MachineDeployment',
      },
    ],
  },
  {
    ...core,
    kind: 'MachinePool',
    plural: 'machinepools',
    singular: 'machinepool',
    shortNames: ['mp'],
    schema: MachinePool,
    servedVersions: alsoV1Beta1(V1Beta1MachinePool),
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    printerColumns: [
      { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster' },
      { name: 'Replicas', type: 'string', jsonPath: '.status.replicas', description: 'MachinePool replicas count' },
      {
        name: 'Phase',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'MachinePool status such as Terminating/Pending/Provisioning/Running/Failed etc',
      },
      { ...age, description: 'Time duration since creation of MachinePool' },
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.spec.template.spec.version',
        description: 'Kubernetes version associated with this MachinePool',
      },
    ],
  },
  {
    ...core,
    kind: 'MachineHealthCheck',
    plural: 'machinehealthchecks',
    singular: 'machinehealthcheck',
    shortNames: ['mhc', 'mhcs'],
    schema: MachineHealthCheck,
    servedVersions: alsoV1Beta1(V1Beta1MachineHealthCheck),
    printerColumns: [
      { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster' },
      {
        name: 'ExpectedMachines',
        type: 'integer',
        jsonPath: '.status.expectedMachines',
        description: 'Number of machines currently monitored',
      },
      {
        name: 'CurrentHealthy',
        type: 'integer',
        jsonPath: '.status.currentHealthy',
        description: 'Current observed healthy machines',
      },
      { ...age, description: 'Time duration since creation of MachineHealthCheck' },
    ],
  },
];

const addons = {
  group: 'addons.cluster.x-k8s.io',
  version: 'v1beta1',
  namespaced: true,
  categories: ['cluster-api'],
} as const;

/** The project's `addons.cluster.x-k8s.io` CRDs: v1beta1 only, as upstream up to v1.10 (the pass speaks v1beta2 when served). */
export const addonsKinds: readonly KindInfo[] = [
  {
    ...addons,
    kind: 'ClusterResourceSet',
    plural: 'clusterresourcesets',
    singular: 'clusterresourceset',
    schema: ClusterResourceSetV1Beta1,
    printerColumns: [{ ...age, description: 'Time duration since creation of ClusterResourceSet' }],
  },
  {
    ...addons,
    kind: 'ClusterResourceSetBinding',
    plural: 'clusterresourcesetbindings',
    singular: 'clusterresourcesetbinding',
    schema: ClusterResourceSetBindingV1Beta1,
    printerColumns: [{ ...age, description: 'Time duration since creation of ClusterResourceSetBinding' }],
  },
];

/** The project's own `management.cluster.x-k8s.io` kinds (alpha). */
export const rolloutKinds: readonly KindInfo[] = [
  {
    group: RolloutGroup,
    version: 'v1alpha1',
    namespaced: true,
    categories: ['cluster-api'],
    kind: 'ClusterRollout',
    plural: 'clusterrollouts',
    singular: 'clusterrollout',
    shortNames: ['cro'],
    schema: ClusterRollout,
    printerColumns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Where the rollout is' },
      { name: 'Wave', type: 'integer', jsonPath: '.status.currentWave', description: 'The wave in progress (1-based)' },
      { name: 'Changed', type: 'string', jsonPath: '.status.progress', description: 'Clusters changed / selected' },
      { name: 'Failed', type: 'integer', jsonPath: '.status.counts.failed', priority: 1 },
      { name: 'Conflict', type: 'integer', jsonPath: '.status.counts.conflict', priority: 1 },
      {
        name: 'Next',
        type: 'string',
        jsonPath: '.status.nextCheckAt',
        priority: 1,
        description: 'When it looks again',
      },
      { ...age, description: 'Time duration since creation of ClusterRollout' },
    ],
  },
];

/** Every kind we generate a CRD for. */
export const allKinds: readonly KindInfo[] = [...coreKinds, ...addonsKinds, ...operatorKinds, ...rolloutKinds];

/** `group/version` of a kind. */
export function apiVersionOf(info: Pick<KindInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** Every `group/version` a kind is served at (stored version first). */
export function servedApiVersionsOf(info: KindInfo): string[] {
  return [info.version, ...(info.servedVersions ?? []).map((v) => v.version)].map((version) =>
    apiVersionOf({ group: info.group, version }),
  );
}

/** Finds a registered kind by apiVersion (any served version) and kind. */
export function findKind(apiVersion: string, kind: string): KindInfo | undefined {
  return allKinds.find((k) => k.kind === kind && servedApiVersionsOf(k).includes(apiVersion));
}
