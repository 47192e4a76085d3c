// The shapes that flow through a topology pass: the blueprint (ClusterClass + templates), the current state read
// from the API server, and the desired state computed from them.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { MachineDeployment } from '#shared/api/core/v1beta2/machine-deployment.ts';
import type { MachineHealthCheck } from '#shared/api/core/v1beta2/machine-health-check.ts';
import type { MachinePool } from '#shared/api/core/v1beta2/machine-pool.ts';
import type { KubeObjectMeta } from '#shared/api/object-meta.ts';
import type { ContractVersion } from '#shared/topology/contract/contract-version.ts';
import type { HookDecision } from '#shared/topology/desired/lifecycle-hooks.ts';

/** Any object treated generically (templates, InfrastructureCluster, ControlPlane, bootstrap configs…). */
export type Unstructured = {
  apiVersion: string;
  kind: string;
  metadata: KubeObjectMeta;
  [field: string]: unknown;
};

export type MachineDeploymentBlueprint = {
  readonly className: string;
  readonly bootstrapTemplate: Unstructured;
  readonly infrastructureMachineTemplate: Unstructured;
};

export type MachinePoolBlueprint = {
  readonly className: string;
  readonly bootstrapTemplate: Unstructured;
  readonly infrastructureMachinePoolTemplate: Unstructured;
};

/** The ClusterClass with every template it references, read once per pass. */
export type Blueprint = {
  readonly clusterClass: ClusterClass;
  readonly infrastructureClusterTemplate: Unstructured;
  readonly controlPlaneTemplate: Unstructured;
  readonly controlPlaneInfrastructureMachineTemplate?: Unstructured | undefined;
  /** The provider contract of the ControlPlane kind at the template's API version (from its CRD's labels). */
  readonly controlPlaneContract: ContractVersion;
  readonly machineDeployments: Readonly<Record<string, MachineDeploymentBlueprint>>;
  readonly machinePools: Readonly<Record<string, MachinePoolBlueprint>>;
};

export type MachineDeploymentState = {
  readonly object: MachineDeployment;
  readonly bootstrapTemplate?: Unstructured | undefined;
  readonly infrastructureMachineTemplate?: Unstructured | undefined;
  readonly machineHealthCheck?: MachineHealthCheck | undefined;
  /** Fact read in current/: some of its Machines do not run the MachineDeployment's version yet. */
  readonly upgrading?: boolean;
};

export type MachinePoolState = {
  readonly object: MachinePool;
  readonly bootstrapObject?: Unstructured | undefined;
  readonly infrastructureMachinePoolObject?: Unstructured | undefined;
  /** Fact read in current/: some of its nodes do not run the MachinePool's version yet. */
  readonly upgrading?: boolean;
};

/** What exists today, keyed by topology name for workers. */
export type CurrentState = {
  readonly cluster: Cluster;
  /**
   * The cluster shim Secret `<cluster>-shim` the Cluster owns, read only while the Cluster does not reference both its
   * InfrastructureCluster and ControlPlane or one of them is missing (undefined otherwise, or when it does not exist).
   */
  readonly clusterShim?: Unstructured | undefined;
  readonly infrastructureCluster?: Unstructured | undefined;
  readonly controlPlane?: {
    readonly object?: Unstructured | undefined;
    /** The provider contract of the current ControlPlane's API version. */
    readonly contract?: ContractVersion | undefined;
    readonly infrastructureMachineTemplate?: Unstructured | undefined;
    readonly machineHealthCheck?: MachineHealthCheck | undefined;
  };
  readonly machineDeployments: Readonly<Record<string, MachineDeploymentState>>;
  readonly machinePools: Readonly<Record<string, MachinePoolState>>;
};

export type DesiredMachineDeployment = {
  readonly object: MachineDeployment;
  readonly bootstrapTemplate: Unstructured;
  readonly infrastructureMachineTemplate: Unstructured;
  readonly machineHealthCheck?: MachineHealthCheck | undefined;
};

export type DesiredMachinePool = {
  readonly object: MachinePool;
  readonly bootstrapObject: Unstructured;
  readonly infrastructureMachinePoolObject: Unstructured;
};

export type DesiredState = {
  readonly cluster: Cluster;
  readonly infrastructureCluster: Unstructured;
  readonly controlPlane: {
    readonly object: Unstructured;
    /** The provider contract the object is written in. */
    readonly contract: ContractVersion;
    readonly infrastructureMachineTemplate?: Unstructured | undefined;
    readonly machineHealthCheck?: MachineHealthCheck | undefined;
  };
  readonly machineDeployments: Readonly<Record<string, DesiredMachineDeployment>>;
  readonly machinePools: Readonly<Record<string, DesiredMachinePool>>;
  readonly upgrade: UpgradeSummary;
  /** Lifecycle hooks, when the pass calls them: the next call, the pending marks, the tracked answers. */
  readonly hooks?: HookDecision | undefined;
};

/** Where the version rollout stands after this pass (upstream's UpgradeTracker, as plain data). */
export type UpgradeSummary = {
  readonly controlPlane: {
    readonly isPendingUpgrade: boolean;
    readonly isProvisioning: boolean;
    readonly isUpgrading: boolean;
    readonly isScaling: boolean;
    readonly isStartingUpgrade: boolean;
  };
  readonly machineDeployments: WorkerUpgradeSummary;
  readonly machinePools: WorkerUpgradeSummary;
  /** Upstream's upgrade plans, for the TopologyReconciled message and the Cluster's status.*.upgradePlan. */
  readonly plans?: ComputedUpgradePlans;
};

/** The versions still to go through, per part of the Cluster (upstream's UpgradeTracker plans). */
export type ComputedUpgradePlans = {
  readonly controlPlane: readonly string[];
  readonly machineDeployments: readonly string[];
  readonly machinePools: readonly string[];
};

export type WorkerUpgradeSummary = {
  /** Names of objects upgrading (already, or starting in this pass). */
  readonly upgrading: readonly string[];
  readonly pendingUpgrade: readonly string[];
  readonly deferredUpgrade: readonly string[];
  /** Topology names whose creation waits for the control plane. */
  readonly pendingCreate: readonly string[];
};

/** Non-deterministic inputs, passed in so desired-state code stays pure. */
export type PureDeps = {
  /** Returns a random suffix of 5 characters from upstream's alphabet (`bcdfghjklmnpqrstvwxz2456789`). */
  readonly randomSuffix: () => string;
};
