// Desired ControlPlane (and its machine infrastructure template), as upstream's computeControlPlane,
// computeControlPlaneInfrastructureMachineTemplate and computeControlPlaneVersion.
import type { Cluster } from '#shared/api/cluster.ts';
import {
  computeTemplateName,
  defaultControlPlaneNameTemplate,
  namePrefixes,
  computeSimpleName,
} from '#shared/topology/desired/names.ts';
import { getPath, mergeMaps, setPath } from '#shared/topology/desired/paths.ts';
import { compareVersions, parseVersionTolerant } from '#shared/topology/desired/semver.ts';
import {
  computeClusterOwnerRef,
  computeObjectFromTemplate,
  computeTemplateFromTemplate,
  groupOf,
} from '#shared/topology/desired/template-to-object.ts';
import type { UpgradeTracker } from '#shared/topology/desired/upgrade-tracker.ts';
import { ClusterNameLabel, ClusterTopologyOwnedLabel } from '#shared/topology/labels.ts';
import type { Blueprint, CurrentState, PureDeps, Unstructured } from '#shared/topology/types.ts';
import type { ObjectReference } from '#shared/api/object-meta.ts';

/** Paths of the control plane contract (upstream internal/contract/controlplane.go). */
export const controlPlaneContract = {
  version: ['spec', 'version'],
  replicas: ['spec', 'replicas'],
  machineTemplateInfrastructureRef: ['spec', 'machineTemplate', 'infrastructureRef'],
  machineTemplateMetadata: ['spec', 'machineTemplate', 'metadata'],
  machineTemplateNodeDrainTimeout: ['spec', 'machineTemplate', 'nodeDrainTimeout'],
  machineTemplateNodeVolumeDetachTimeout: ['spec', 'machineTemplate', 'nodeVolumeDetachTimeout'],
  machineTemplateNodeDeletionTimeout: ['spec', 'machineTemplate', 'nodeDeletionTimeout'],
  statusVersion: ['status', 'version'],
  statusReplicas: ['status', 'replicas'],
  statusUpdatedReplicas: ['status', 'updatedReplicas'],
  statusReadyReplicas: ['status', 'readyReplicas'],
  statusUnavailableReplicas: ['status', 'unavailableReplicas'],
} as const;

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
 * version a provider's conversion chose (upstream calculateRefDesiredAPIVersion).
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
  const currentRef = current.controlPlane?.object
    ? (getPath(current.controlPlane.object, controlPlaneContract.machineTemplateInfrastructureRef) as
        ObjectReference | undefined)
    : undefined;
  return computeTemplateFromTemplate({
    template,
    clusterName,
    namespace: cluster.metadata.namespace ?? '',
    generatedName: computeSimpleName(
      namePrefixes.controlPlaneInfrastructureMachineTemplate(clusterName),
      deps.randomSuffix,
    ),
    currentName: currentRef?.name,
    ownerRef: computeClusterOwnerRef(cluster),
  });
}

function isProvisioning(cp: Unstructured): boolean {
  const v = getPath(cp, controlPlaneContract.statusVersion);
  return typeof v !== 'string' || v === '';
}

function isUpgrading(cp: Unstructured): boolean {
  const spec = parseVersionTolerant(String(getPath(cp, controlPlaneContract.version) ?? ''));
  const statusRaw = getPath(cp, controlPlaneContract.statusVersion);
  if (typeof statusRaw !== 'string' || !spec) return false;
  const status = parseVersionTolerant(statusRaw);
  return status !== undefined && compareVersions(spec, status, true) >= 1;
}

