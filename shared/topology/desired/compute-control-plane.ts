// Desired ControlPlane (and its machine infrastructure template), as upstream's computeControlPlane,
// computeControlPlaneInfrastructureMachineTemplate and computeControlPlaneVersion. The ControlPlane is written in the
// shape of its provider contract (v1beta1 or v1beta2, read from its CRD in current/).
import type { ObjectReference } from '#shared/api/object-meta.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ContractVersionedObjectReference } from '#shared/api/core/v1beta2/common.ts';
import {
  computeDurationFromSeconds,
  controlPlaneContract,
  controlPlaneContractPaths,
} from '#shared/topology/contract/control-plane-contract.ts';
import type { ContractVersion } from '#shared/topology/contract/contract-version.ts';
import {
  isControlPlaneProvisioning,
  isControlPlaneScaling,
  isControlPlaneUpgrading,
} from '#shared/topology/contract/control-plane-state.ts';
import { computeCarriedOwnerRefs, computeClusterShimAction } from '#shared/topology/desired/compute-cluster-shim.ts';
import {
  computeTemplateName,
  defaultControlPlaneNameTemplate,
  namePrefixes,
  computeSimpleName,
} from '#shared/topology/desired/names.ts';
import { getPath, mergeMaps, setPath } from '#shared/topology/desired/paths.ts';
import {
  computeAnnotationBlock,
  computeUpgradeSteps,
  consultHook,
  LifecycleHook,
} from '#shared/topology/desired/lifecycle-hooks.ts';
import {
  computeClusterOwnerRef,
  computeObjectFromTemplate,
  computeTemplateFromTemplate,
  groupOf,
} from '#shared/topology/desired/template-to-object.ts';
import type { UpgradeTracker } from '#shared/topology/desired/upgrade-tracker.ts';
import { ClusterNameLabel, ClusterTopologyOwnedLabel } from '#shared/topology/labels.ts';
import type { Blueprint, CurrentState, PureDeps, Unstructured } from '#shared/topology/types.ts';

export { controlPlaneContract } from '#shared/topology/contract/control-plane-contract.ts';

/** A reference to `obj` (apiVersion, kind, name, namespace), as contract.ObjToRef. */
export function computeRef(obj: Unstructured): ObjectReference {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? '',
  };
}

/**
 * Keeps the apiVersion of the current reference when group and kind did not change, so a pass never flips the
 * version a provider's conversion chose (upstream calculateRefDesiredAPIVersion; v1beta1 contract only).
 */
export function computeRefDesiredAPIVersion(
  currentRef: ObjectReference | undefined,
  desired: Unstructured,
): ObjectReference {
  const ref = computeRef(desired);
  if (
    currentRef?.apiVersion &&
    groupOf(currentRef.apiVersion) === groupOf(desired.apiVersion) &&
    currentRef.kind === desired.kind
  ) {
    return { ...ref, apiVersion: currentRef.apiVersion };
  }
  return ref;
}

/** The name of the machine infrastructure template the current ControlPlane references, in its own contract. */
function currentMachineTemplateRefName(current: CurrentState): string | undefined {
  const cp = current.controlPlane?.object;
  if (!cp) return undefined;
  const paths = controlPlaneContractPaths(current.controlPlane?.contract ?? 'v1beta2');
  const ref = getPath(cp, paths.machineTemplateInfrastructureRef) as { name?: unknown } | undefined;
  return typeof ref?.name === 'string' ? ref.name : undefined;
}

/** The control plane's machine infrastructure template clone, when the class has one. */
export function computeControlPlaneInfrastructureMachineTemplate(
  blueprint: Blueprint,
  current: CurrentState,
  deps: PureDeps,
): Unstructured | undefined {
  const template = blueprint.controlPlaneInfrastructureMachineTemplate;
  if (!template) return undefined;
  const cluster = current.cluster;
  const clusterName = cluster.metadata.name ?? '';
  return computeTemplateFromTemplate({
    template,
    clusterName,
    namespace: cluster.metadata.namespace ?? '',
    generatedName: computeSimpleName(
      namePrefixes.controlPlaneInfrastructureMachineTemplate(clusterName),
      deps.randomSuffix,
    ),
    currentName: currentMachineTemplateRefName(current),
    ownerRef: computeClusterOwnerRef(cluster),
  });
}

/**
 * The version the control plane should run in this pass: the next step of the upgrade plan, unless an upgrade must wait
 * (control plane provisioning, upgrading or scaling, workers still upgrading, or a lifecycle hook blocking or not
 * yet answered). Records the facts in `tracker`, and with hooks the hook marks and the next hook call, at the points
 * upstream's computeControlPlaneVersion calls them.
 */
