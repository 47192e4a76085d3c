// Desired InfrastructureCluster and the Cluster's own desired fields (upstream computeInfrastructureCluster and
// computeCluster).
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ContractVersionedObjectReference } from '#shared/api/core/v1beta2/common.ts';
import { computeTemplateName, defaultInfrastructureClusterNameTemplate } from '#shared/topology/desired/names.ts';
import { computeCarriedOwnerRefs, type ClusterShimAction } from '#shared/topology/desired/compute-cluster-shim.ts';
import { computeObjectFromTemplate, groupOf } from '#shared/topology/desired/template-to-object.ts';
import {
  ClusterNameLabel,
  ClusterTopologyOwnedLabel,
  ClusterTopologyUpgradeStepAnnotation,
} from '#shared/topology/labels.ts';
import type { Blueprint, PureDeps, Unstructured } from '#shared/topology/types.ts';

/**
 * The InfrastructureCluster from the class's infrastructure template, named by `spec.infrastructure.naming.template`
 * (default `<cluster>-<random>`) unless the Cluster already references one or `current` (an earlier attempt the
 * Cluster does not reference yet) exists.
 * NOTE: as upstream, the desired object carries no owner reference to the Cluster: with one, the infrastructure
 * provider would provision it before the Cluster references the control plane too. The cluster shim owns a new one
 * (added when the pass has the shim, compute-cluster-shim.ts) until the core Cluster controller adopts it; owner
 * references already on `current` are carried over ({@link computeCarriedOwnerRefs}).
 */
export function computeInfrastructureCluster(
  blueprint: Blueprint,
  cluster: Cluster,
  deps: PureDeps,
  current?: Unstructured,
  shimAction: ClusterShimAction = 'none',
): Unstructured {
  const clusterName = cluster.metadata.name ?? '';
  return computeObjectFromTemplate({
    template: blueprint.infrastructureClusterTemplate,
    clusterName,
    namespace: cluster.metadata.namespace ?? '',
    generatedName: computeTemplateName(
      blueprint.clusterClass.spec.infrastructure.naming?.template ?? defaultInfrastructureClusterNameTemplate,
      clusterName,
      { kind: 'InfrastructureCluster' },
      deps.randomSuffix,
    ),
    currentName: cluster.spec?.infrastructureRef?.name || current?.metadata.name,
    ownerReferences: computeCarriedOwnerRefs(cluster, current, shimAction),
  });
}

/** A ContractVersionedObjectReference to `obj` (apiGroup/kind/name), as the Cluster holds its references. */
export function computeContractVersionedRef(obj: Unstructured): ContractVersionedObjectReference {
  return { apiGroup: groupOf(obj.apiVersion), kind: obj.kind, name: obj.metadata.name ?? '' };
}

/**
 * The Cluster with the topology labels, references to the desired InfrastructureCluster and ControlPlane, and the
 * upgrade step annotation: the desired control-plane version while an upgrade is in progress, none otherwise
 * (upstream computeCluster). `upgrading` is upstream's test: AfterClusterUpgrade pending when lifecycle hooks are on,
 * a non-empty upgrade plan when they are off.
 *
 * @example
 * computeCluster(cluster, infrastructureCluster, controlPlane, { upgrading: true }).metadata.annotations;
 * // { 'topology.internal.cluster.x-k8s.io/upgrade-step': 'v1.31.0', ... }
 */
export function computeCluster(
  cluster: Cluster,
  infrastructureCluster: Unstructured,
  controlPlane: Unstructured,
  opts: { readonly upgrading: boolean },
): Cluster {
  const labels = {
    ...(cluster.metadata.labels ?? {}),
    [ClusterNameLabel]: cluster.metadata.name ?? '',
    [ClusterTopologyOwnedLabel]: '',
  };
  const { [ClusterTopologyUpgradeStepAnnotation]: _previous, ...annotations } = cluster.metadata.annotations ?? {};
  const version = (controlPlane['spec'] as { version?: unknown } | undefined)?.version;
  if (opts.upgrading && typeof version === 'string') annotations[ClusterTopologyUpgradeStepAnnotation] = version;
  return {
    ...cluster,
    metadata: {
      ...cluster.metadata,
      labels,
      ...(Object.keys(annotations).length > 0 || cluster.metadata.annotations ? { annotations } : {}),
    },
    spec: {
      ...(cluster.spec ?? {}),
      infrastructureRef: computeContractVersionedRef(infrastructureCluster),
      controlPlaneRef: computeContractVersionedRef(controlPlane),
    },
  };
}