function isScaling(cp: Unstructured): boolean {
  const desired = getPath(cp, controlPlaneContract.replicas);
  const fields = [
    controlPlaneContract.statusReplicas,
    controlPlaneContract.statusUpdatedReplicas,
    controlPlaneContract.statusReadyReplicas,
  ];
  const values = fields.map((p) => getPath(cp, p));
  if (values.some((v) => typeof v !== 'number')) return true;
  const [statusReplicas, updated, ready] = values as number[];
  const unavailable = getPath(cp, controlPlaneContract.statusUnavailableReplicas);
  if (typeof unavailable === 'number' && unavailable > 0) return true;
  return desired !== statusReplicas || desired !== updated || desired !== ready;
}

/**
 * The version the control plane should run in this pass: the topology version, unless an upgrade must wait
 * (control plane provisioning, upgrading or scaling, or workers still upgrading). Records the facts in `tracker`.
 */
export function computeControlPlaneVersion(
  blueprintTopologyVersion: string,
  controlPlaneReplicasSet: boolean,
  current: CurrentState,
  tracker: UpgradeTracker,
): string {
  const desiredVersion = blueprintTopologyVersion;
  const cp = current.controlPlane?.object;
  if (!cp) return desiredVersion;
  const currentVersion = String(getPath(cp, controlPlaneContract.version) ?? '');
  tracker.controlPlane.isPendingUpgrade = currentVersion !== desiredVersion;
  if (isProvisioning(cp)) {
    tracker.controlPlane.isProvisioning = true;
    return currentVersion;
  }
  if (isUpgrading(cp)) {
    tracker.controlPlane.isUpgrading = true;
    return currentVersion;
  }
  if (!tracker.controlPlane.isPendingUpgrade) return currentVersion;
  if (controlPlaneReplicasSet && isScaling(cp)) {
    tracker.controlPlane.isScaling = true;
    return currentVersion;
  }
  if (tracker.machineDeployments.upgrading.size > 0 || tracker.machinePools.upgrading.size > 0) return currentVersion;
  tracker.controlPlane.isPendingUpgrade = false;
  tracker.controlPlane.isStartingUpgrade = true;
  return desiredVersion;
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
  const cc = blueprint.clusterClass.spec?.controlPlane;
  const topology = cluster.spec?.topology;
  const cpTopology = topology?.controlPlane;
  const clusterName = cluster.metadata.name ?? '';
  const labels = mergeMaps(cc?.metadata?.labels, cpTopology?.metadata?.labels) ?? {};
  labels[ClusterNameLabel] = clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  const annotations = mergeMaps(cc?.metadata?.annotations, cpTopology?.metadata?.annotations);
  const nameTemplate = cc?.namingStrategy?.template ?? defaultControlPlaneNameTemplate;
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
    ownerRef: computeClusterOwnerRef(cluster),
  });
  if (infrastructureMachineTemplate) {
    const currentRef = currentObject
      ? (getPath(currentObject, controlPlaneContract.machineTemplateInfrastructureRef) as ObjectReference | undefined)
      : undefined;
    controlPlane = setPath(
      controlPlane,
      controlPlaneContract.machineTemplateInfrastructureRef,
      computeRefDesiredAPIVersion(currentRef, infrastructureMachineTemplate),
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
  const timeouts = [
    [controlPlaneContract.machineTemplateNodeDrainTimeout, cpTopology?.nodeDrainTimeout ?? cc?.nodeDrainTimeout],
    [
      controlPlaneContract.machineTemplateNodeVolumeDetachTimeout,
      cpTopology?.nodeVolumeDetachTimeout ?? cc?.nodeVolumeDetachTimeout,
    ],
    [
      controlPlaneContract.machineTemplateNodeDeletionTimeout,
      cpTopology?.nodeDeletionTimeout ?? cc?.nodeDeletionTimeout,
    ],
  ] as const;
  for (const [path, value] of timeouts) if (value !== undefined) controlPlane = setPath(controlPlane, path, value);
  const version = computeControlPlaneVersion(
    topology?.version ?? '',
    cpTopology?.replicas !== undefined,
    current,
    tracker,
  );
  return setPath(controlPlane, controlPlaneContract.version, version);
}
