// Pause (the proposal): a provider with `spec.paused` has its Deployments scaled to 0, the replicas recorded in the
// `management.cluster.x-k8s.io/original-controller-replicas` annotation. Runs before the contract checks, so a
// provider waiting for a contract change is held at 0 too.
import { listProviderDeployments } from '#shared/providers/current/list-provider-objects.ts';
import { pauseDeployments } from '#shared/providers/apply/scale-deployments.ts';
import { ConditionReason, ProviderCondition } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { isProviderPaused } from '#shared/providers/desired/is-provider-paused.ts';

export const pausePhase: Phase = {
  name: 'pause',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ProviderPaused,
  async run(pass) {
    const { kube, fieldManager } = pass.deps;
    pass.deployments = await listProviderDeployments(kube, pass.provider);
    if (!isProviderPaused(pass.provider)) return undefined;
    const changed = await pauseDeployments(kube, pass.deployments, fieldManager);
    if (changed.length > 0) {
      pass.changed.push(...changed);
      pass.deployments = await listProviderDeployments(kube, pass.provider);
    }
    return undefined;
  },
};
