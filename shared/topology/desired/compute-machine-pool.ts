// Desired MachinePool with its bootstrap config and infrastructure machine pool objects (upstream computeMachinePool
// and computeMachinePoolVersion). MachinePools serve managed node groups in managed topologies.
import { computeWorkerVersion } from '#shared/topology/desired/compute-worker-version.ts';
import type { Cluster, MachinePoolTopology, Topology } from '#shared/api/core/v1beta2/cluster.ts';
import type { MachinePool } from '#shared/api/core/v1beta2/machine-pool.ts';
import { computeContractVersionedRef } from '#shared/topology/desired/compute-infrastructure-cluster.ts';
import { removeUndefined } from '#shared/topology/desired/compute-machine-deployment.ts';
import { UnknownClassError } from '#shared/topology/desired/compute-machine-deployment.ts';
import {
  computeSimpleName,
  computeTemplateName,
  defaultMachinePoolNameTemplate,
  namePrefixes,
} from '#shared/topology/desired/names.ts';
import { mergeMaps } from '#shared/topology/desired/paths.ts';
import { computeClusterOwnerRef, computeObjectFromTemplate } from '#shared/topology/desired/template-to-object.ts';
import type { UpgradeTracker } from '#shared/topology/desired/upgrade-tracker.ts';
import {
  ClusterNameLabel,
  ClusterTopologyDeferUpgradeAnnotation,
  ClusterTopologyHoldUpgradeSequenceAnnotation,
  ClusterTopologyMachinePoolNameLabel,
  ClusterTopologyOwnedLabel,
} from '#shared/topology/labels.ts';
import type { Blueprint, CurrentState, DesiredMachinePool, PureDeps } from '#shared/topology/types.ts';

export function computeMachinePool(
  blueprint: Blueprint,
  cluster: Cluster,
  current: CurrentState,
  mp: MachinePoolTopology,
  tracker: UpgradeTracker,
  deps: PureDeps,
): DesiredMachinePool {
  const topology = cluster.spec?.topology as Topology;
  const mpBlueprint = blueprint.machinePools[mp.class];
  const mpClass = blueprint.clusterClass.spec.workers?.machinePools?.find((c) => c.class === mp.class);
  if (!mpBlueprint || !mpClass) {
    throw new UnknownClassError(
      `MachinePool class ${mp.class} not found in ClusterClass ${blueprint.clusterClass.metadata.namespace ?? ''}/${blueprint.clusterClass.metadata.name ?? ''}`,
      {
        kind: 'Cluster',
        namespace: cluster.metadata.namespace ?? '',
        name: cluster.metadata.name ?? '',
        fieldPath: `spec.topology.workers.machinePools[name=${mp.name}].class`,
        reason: 'UnknownMachinePoolClass',
      },
    );
  }
  const clusterName = cluster.metadata.name ?? '';
  const namespace = cluster.metadata.namespace ?? '';
  const currentState = current.machinePools[mp.name];
  const ownerRef = computeClusterOwnerRef(cluster);
  const prefix = namePrefixes.machinePoolObject(clusterName, mp.name);
  const poolLabel = { [ClusterTopologyMachinePoolNameLabel]: mp.name };
  const currentBootstrapRef = currentState?.bootstrapObject
    ? currentState.object.spec.template.spec.bootstrap.configRef
    : undefined;
  const bootstrapObject = computeObjectFromTemplate({
    template: mpBlueprint.bootstrapTemplate,
    clusterName,
    namespace,
    generatedName: computeSimpleName(prefix, deps.randomSuffix),
    currentName: currentBootstrapRef?.name,
    labels: poolLabel,
    ownerRef,
  });
  const currentInfraRef = currentState?.infrastructureMachinePoolObject
    ? currentState.object.spec.template.spec.infrastructureRef
    : undefined;
  const infrastructureMachinePoolObject = computeObjectFromTemplate({
    template: mpBlueprint.infrastructureMachinePoolTemplate,
    clusterName,
    namespace,
    generatedName: computeSimpleName(prefix, deps.randomSuffix),
    currentName: currentInfraRef?.name,
    labels: poolLabel,
    ownerRef,
  });
  const version = computeWorkerVersion(
    topology,
    'machinePools',
    mp,
    currentState && {
      name: currentState.object.metadata.name ?? '',
      version: currentState.object.spec.template.spec.version ?? '',
    },
    tracker,
  );
  const name =
    currentState?.object.metadata.name ??
    computeTemplateName(
      mpClass.naming?.template ?? defaultMachinePoolNameTemplate,
      clusterName,
      { kind: 'MachinePool', topologyName: mp.name },
      deps.randomSuffix,
    );
  const annotations = mergeMaps(mpClass.metadata?.annotations, mp.metadata?.annotations);
  if (annotations) {
    delete annotations[ClusterTopologyHoldUpgradeSequenceAnnotation];
    delete annotations[ClusterTopologyDeferUpgradeAnnotation];
  }
  const labels = mergeMaps(mpClass.metadata?.labels, mp.metadata?.labels) ?? {};
  labels[ClusterNameLabel] = clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  labels[ClusterTopologyMachinePoolNameLabel] = mp.name;
  const hasAnnotations = annotations !== undefined && Object.keys(annotations).length > 0;
  const minReadySeconds = mp.minReadySeconds ?? mpClass.minReadySeconds;
  const failureDomains = mp.failureDomains ?? mpClass.failureDomains;
  const deletion = {
    nodeDrainTimeoutSeconds: mp.deletion?.nodeDrainTimeoutSeconds ?? mpClass.deletion?.nodeDrainTimeoutSeconds,
    nodeVolumeDetachTimeoutSeconds:
      mp.deletion?.nodeVolumeDetachTimeoutSeconds ?? mpClass.deletion?.nodeVolumeDetachTimeoutSeconds,
    nodeDeletionTimeoutSeconds: mp.deletion?.nodeDeletionTimeoutSeconds ?? mpClass.deletion?.nodeDeletionTimeoutSeconds,
  };
  const hasDeletion = Object.values(deletion).some((v) => v !== undefined);
  const taints = mp.taints ?? mpClass.taints;
  const object: MachinePool = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachinePool',
    metadata: {
      name,
      namespace,
      labels: { ...labels },
      ...(hasAnnotations ? { annotations: { ...annotations } } : {}),
    },
    spec: {
      clusterName,
      ...(mp.replicas !== undefined ? { replicas: mp.replicas } : {}),
      ...(failureDomains !== undefined ? { failureDomains: [...failureDomains] } : {}),
      template: {
        metadata: { labels: { ...labels }, ...(hasAnnotations ? { annotations: { ...annotations } } : {}) },
        spec: {
          clusterName,
          version,
          bootstrap: { configRef: computeContractVersionedRef(bootstrapObject) },
          infrastructureRef: computeContractVersionedRef(infrastructureMachinePoolObject),
          ...(hasDeletion ? { deletion: removeUndefined(deletion) } : {}),
          ...(minReadySeconds !== undefined ? { minReadySeconds } : {}),
          ...(taints !== undefined ? { taints: structuredClone(taints) } : {}),
        },
      },
    },
  };
  return { object, bootstrapObject, infrastructureMachinePoolObject };
}
