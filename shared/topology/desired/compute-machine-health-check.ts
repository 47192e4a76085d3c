// Desired MachineHealthChecks for the control plane and MachineDeployments (upstream computeMachineHealthCheck,
// including the defaults upstream's webhook applies: maxUnhealthy 100%, nodeStartupTimeout 10m).
import type { Cluster, MachineDeploymentTopology } from '#shared/api/cluster.ts';
import type { MachineDeploymentClass } from '#shared/api/cluster-class.ts';
import type {
  MachineHealthCheck,
  MachineHealthCheckClass,
  MachineHealthCheckTopology,
} from '#shared/api/machine-health-check.ts';
import type { LabelSelector } from '#shared/api/label-selector.ts';
import { computeClusterOwnerRef } from '#shared/topology/desired/template-to-object.ts';
import {
  ClusterNameLabel,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyOwnedLabel,
  MachineControlPlaneLabel,
} from '#shared/topology/labels.ts';

export const defaultNodeStartupTimeout = '10m0s';

/** Selector of the control plane MHC. */
export function computeControlPlaneMHCSelector(): LabelSelector {
  return { matchLabels: { [ClusterTopologyOwnedLabel]: '', [MachineControlPlaneLabel]: '' } };
}

/** Selector of a MachineDeployment's MHC. */
export function computeMachineDeploymentMHCSelector(topologyName: string): LabelSelector {
  return {
    matchLabels: { [ClusterTopologyOwnedLabel]: '', [ClusterTopologyMachineDeploymentNameLabel]: topologyName },
  };
}

function hasChecks(check: MachineHealthCheckClass | MachineHealthCheckTopology | undefined): boolean {
  if (!check) return false;
  return (
    (check.unhealthyConditions?.length ?? 0) > 0 ||
    check.maxUnhealthy !== undefined ||
    check.unhealthyRange !== undefined ||
    check.nodeStartupTimeout !== undefined ||
    check.remediationTemplate !== undefined
  );
}

function pickClass(check: MachineHealthCheckClass | MachineHealthCheckTopology): MachineHealthCheckClass {
  const { unhealthyConditions, maxUnhealthy, unhealthyRange, nodeStartupTimeout, remediationTemplate } = check;
  return {
    ...(unhealthyConditions ? { unhealthyConditions } : {}),
    ...(maxUnhealthy !== undefined ? { maxUnhealthy } : {}),
    ...(unhealthyRange !== undefined ? { unhealthyRange } : {}),
    ...(nodeStartupTimeout !== undefined ? { nodeStartupTimeout } : {}),
    ...(remediationTemplate ? { remediationTemplate } : {}),
  };
}

/**
 * Upstream's rule (ClusterBlueprint.Is*MachineHealthCheckEnabled): a check must be defined in the class (even empty)
 * or with non-empty fields in the topology; then it is on unless the topology says `enable: false`. Non-empty
 * topology checks replace the class's.
 */
export function computeMachineHealthCheckClass(
  classCheck: MachineHealthCheckClass | undefined,
  topologyCheck: MachineHealthCheckTopology | undefined,
): MachineHealthCheckClass | undefined {
  const topologyHasChecks = hasChecks(topologyCheck);
  if (classCheck === undefined && !topologyHasChecks) return undefined;
  if (topologyCheck?.enable === false) return undefined;
  if (topologyHasChecks && topologyCheck) return pickClass(topologyCheck);
  return classCheck ? pickClass(classCheck) : {};
}

/** The MachineHealthCheck object for a target (the ControlPlane or a MachineDeployment). */
export function computeMachineHealthCheck(
  target: { name: string; namespace: string },
  selector: LabelSelector,
  cluster: Cluster,
  check: MachineHealthCheckClass,
): MachineHealthCheck {
  const clusterName = cluster.metadata.name ?? '';
  const remediationTemplate = check.remediationTemplate
    ? { ...check.remediationTemplate, namespace: check.remediationTemplate.namespace || target.namespace }
    : undefined;
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineHealthCheck',
    metadata: {
      name: target.name,
      namespace: target.namespace,
      labels: { [ClusterTopologyOwnedLabel]: '', [ClusterNameLabel]: clusterName },
      ...(cluster.metadata.uid ? { ownerReferences: [computeClusterOwnerRef(cluster)] } : {}),
    },
    spec: {
      clusterName,
      selector,
      ...(check.unhealthyConditions ? { unhealthyConditions: check.unhealthyConditions } : {}),
      maxUnhealthy: check.maxUnhealthy ?? '100%',
      ...(check.unhealthyRange !== undefined ? { unhealthyRange: check.unhealthyRange } : {}),
      nodeStartupTimeout: check.nodeStartupTimeout ?? defaultNodeStartupTimeout,
      ...(remediationTemplate ? { remediationTemplate } : {}),
    },
  };
}

/** The health check class of a MachineDeployment topology, or undefined when disabled. */
export function computeMachineDeploymentHealthCheckClass(
  mdClass: MachineDeploymentClass,
  md: MachineDeploymentTopology,
): MachineHealthCheckClass | undefined {
  return computeMachineHealthCheckClass(mdClass.machineHealthCheck, md.machineHealthCheck);
}
