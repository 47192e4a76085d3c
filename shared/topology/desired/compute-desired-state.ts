// The desired state of a managed topology, computed from the Cluster, its blueprint and the current state — pure:
// facts (control plane status, which workers are upgrading) come in as data, randomness as a function.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { CapiError } from '#shared/errors/index.ts';
import { computeClusterShimAction } from '#shared/topology/desired/compute-cluster-shim.ts';
import {
  computeControlPlane,
  computeControlPlaneInfrastructureMachineTemplate,
} from '#shared/topology/desired/compute-control-plane.ts';
import {
  computeCluster,
  computeInfrastructureCluster,
} from '#shared/topology/desired/compute-infrastructure-cluster.ts';
import { computeMachineDeployment } from '#shared/topology/desired/compute-machine-deployment.ts';
import {
  computeControlPlaneMHCSelector,
  computeMachineHealthCheck,
  computeMachineHealthCheckClass,
} from '#shared/topology/desired/compute-machine-health-check.ts';
import { computeMachinePool } from '#shared/topology/desired/compute-machine-pool.ts';
import { applyPatchesToDesiredState } from '#shared/topology/desired/apply-patches.ts';
import {
  computeMaxUpgradeConcurrency,
  newUpgradeTracker,
  summarizeUpgradeTracker,
} from '#shared/topology/desired/upgrade-tracker.ts';
import {
  computeUpgradePlan,
  computeUpgradePlanSource,
  type GeneratedUpgradePlan,
} from '#shared/topology/desired/compute-upgrade-plan.ts';
import {
  LifecycleHook,
  newHookTracker,
  summarizeHookTracker,
  type HookInput,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import { ClusterTopologyUpgradeConcurrencyAnnotation } from '#shared/topology/labels.ts';
import type {
  Blueprint,
  CurrentState,
  DesiredMachineDeployment,
  DesiredMachinePool,
  DesiredState,
  PureDeps,
  UpgradeSummary,
  ComputedUpgradePlans,
} from '#shared/topology/types.ts';

export class DesiredStateError extends CapiError {
  /** The upgrade plans, when they were computed before the failure (upstream's ComputeUpgradePlanSucceeded). */
  upgradePlans?: ComputedUpgradePlans | undefined;
}

/** The failing object's identity with the cause's field path and reason. */
function computeErrorFields(id: { kind: string; namespace: string; name: string }, cause: CapiError) {
  return {
    ...id,
    ...(cause.fieldPath ? { fieldPath: cause.fieldPath } : {}),
    reason: cause.reason ?? 'ComputeFailed',
  };
}

export type DesiredStateInput = {
  readonly cluster: Cluster;
  readonly blueprint: Blueprint;
  readonly current: CurrentState;
  /** Lifecycle hooks: what is pending and the answers so far (undefined: no hooks are called, as `plan`). */
  readonly hooks?: HookInput | undefined;
  /**
   * The answer of the ClusterClass's GenerateUpgradePlan extension to computeUpgradePlanRequest of this pass (the I/O
   * side calls it); unused without such an extension.
   */
  readonly generatedUpgradePlan?: GeneratedUpgradePlan | undefined;
};

/**
 * Computes every object the topology should consist of after this pass, with the ClusterClass's inline patches
 * applied (a class with external patches: computeUnpatchedDesiredState, then runPatchEngine).
 *
 * @example
 * const desired = computeDesiredState({ cluster, blueprint, current }, { randomSuffix: () => 'abcde' });
 * desired.machineDeployments['md-0'].object.spec.template.spec.version; // 'v1.30.0'
 */
export function computeDesiredState(input: DesiredStateInput, deps: PureDeps): DesiredState {
  return applyPatchesToDesiredState(input.cluster, input.blueprint, computeUnpatchedDesiredState(input, deps));
}

/**
 * The desired state before the ClusterClass patches: what the patch engine starts from.
 *
 * @example
 * const unpatched = computeUnpatchedDesiredState({ cluster, blueprint, current }, { randomSuffix });
 */
export function computeUnpatchedDesiredState(input: DesiredStateInput, deps: PureDeps): DesiredState {
  const { cluster, blueprint, current } = input;
  const topology = cluster.spec?.topology;
  const id = { kind: 'Cluster', namespace: cluster.metadata.namespace ?? '', name: cluster.metadata.name ?? '' };
  if (!topology)
    throw new DesiredStateError(`Cluster ${id.namespace}/${id.name} has no spec.topology`, {
      ...id,
      fieldPath: 'spec.topology',
      reason: 'NoTopology',
    });
  const progress: { plans?: ComputedUpgradePlans } = {};
  const wrap = <T>(what: string, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      const failure =
        err instanceof DesiredStateError
          ? err
          : new DesiredStateError(
              `failed to compute ${what}: ${(err as Error).message}`,
              computeErrorFields(id, err as CapiError),
              { cause: err },
            );
      failure.upgradePlans ??= progress.plans;
      throw failure;
    }
  };

  // NOTE: upstream's Generate order: the InfrastructureCluster and the control plane's machine template first, then the
  // upgrade plan; from there on a failure keeps the plans (written to the Cluster's status even by a failed pass).
  const infrastructureCluster = wrap('InfrastructureCluster', () =>
    computeInfrastructureCluster(
      blueprint,
      cluster,
      deps,
      current.infrastructureCluster,
      computeClusterShimAction(current),
    ),
  );
  const cpInfrastructureMachineTemplate = wrap('ControlPlane InfrastructureMachineTemplate', () =>
    computeControlPlaneInfrastructureMachineTemplate(blueprint, current, deps),
  );
  const plans = wrap('the upgrade plan', () =>
    computeUpgradePlan(
      topology.version,
      current,
      computeUpgradePlanSource(blueprint.clusterClass),
      input.generatedUpgradePlan,
    ),
  );
  const computedPlans: ComputedUpgradePlans = {
    controlPlane: plans.controlPlane,
    machineDeployments: plans.machineDeployments,
    machinePools: plans.machinePools,
  };
  progress.plans = computedPlans;
  const tracker = newUpgradeTracker(
    computeMaxUpgradeConcurrency(cluster.metadata.annotations, ClusterTopologyUpgradeConcurrencyAnnotation),
    plans,
    input.hooks ? newHookTracker(input.hooks, plans) : undefined,
  );
  // Facts read in current/: MachineDeployments and MachinePools whose Machines are still rolling out a version.
  for (const state of Object.values(current.machineDeployments))
    if (state.upgrading) tracker.machineDeployments.upgrading.add(state.object.metadata.name ?? '');
  for (const state of Object.values(current.machinePools))
    if (state.upgrading) tracker.machinePools.upgrading.add(state.object.metadata.name ?? '');

  const controlPlane = wrap('ControlPlane', () =>
    computeControlPlane(blueprint, cluster, current, cpInfrastructureMachineTemplate, tracker, deps),
  );
  const cpCheck = cpInfrastructureMachineTemplate
    ? computeMachineHealthCheckClass(
        blueprint.clusterClass.spec.controlPlane.healthCheck,
        topology.controlPlane?.healthCheck,
      )
    : undefined;
  const cpMachineHealthCheck = cpCheck
    ? computeMachineHealthCheck(
        { name: controlPlane.metadata.name ?? '', namespace: controlPlane.metadata.namespace ?? '' },
        computeControlPlaneMHCSelector(),
        cluster,
        cpCheck,
      )
    : undefined;

  const machineDeployments: Record<string, DesiredMachineDeployment> = {};
  for (const md of topology.workers?.machineDeployments ?? []) {
    machineDeployments[md.name] = wrap(`MachineDeployment for topology "${md.name}"`, () =>
      computeMachineDeployment(blueprint, cluster, current, md, tracker, deps),
    );
  }
  const machinePools: Record<string, DesiredMachinePool> = {};
  for (const mp of topology.workers?.machinePools ?? []) {
    machinePools[mp.name] = wrap(`MachinePool for topology "${mp.name}"`, () =>
      computeMachinePool(blueprint, cluster, current, mp, tracker, deps),
    );
  }

  const upgrade: UpgradeSummary = {
    ...summarizeUpgradeTracker(tracker),
    plans: computedPlans,
  };
  // NOTE: the After* hooks are decided later, on the patched desired state (computeAfterHooksDesiredState), as upstream
  // calls them in reconcileState; the upgrade step follows the marks made so far.
  const upgrading = tracker.hooks
    ? tracker.hooks.pending.has(LifecycleHook.AfterClusterUpgrade)
    : plans.controlPlane.length > 0 || plans.machineDeployments.length > 0 || plans.machinePools.length > 0;
  const desiredCluster = computeCluster(cluster, infrastructureCluster, controlPlane, { upgrading });
  return {
    cluster: desiredCluster,
    infrastructureCluster,
    controlPlane: {
      object: controlPlane,
      contract: blueprint.controlPlaneContract,
      infrastructureMachineTemplate: cpInfrastructureMachineTemplate,
      machineHealthCheck: cpMachineHealthCheck,
    },
    machineDeployments,
    machinePools,
    upgrade,
    ...(tracker.hooks ? { hooks: summarizeHookTracker(tracker.hooks) } : {}),
  };
}
