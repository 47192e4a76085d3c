// Unpause (the proposal): a provider no longer paused gets its recorded replicas back (the contract phase has
// already refused this while providers abide by another contract).
import { listProviderDeployments } from '#shared/providers/current/list-provider-objects.ts';
import { unpauseDeployments } from '#shared/providers/apply/scale-deployments.ts';
import { ConditionReason, ProviderCondition } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { isProviderPaused } from '#shared/providers/desired/is-provider-paused.ts';

export const unpausePhase: Phase = {
  name: 'unpause',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ProviderPaused,
  async run(pass) {
    if (isProviderPaused(pass.provider)) return undefined;
    const { kube, fieldManager } = pass.deps;
    const deployments = pass.deployments ?? (await listProviderDeployments(kube, pass.provider));
    const changed = await unpauseDeployments(kube, deployments, fieldManager);
    if (changed.length > 0) {
      pass.changed.push(...changed);
      pass.deployments = undefined;
    }
    return undefined;
  },
};
