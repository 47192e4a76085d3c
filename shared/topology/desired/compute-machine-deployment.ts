// Desired MachineDeployment with its bootstrap and infrastructure template clones and its health check
// (upstream computeMachineDeployment and computeMachineDeploymentVersion).
import { computeWorkerVersion } from '#shared/topology/desired/compute-worker-version.ts';
import type { Cluster, MachineDeploymentTopology, Topology } from '#shared/api/core/v1beta2/cluster.ts';
import type { MachineDeployment, MachineDeploymentRolloutSpec } from '#shared/api/core/v1beta2/machine-deployment.ts';
import { CapiError } from '#shared/errors/index.ts';
import { computeContractVersionedRef } from '#shared/topology/desired/compute-infrastructure-cluster.ts';
import {
  computeMachineDeploymentHealthCheckClass,
  computeMachineDeploymentMHCSelector,
  computeMachineHealthCheck,
} from '#shared/topology/desired/compute-machine-health-check.ts';
import {
  computeSimpleName,
  computeTemplateName,
  defaultMachineDeploymentNameTemplate,
  namePrefixes,
} from '#shared/topology/desired/names.ts';
import { mergeMaps } from '#shared/topology/desired/paths.ts';
import { computeClusterOwnerRef, computeTemplateFromTemplate } from '#shared/topology/desired/template-to-object.ts';
import type { UpgradeTracker } from '#shared/topology/desired/upgrade-tracker.ts';
import {
  ClusterNameLabel,
  ClusterTopologyDeferUpgradeAnnotation,
  ClusterTopologyHoldUpgradeSequenceAnnotation,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyOwnedLabel,
} from '#shared/topology/labels.ts';
import type { Blueprint, CurrentState, DesiredMachineDeployment, PureDeps } from '#shared/topology/types.ts';

export class UnknownClassError extends CapiError {}

