// Differences between upstream's topology controller and capi-serverless that the differential accepts: each one is
// listed in README "Deliberate differences from upstream" with its reason. An unlisted difference fails
// `npm run test:diff`; diagnosed but unfixed ones are in README "Differential against upstream's topology controller".
import type { KnownDifference } from './compare.ts';

export const knownDifferences: readonly KnownDifference[] = [
  {
    object: /^MachineDeployment\//,
    path: /^metadata\.finalizers/,
    reason:
      "upstream's MachineDeployment topology controller (not registered beside capi-serverless) adds the finalizer machinedeployment.topology.cluster.x-k8s.io; capi-serverless deletes a removed MachineDeployment's templates itself",
  },
];