export function computeControlPlaneVersion(
  blueprintTopologyVersion: string,
  controlPlaneReplicasSet: boolean,
  current: CurrentState,
  tracker: UpgradeTracker,
  cluster?: Cluster,
): string {
  const desiredVersion = blueprintTopologyVersion;
  const cp = current.controlPlane?.object;
  if (!cp) return desiredVersion;
  const currentVersion = String(getPath(cp, controlPlaneContract.version) ?? '');
  tracker.controlPlane.isPendingUpgrade = currentVersion !== desiredVersion;
  if (isControlPlaneProvisioning(cp)) {
    tracker.controlPlane.isProvisioning = true;
    return currentVersion;
  }
  if (isControlPlaneUpgrading(cp)) {
    tracker.controlPlane.isUpgrading = true;
    return currentVersion;
  }
  const hooks = tracker.hooks;
  if (hooks) {
    // The control plane is not upgrading: the last upgrade step's AfterControlPlaneUpgrade, then BeforeWorkersUpgrade.
    if (hooks.pending.has(LifecycleHook.AfterControlPlaneUpgrade)) {
      const request = { kubernetesVersion: currentVersion, ...computeUpgradeSteps(hooks) };
      if (consultHook(hooks, LifecycleHook.AfterControlPlaneUpgrade, request) !== 'done') return currentVersion;
      hooks.pending.delete(LifecycleHook.AfterControlPlaneUpgrade);
    }
    if (hooks.pending.has(LifecycleHook.BeforeWorkersUpgrade)) {
      const request = {
        fromKubernetesVersion: hooks.minWorkersVersion,
        toKubernetesVersion: currentVersion,
        ...computeUpgradeSteps(hooks),
      };
      if (consultHook(hooks, LifecycleHook.BeforeWorkersUpgrade, request) !== 'done') return currentVersion;
      hooks.pending.delete(LifecycleHook.BeforeWorkersUpgrade);
    }
  }
  // Workers must reach the control plane's version before it takes the next step (upstream IsWaitingForWorkersUpgrade).
  const plans = tracker.plans;
  if (plans.machineDeployments[0] === currentVersion || plans.machinePools[0] === currentVersion) {
    tracker.controlPlane.isWaitingForWorkersUpgrade = true;
    return currentVersion;
  }
  if (tracker.machineDeployments.upgrading.size > 0 || tracker.machinePools.upgrading.size > 0) return currentVersion;
  if (hooks?.pending.has(LifecycleHook.AfterWorkersUpgrade)) {
    const request = { kubernetesVersion: currentVersion, ...computeUpgradeSteps(hooks) };
    if (consultHook(hooks, LifecycleHook.AfterWorkersUpgrade, request) !== 'done') return currentVersion;
    hooks.pending.delete(LifecycleHook.AfterWorkersUpgrade);
  }
  if (!tracker.controlPlane.isPendingUpgrade) return currentVersion;
  if (controlPlaneReplicasSet && isControlPlaneScaling(cp, current.controlPlane?.contract ?? 'v1beta2')) {
    tracker.controlPlane.isScaling = true;
    return currentVersion;
  }
  if (hooks) {
    // BeforeClusterUpgrade once at the start of an upgrade (AfterClusterUpgrade not yet pending), then
    // BeforeControlPlaneUpgrade before each step the control plane picks up.
    if (!hooks.pending.has(LifecycleHook.AfterClusterUpgrade)) {
      const annotationBlock = cluster ? computeAnnotationBlock(cluster) : undefined;
      if (annotationBlock) {
        hooks.tracked.set(LifecycleHook.BeforeClusterUpgrade, annotationBlock);
        return currentVersion;
      }
      const request = {
        fromKubernetesVersion: currentVersion,
        toKubernetesVersion: desiredVersion,
        ...computeUpgradeSteps(hooks),
      };
      if (consultHook(hooks, LifecycleHook.BeforeClusterUpgrade, request) !== 'done') return currentVersion;
      hooks.pending.add(LifecycleHook.AfterClusterUpgrade);
    }
  }
  const nextVersion = plans.controlPlane[0];
  if (nextVersion === undefined)
    throw new CapiError(
      'cannot compute the control plane version if the control plane is pending upgrade and the upgrade plan is not set',
    );
  if (hooks) {
    const request = {
      fromKubernetesVersion: currentVersion,
      toKubernetesVersion: nextVersion,
      ...computeUpgradeSteps(hooks),
    };
    if (consultHook(hooks, LifecycleHook.BeforeControlPlaneUpgrade, request) !== 'done') return currentVersion;
    hooks.pending.add(LifecycleHook.AfterControlPlaneUpgrade);
    if (plans.machineDeployments[0] === nextVersion || plans.machinePools[0] === nextVersion) {
      hooks.pending.add(LifecycleHook.BeforeWorkersUpgrade);
      hooks.pending.add(LifecycleHook.AfterWorkersUpgrade);
    }
  }
  tracker.controlPlane.isPendingUpgrade = false;
  tracker.controlPlane.isStartingUpgrade = true;
  return nextVersion;
}