/** The object without its undefined fields (so a desired object never carries `undefined`). */
export function removeUndefined<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** The desired state of one MachineDeployment topology. */
export function computeMachineDeployment(
  blueprint: Blueprint,
  cluster: Cluster,
  current: CurrentState,
  md: MachineDeploymentTopology,
  tracker: UpgradeTracker,
  deps: PureDeps,
): DesiredMachineDeployment {
  const topology = cluster.spec?.topology as Topology;
  const mdBlueprint = blueprint.machineDeployments[md.class];
  const mdClass = blueprint.clusterClass.spec.workers?.machineDeployments?.find((c) => c.class === md.class);
  const ccName = `${blueprint.clusterClass.metadata.namespace ?? ''}/${blueprint.clusterClass.metadata.name ?? ''}`;
  if (!mdBlueprint || !mdClass) {
    throw new UnknownClassError(`MachineDeployment class ${md.class} not found in ClusterClass ${ccName}`, {
      kind: 'Cluster',
      namespace: cluster.metadata.namespace ?? '',
      name: cluster.metadata.name ?? '',
      fieldPath: `spec.topology.workers.machineDeployments[name=${md.name}].class`,
      reason: 'UnknownMachineDeploymentClass',
    });
  }
  const clusterName = cluster.metadata.name ?? '';
  const namespace = cluster.metadata.namespace ?? '';
  const currentState = current.machineDeployments[md.name];
  const ownerRef = computeClusterOwnerRef(cluster);
  const templatePrefix = namePrefixes.machineDeploymentTemplate(clusterName, md.name);
  const topologyLabel = { [ClusterTopologyMachineDeploymentNameLabel]: md.name };
  const currentBootstrapRef = currentState?.bootstrapTemplate
    ? currentState.object.spec.template.spec.bootstrap.configRef
    : undefined;
  const bootstrapTemplate = computeTemplateFromTemplate({
    template: mdBlueprint.bootstrapTemplate,
    clusterName,
    namespace,
    generatedName: computeSimpleName(templatePrefix, deps.randomSuffix),
    currentName: currentBootstrapRef?.name,
    labels: topologyLabel,
    ownerRef,
  });
  const currentInfraRef = currentState?.infrastructureMachineTemplate
    ? currentState.object.spec.template.spec.infrastructureRef
    : undefined;
  const infrastructureMachineTemplate = computeTemplateFromTemplate({
    template: mdBlueprint.infrastructureMachineTemplate,
    clusterName,
    namespace,
    generatedName: computeSimpleName(templatePrefix, deps.randomSuffix),
    currentName: currentInfraRef?.name,
    labels: topologyLabel,
    ownerRef,
  });
  const version = computeWorkerVersion(
    topology,
    'machineDeployments',
    md,
    currentState && {
      name: currentState.object.metadata.name ?? '',
      version: currentState.object.spec.template.spec.version ?? '',
    },
    tracker,
  );
  const name =
    currentState?.object.metadata.name ??
    computeTemplateName(
      mdClass.naming?.template ?? defaultMachineDeploymentNameTemplate,
      clusterName,
      { kind: 'MachineDeployment', topologyName: md.name },
      deps.randomSuffix,
    );
  const annotations = mergeMaps(mdClass.metadata?.annotations, md.metadata?.annotations);
  if (annotations) {
    delete annotations[ClusterTopologyHoldUpgradeSequenceAnnotation];
    delete annotations[ClusterTopologyDeferUpgradeAnnotation];
  }
  const labels = mergeMaps(mdClass.metadata?.labels, md.metadata?.labels) ?? {};
  labels[ClusterNameLabel] = clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  labels[ClusterTopologyMachineDeploymentNameLabel] = md.name;
  const minReadySeconds = md.minReadySeconds ?? mdClass.minReadySeconds;
  // NOTE: as upstream, a non-empty topology rollout replaces the class's as a whole (it also carries `after`).
  const rollout: MachineDeploymentRolloutSpec | undefined = md.rollout ?? mdClass.rollout;
  const maxInFlight = md.healthCheck?.remediation?.maxInFlight ?? mdClass.healthCheck?.remediation?.maxInFlight;
  const failureDomain = md.failureDomain ?? mdClass.failureDomain;
  const deletionOrder = md.deletion?.order ?? mdClass.deletion?.order;
  const deletion = {
    nodeDrainTimeoutSeconds: md.deletion?.nodeDrainTimeoutSeconds ?? mdClass.deletion?.nodeDrainTimeoutSeconds,
    nodeVolumeDetachTimeoutSeconds:
      md.deletion?.nodeVolumeDetachTimeoutSeconds ?? mdClass.deletion?.nodeVolumeDetachTimeoutSeconds,
    nodeDeletionTimeoutSeconds: md.deletion?.nodeDeletionTimeoutSeconds ?? mdClass.deletion?.nodeDeletionTimeoutSeconds,
  };
  const hasDeletion = Object.values(deletion).some((v) => v !== undefined);
  const readinessGates = md.readinessGates ?? mdClass.readinessGates;
  const taints = md.taints ?? mdClass.taints;
  const hasAnnotations = annotations !== undefined && Object.keys(annotations).length > 0;
  const object: MachineDeployment = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: {
      name,
      namespace,
      labels: { ...labels },
      ...(hasAnnotations ? { annotations: { ...annotations } } : {}),
    },
    spec: {
      clusterName,
      ...(md.replicas !== undefined ? { replicas: md.replicas } : {}),
      ...(rollout !== undefined ? { rollout: structuredClone(rollout) } : {}),
      selector: {
        matchLabels: {
          [ClusterNameLabel]: clusterName,
          [ClusterTopologyOwnedLabel]: '',
          [ClusterTopologyMachineDeploymentNameLabel]: md.name,
        },
      },
      ...(deletionOrder !== undefined ? { deletion: { order: deletionOrder } } : {}),
      ...(maxInFlight !== undefined ? { remediation: { maxInFlight } } : {}),
      template: {
        metadata: { labels: { ...labels }, ...(hasAnnotations ? { annotations: { ...annotations } } : {}) },
        spec: {
          clusterName,
          version,
          bootstrap: { configRef: computeContractVersionedRef(bootstrapTemplate) },
          infrastructureRef: computeContractVersionedRef(infrastructureMachineTemplate),
          ...(failureDomain !== undefined ? { failureDomain } : {}),
          ...(hasDeletion ? { deletion: removeUndefined(deletion) } : {}),
          ...(readinessGates !== undefined ? { readinessGates: structuredClone(readinessGates) } : {}),
          ...(taints !== undefined ? { taints: structuredClone(taints) } : {}),
          ...(minReadySeconds !== undefined ? { minReadySeconds } : {}),
        },
      },
    },
  };
  const check = computeMachineDeploymentHealthCheckClass(mdClass, md);
  const machineHealthCheck = check
    ? computeMachineHealthCheck({ name, namespace }, computeMachineDeploymentMHCSelector(md.name), cluster, check)
    : undefined;
  return { object, bootstrapTemplate, infrastructureMachineTemplate, machineHealthCheck };
}
