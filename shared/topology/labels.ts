// Labels and annotations Cluster API puts on topology-managed objects (names exactly as upstream).
export const ClusterNameLabel = 'cluster.x-k8s.io/cluster-name';
export const ClusterTopologyOwnedLabel = 'topology.cluster.x-k8s.io/owned';
export const ClusterTopologyMachineDeploymentNameLabel = 'topology.cluster.x-k8s.io/deployment-name';
export const ClusterTopologyMachinePoolNameLabel = 'topology.cluster.x-k8s.io/pool-name';
export const MachineControlPlaneLabel = 'cluster.x-k8s.io/control-plane';
export const TemplateClonedFromNameAnnotation = 'cluster.x-k8s.io/cloned-from-name';
export const TemplateClonedFromGroupKindAnnotation = 'cluster.x-k8s.io/cloned-from-groupkind';
export const ClusterTopologyDeferUpgradeAnnotation = 'topology.cluster.x-k8s.io/defer-upgrade';
export const ClusterTopologyHoldUpgradeSequenceAnnotation = 'topology.cluster.x-k8s.io/hold-upgrade-sequence';
export const ClusterTopologyUpgradeConcurrencyAnnotation = 'topology.cluster.x-k8s.io/upgrade-concurrency';
/** The version of the upgrade step in progress, on the Cluster (KubeadmControlPlane and MachineSet preflights read it). */
export const ClusterTopologyUpgradeStepAnnotation = 'topology.internal.cluster.x-k8s.io/upgrade-step';
export const LastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** The field manager every topology write uses (upstream: `capi-topology`). */
export const TopologyManagerName = 'capi-topology';
