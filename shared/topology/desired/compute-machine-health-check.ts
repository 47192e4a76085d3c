// Desired MachineHealthChecks for the control plane and MachineDeployments (upstream computeMachineHealthCheck,
// including the default upstream's webhook applies: nodeStartupTimeoutSeconds 600).
import type { LabelSelector } from '#shared/api/label-selector.ts';
import type { Cluster, MachineDeploymentTopology } from '#shared/api/core/v1beta2/cluster.ts';
import type { MachineDeploymentClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type {
  MachineHealthCheck,
  MachineHealthCheckChecks,
  MachineHealthCheckRemediation,
} from '#shared/api/core/v1beta2/machine-health-check.ts';
import { computeClusterOwnerRef } from '#shared/topology/desired/template-to-object.ts';
import {
  ClusterNameLabel,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyOwnedLabel,
  MachineControlPlaneLabel,
} from '#shared/topology/labels.ts';

/** Upstream's `DefaultNodeStartupTimeoutSeconds`. */
export const defaultNodeStartupTimeoutSeconds = 600;

/** What a MachineHealthCheck is made of: checks and remediation (upstream's two return values). */
export type HealthCheckClass = {
  readonly checks: MachineHealthCheckChecks;
  readonly remediation: MachineHealthCheckRemediation;
};

type AnyHealthCheck = {
  readonly enabled?: boolean | undefined;
  readonly checks?: MachineHealthCheckChecks | undefined;
  readonly remediation?: (MachineHealthCheckRemediation & { maxInFlight?: unknown }) | undefined;
};

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

const isNonEmpty = (value: object | undefined) =>
  value !== undefined && Object.values(value).some((v) => v !== undefined);

/** Upstream's `IsDefined`: checks or remediation carry at least one field. */
export function isHealthCheckDefined(check: AnyHealthCheck | undefined): boolean {
  if (!check) return false;
  const remediation = check.remediation;
  return (
    isNonEmpty(check.checks) ||
    (remediation !== undefined &&
      (remediation.maxInFlight !== undefined ||
        isNonEmpty(remediation.triggerIf) ||
        remediation.templateRef !== undefined))
  );
}

function pickClass(check: AnyHealthCheck): HealthCheckClass {
  const { triggerIf, templateRef } = check.remediation ?? {};
  return {
    checks: structuredClone(check.checks ?? {}),
    remediation: {
      ...(isNonEmpty(triggerIf) ? { triggerIf: structuredClone(triggerIf) } : {}),
      ...(templateRef ? { templateRef: { ...templateRef } } : {}),
    },
  };
}

/**
 * Upstream's rule (ClusterBlueprint.Is*MachineHealthCheckEnabled / *MachineHealthCheckClass): a check must be
 * defined in the class or in the topology; then it is on unless the topology says `enabled: false`. A defined
 * topology check replaces the class's.
 */
export function computeMachineHealthCheckClass(
  classCheck: AnyHealthCheck | undefined,
  topologyCheck: AnyHealthCheck | undefined,
): HealthCheckClass | undefined {
  const topologyDefined = isHealthCheckDefined(topologyCheck);
  if (!isHealthCheckDefined(classCheck) && !topologyDefined) return undefined;
  if (topologyCheck?.enabled === false) return undefined;
  if (topologyDefined && topologyCheck) return pickClass(topologyCheck);
  return pickClass(classCheck ?? {});
}

/** The MachineHealthCheck object for a target (the ControlPlane or a MachineDeployment). */
export function computeMachineHealthCheck(
  target: { name: string; namespace: string },
  selector: LabelSelector,
  cluster: Cluster,
  check: HealthCheckClass,
): MachineHealthCheck {
  const clusterName = cluster.metadata.name ?? '';
  const remediation = check.remediation;
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineHealthCheck',
    metadata: {
      name: target.name,
      namespace: target.namespace,
      labels: { [ClusterTopologyOwnedLabel]: '', [ClusterNameLabel]: clusterName },
      ownerReferences: [computeClusterOwnerRef(cluster)],
    },
    spec: {
      clusterName,
      selector,
      checks: {
        ...check.checks,
        nodeStartupTimeoutSeconds: check.checks.nodeStartupTimeoutSeconds ?? defaultNodeStartupTimeoutSeconds,
      },
      ...(Object.keys(remediation).length > 0 ? { remediation } : {}),
    },
  };
}

/** The health check class of a MachineDeployment topology, or undefined when disabled. */
export function computeMachineDeploymentHealthCheckClass(
  mdClass: MachineDeploymentClass,
  md: MachineDeploymentTopology,
): HealthCheckClass | undefined {
  return computeMachineHealthCheckClass(mdClass.healthCheck, md.healthCheck);
}
