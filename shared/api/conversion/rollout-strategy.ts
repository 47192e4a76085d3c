// MachineDeployment rollout settings between v1beta1 (`strategy`: type, rollingUpdate with deletePolicy,
// remediation.maxInFlight) and v1beta2 (`rollout.strategy`, `deletion.order`, `…remediation.maxInFlight`), as upstream's
// MachineDeployment, MachineDeploymentClass and MachineDeploymentTopology conversions split and join them.
import { compact, isZero, objectAt, type Unstructured } from '#shared/api/conversion/unstructured.ts';

/** The v1beta2 pieces of a v1beta1 `strategy`. */
export type HubRolloutPieces = {
  readonly rolloutStrategy: Unstructured;
  readonly deletionOrder: unknown;
  readonly maxInFlight: unknown;
};

/** Splits a v1beta1 `strategy` into v1beta2 `rollout.strategy`, `deletion.order` and remediation `maxInFlight`. */
export function convertStrategyToHub(strategy: Unstructured | undefined): HubRolloutPieces {
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  return {
    rolloutStrategy: compact({
      type: strategy?.['type'],
      rollingUpdate: compact({
        maxUnavailable: rollingUpdate?.['maxUnavailable'],
        maxSurge: rollingUpdate?.['maxSurge'],
      }),
    }),
    deletionOrder: rollingUpdate?.['deletePolicy'],
    maxInFlight: objectAt(strategy, 'remediation')?.['maxInFlight'],
  };
}

/** Joins v1beta2 `rollout.strategy`, `deletion.order` and `maxInFlight` back into a v1beta1 `strategy` (or none). */
export function convertStrategyFromHub(
  rolloutStrategy: Unstructured | undefined,
  deletionOrder: unknown,
  maxInFlight: unknown,
): Unstructured | undefined {
  if (isZero(rolloutStrategy) && isZero(deletionOrder) && maxInFlight === undefined) return undefined;
  const rollingUpdate = objectAt(rolloutStrategy, 'rollingUpdate');
  const joinedRollingUpdate = compact({
    maxUnavailable: rollingUpdate?.['maxUnavailable'],
    maxSurge: rollingUpdate?.['maxSurge'],
    deletePolicy: deletionOrder,
  });
  const strategy: Unstructured = compact({ type: rolloutStrategy?.['type'] });
  if (!isZero(rollingUpdate) || !isZero(deletionOrder)) strategy['rollingUpdate'] = joinedRollingUpdate;
  if (maxInFlight !== undefined) strategy['remediation'] = { maxInFlight };
  return strategy;
}