/** The reference to the machine infrastructure template, in the shape of the ControlPlane's contract. */
function computeMachineTemplateRef(
  contract: ContractVersion,
  current: CurrentState,
  template: Unstructured,
): ObjectReference | ContractVersionedObjectReference {
  if (contract === 'v1beta2')
    return { apiGroup: groupOf(template.apiVersion), kind: template.kind, name: template.metadata.name ?? '' };
  const cp = current.controlPlane?.object;
  const currentRef =
    cp && current.controlPlane?.contract === 'v1beta1'
      ? (getPath(cp, controlPlaneContractPaths('v1beta1').machineTemplateInfrastructureRef) as
          ObjectReference | undefined)
      : undefined;
  return computeRefDesiredAPIVersion(currentRef, template);
}

/** The desired ControlPlane object. */
export function computeControlPlane(
  blueprint: Blueprint,
  cluster: Cluster,
  current: CurrentState,
  infrastructureMachineTemplate: Unstructured | undefined,
  tracker: UpgradeTracker,
  deps: PureDeps,
): Unstructured {
  const cc = blueprint.clusterClass.spec.controlPlane;
  const topology = cluster.spec?.topology;
  const cpTopology = topology?.controlPlane;
  const paths = controlPlaneContractPaths(blueprint.controlPlaneContract);
  const clusterName = cluster.metadata.name ?? '';
  const labels = mergeMaps(cc.metadata?.labels, cpTopology?.metadata?.labels) ?? {};
  labels[ClusterNameLabel] = clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  const annotations = mergeMaps(cc.metadata?.annotations, cpTopology?.metadata?.annotations);
  const nameTemplate = cc.naming?.template ?? defaultControlPlaneNameTemplate;
  const currentObject = current.controlPlane?.object;
  let controlPlane = computeObjectFromTemplate({
    template: blueprint.controlPlaneTemplate,
    clusterName,
    namespace: cluster.metadata.namespace ?? '',
    generatedName:
      currentObject?.metadata.name ||
      computeTemplateName(nameTemplate, clusterName, { kind: 'ControlPlane' }, deps.randomSuffix),
    currentName: cluster.spec?.controlPlaneRef?.name,
    labels,
    annotations,
    ownerReferences: computeCarriedOwnerRefs(cluster, currentObject, computeClusterShimAction(current)),
  });
  if (infrastructureMachineTemplate) {
    controlPlane = setPath(
      controlPlane,
      paths.machineTemplateInfrastructureRef,
      computeMachineTemplateRef(blueprint.controlPlaneContract, current, infrastructureMachineTemplate),
    );
    const meta = (getPath(controlPlane, controlPlaneContract.machineTemplateMetadata) ?? {}) as {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    const mtLabels = mergeMaps(meta.labels, labels);
    const mtAnnotations = mergeMaps(meta.annotations, annotations);
    controlPlane = setPath(controlPlane, controlPlaneContract.machineTemplateMetadata, {
      ...(mtLabels ? { labels: mtLabels } : {}),
      ...(mtAnnotations ? { annotations: mtAnnotations } : {}),
    });
  }
  if (cpTopology?.replicas !== undefined)
    controlPlane = setPath(controlPlane, controlPlaneContract.replicas, cpTopology.replicas);
  if (cpTopology?.rollout?.after !== undefined)
    controlPlane = setPath(controlPlane, controlPlaneContract.rolloutAfter, cpTopology.rollout.after);
  const readinessGates = cpTopology?.readinessGates ?? cc.readinessGates;
  if (readinessGates !== undefined)
    controlPlane = setPath(controlPlane, paths.machineTemplateReadinessGates, structuredClone(readinessGates));
  const taints = cpTopology?.taints ?? cc.taints;
  if (taints !== undefined) controlPlane = setPath(controlPlane, paths.machineTemplateTaints, structuredClone(taints));
  const timeouts = [
    [paths.machineTemplateNodeDrainTimeout, 'nodeDrainTimeoutSeconds'],
    [paths.machineTemplateNodeVolumeDetachTimeout, 'nodeVolumeDetachTimeoutSeconds'],
    [paths.machineTemplateNodeDeletionTimeout, 'nodeDeletionTimeoutSeconds'],
  ] as const;
  for (const [path, field] of timeouts) {
    const seconds = cpTopology?.deletion?.[field] ?? cc.deletion?.[field];
    if (seconds === undefined) continue;
    // NOTE: the v1beta1 contract holds durations (`metav1.Duration`), v1beta2 int32 seconds.
    const value = blueprint.controlPlaneContract === 'v1beta1' ? computeDurationFromSeconds(seconds) : seconds;
    controlPlane = setPath(controlPlane, path, value);
  }
  const version = computeControlPlaneVersion(
    topology?.version ?? '',
    cpTopology?.replicas !== undefined,
    current,
    tracker,
    cluster,
  );
  return setPath(controlPlane, controlPlaneContract.version, version);
}
