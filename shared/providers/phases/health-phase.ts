// Status: Ready mirrors the provider Deployments' `Available` condition, as upstream's health check controller
// does; a provider whose Deployment is unavailable is not Ready and is looked at again shortly.
import { listProviderDeployments } from '#shared/providers/current/list-provider-objects.ts';
import { ConditionReason, ProviderCondition, readinessRequeueMs } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';

type DeploymentCondition = { type?: string; status?: string; reason?: string; message?: string };

export const healthPhase: Phase = {
  name: 'health',
  condition: ProviderCondition.Ready,
  reason: ConditionReason.NoDeploymentAvailable,
  async run(pass) {
    const deployments = pass.deployments ?? (await listProviderDeployments(pass.deps.kube, pass.provider));
    const available = deployments.map((d) => ({
      d,
      c: ((d['status'] as { conditions?: DeploymentCondition[] } | undefined)?.conditions ?? []).find(
        (c) => c.type === 'Available',
      ),
    }));
    const notReady = available.find(({ c }) => c?.status !== 'True');
    if (deployments.length === 0 || notReady) {
      // The operator's health check: the Deployment's Available condition as it is, else the operator's words.
      const c = notReady?.c;
      setPassCondition(pass, {
        type: ProviderCondition.Ready,
        status: 'False',
        reason: c ? c.reason || ConditionReason.DeploymentAvailable : ConditionReason.NoDeploymentAvailable,
        message: c
          ? (c.message ?? '')
          : notReady
            ? 'No minimum availability condition found on the provider deployment'
            : 'the provider has no Deployment',
      });
      return { result: 'Requeue', requeueAfterMs: readinessRequeueMs };
    }
    setPassCondition(pass, {
      type: ProviderCondition.Ready,
      status: 'True',
      reason: available[0]?.c?.reason || ConditionReason.DeploymentAvailable,
      ...(available[0]?.c?.message ? { message: available[0].c.message } : {}),
    });
    return undefined;
  },
};
