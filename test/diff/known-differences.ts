// Differences between upstream's topology controller and capi-serverless that the differential accepts: each one is
// listed in docs/differences.md with its reason. An unlisted difference fails
// `npm run test:diff`; diagnosed but unfixed ones are in docs/testing.md and docs/history/differential.md.
import type { KnownDifference } from './compare.ts';

export const knownDifferences: readonly KnownDifference[] = [
  {
    object: /^MachineDeployment\//,
    path: /^metadata\.finalizers/,
    reason:
      "upstream's MachineDeployment topology controller (not registered beside capi-serverless) adds the finalizer machinedeployment.topology.cluster.x-k8s.io; capi-serverless deletes a removed MachineDeployment's templates itself",
  },
  {
    // NOTE: the maxsurge0 variant: maxSurge 0 with one control-plane replica, refused by the KubeadmControlPlane webhook.
    object: /^(MachineHealthCheck\/ControlPlane|Leftovers)$/,
    path: /^(\[\d+\])?$/,
    scenario: /-maxsurge0-/,
    upstream: /^"present"$|"kind":"MachineHealthCheck"/,
    reason:
      "upstream's bug: when the control plane is refused at creation, upstream's topology controller still creates a control-plane MachineHealthCheck on every retry (a new generated name each time) and never deletes them; capi-serverless creates none for a control plane that does not exist",
  },
  {
    object: /^InfrastructureCluster$/,
    path: /^(metadata\.ownerReferences|metadata\.finalizers|metadata\.annotations\["inmemorycluster\.infrastructure\.cluster\.x-k8s\.io\/listener"\]|spec\.controlPlaneEndpoint)/,
    scenario: /-maxsurge0-/,
    reason:
      "deliberate: capi-serverless makes the Cluster the owner of the InfrastructureCluster it creates instead of upstream's temporary cluster-shim Secret; when the control plane is refused at creation the Cluster references only the InfrastructureCluster, upstream's core controller does not adopt it, and only with the Cluster as owner does the infrastructure provider provision it (finalizer, endpoint)",
  },
];
