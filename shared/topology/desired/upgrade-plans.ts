// The upgrade plans one desired-state computation works with, in their own module so the hooks' decisions and the
// upgrade tracker name them without importing the plan computation (which reads the current state).

/** The plans of one computation (upstream's UpgradeTracker plans and MinWorkersVersion). */
export type UpgradePlans = {
  readonly controlPlane: readonly string[];
  readonly machineDeployments: readonly string[];
  readonly machinePools: readonly string[];
  readonly minWorkersVersion: string;
};
