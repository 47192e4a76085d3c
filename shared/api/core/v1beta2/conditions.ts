// Condition types and reasons upstream v1beta2 writes for the topology controller (Cluster `TopologyReconciled`,
// ClusterClass `VariablesReady` and `RefVersionsUpToDate`). The v1beta1 names in `status.deprecated.v1beta1` differ
// only where noted (`VariablesReconciled`).
export const ClusterTopologyReconciled = {
  type: 'TopologyReconciled',
  reasons: {
    ReconcileSucceeded: 'ReconcileSucceeded',
    ReconcileFailed: 'ReconcileFailed',
    ClusterCreating: 'ClusterCreating',
    ControlPlaneUpgradePending: 'ControlPlaneUpgradePending',
    MachineDeploymentsCreatePending: 'MachineDeploymentsCreatePending',
    MachineDeploymentsUpgradePending: 'MachineDeploymentsUpgradePending',
    MachineDeploymentsUpgradeDeferred: 'MachineDeploymentsUpgradeDeferred',
    MachinePoolsUpgradePending: 'MachinePoolsUpgradePending',
    MachinePoolsCreatePending: 'MachinePoolsCreatePending',
    MachinePoolsUpgradeDeferred: 'MachinePoolsUpgradeDeferred',
    LifecycleHookBlocking: 'LifecycleHookBlocking',
    ClusterUpgrading: 'ClusterUpgrading',
    ClusterClassNotReconciled: 'ClusterClassNotReconciled',
    Deleting: 'Deleting',
    Paused: 'Paused',
  },
} as const;

export const ClusterClassVariablesReady = {
  type: 'VariablesReady',
  /** The v1beta1 condition type under `status.deprecated.v1beta1.conditions`. */
  v1beta1Type: 'VariablesReconciled',
  reasons: { VariablesReady: 'VariablesReady', VariableDiscoveryFailed: 'VariableDiscoveryFailed' },
} as const;

export const ClusterClassRefVersionsUpToDate = {
  type: 'RefVersionsUpToDate',
  reasons: {
    RefVersionsUpToDate: 'RefVersionsUpToDate',
    RefVersionsNotUpToDate: 'RefVersionsNotUpToDate',
    InternalError: 'InternalError',
  },
} as const;
