// Paths of the ControlPlane provider contract per contract version (upstream internal/contract/controlplane.go).
import type { ContractVersion } from '#shared/topology/contract/contract-version.ts';

export type Path = readonly string[];

/** Fields that are the same in both contracts. */
export const controlPlaneContract = {
  version: ['spec', 'version'],
  replicas: ['spec', 'replicas'],
  rolloutAfter: ['spec', 'rollout', 'after'],
  machineTemplateMetadata: ['spec', 'machineTemplate', 'metadata'],
  statusVersion: ['status', 'version'],
  statusReplicas: ['status', 'replicas'],
  statusReadyReplicas: ['status', 'readyReplicas'],
  statusAvailableReplicas: ['status', 'availableReplicas'],
  /** v1beta1 only (v1beta2 ControlPlanes report it under status.deprecated.v1beta1). */
  statusUnavailableReplicas: ['status', 'unavailableReplicas'],
} as const;

/** Paths that differ between the v1beta1 and v1beta2 contracts. */
export type ControlPlaneContractPaths = {
  readonly contract: ContractVersion;
  /** v1beta1: an ObjectReference with apiVersion; v1beta2: a ContractVersionedObjectReference (apiGroup/kind/name). */
  readonly machineTemplateInfrastructureRef: Path;
  /** v1beta1: durations such as `10s`; v1beta2: int32 seconds. */
  readonly machineTemplateNodeDrainTimeout: Path;
  readonly machineTemplateNodeVolumeDetachTimeout: Path;
  readonly machineTemplateNodeDeletionTimeout: Path;
  readonly machineTemplateReadinessGates: Path;
  readonly machineTemplateTaints: Path;
  readonly statusUpToDateReplicas: Path;
  readonly statusInitialized: Path;
};

const v1beta1: ControlPlaneContractPaths = {
  contract: 'v1beta1',
  machineTemplateInfrastructureRef: ['spec', 'machineTemplate', 'infrastructureRef'],
  machineTemplateNodeDrainTimeout: ['spec', 'machineTemplate', 'nodeDrainTimeout'],
  machineTemplateNodeVolumeDetachTimeout: ['spec', 'machineTemplate', 'nodeVolumeDetachTimeout'],
  machineTemplateNodeDeletionTimeout: ['spec', 'machineTemplate', 'nodeDeletionTimeout'],
  machineTemplateReadinessGates: ['spec', 'machineTemplate', 'readinessGates'],
  machineTemplateTaints: ['spec', 'machineTemplate', 'taints'],
  statusUpToDateReplicas: ['status', 'updatedReplicas'],
  statusInitialized: ['status', 'initialized'],
};

const v1beta2: ControlPlaneContractPaths = {
  contract: 'v1beta2',
  machineTemplateInfrastructureRef: ['spec', 'machineTemplate', 'spec', 'infrastructureRef'],
  machineTemplateNodeDrainTimeout: ['spec', 'machineTemplate', 'spec', 'deletion', 'nodeDrainTimeoutSeconds'],
  machineTemplateNodeVolumeDetachTimeout: [
    'spec',
    'machineTemplate',
    'spec',
    'deletion',
    'nodeVolumeDetachTimeoutSeconds',
  ],
  machineTemplateNodeDeletionTimeout: ['spec', 'machineTemplate', 'spec', 'deletion', 'nodeDeletionTimeoutSeconds'],
  machineTemplateReadinessGates: ['spec', 'machineTemplate', 'spec', 'readinessGates'],
  machineTemplateTaints: ['spec', 'machineTemplate', 'spec', 'taints'],
  statusUpToDateReplicas: ['status', 'upToDateReplicas'],
  statusInitialized: ['status', 'initialization', 'controlPlaneInitialized'],
};

/** The contract-specific ControlPlane paths. */
export function controlPlaneContractPaths(contract: ContractVersion): ControlPlaneContractPaths {
  return contract === 'v1beta1' ? v1beta1 : v1beta2;
}

/** Seconds as the v1beta1 contract's duration string (`metav1.Duration` of N seconds: `1m30s`, `0s`). */
export function computeDurationFromSeconds(seconds: number): string {
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
