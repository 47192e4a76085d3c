// Contract rules (the proposal): every provider abides by the core provider's contract; a contract-changing upgrade
// waits until every provider is paused; unpausing waits until no provider is left on another contract.
import type { Provider } from '#shared/api/operator.ts';
import { providerRef } from '#shared/providers/current/get-provider.ts';
import { isPausedDeployment } from '#shared/providers/apply/scale-deployments.ts';
import { findCoreProvider } from '#shared/providers/phases/preflight-phase.ts';
import {
  ConditionReason,
  PhaseError,
  ProviderCondition,
  waitRequeueMs,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';

function fail(reason: string, message: string, wait: boolean): never {
  throw new PhaseError(message, {
    type: ProviderCondition.PreflightCheckPassed,
    reason,
    wait,
    ...(wait ? { requeueAfterMs: waitRequeueMs } : {}),
  });
}

const isSelf = (a: Provider, b: Provider) =>
  a.kind === b.kind && a.metadata.namespace === b.metadata.namespace && a.metadata.name === b.metadata.name;

export const contractPhase: Phase = {
  name: 'contract',
  condition: ProviderCondition.PreflightCheckPassed,
  reason: ConditionReason.CAPIVersionIncompatibility,
  run(pass) {
    const p = pass.provider;
    const contract = pass.newContract ?? '';
    const version = pass.release?.version ?? p.spec?.version ?? '';
    if (p.kind !== 'CoreProvider') {
      const core = findCoreProvider(pass.allProviders);
      const coreContract = core?.status?.contract;
      if (core && coreContract && coreContract !== contract) {
        fail(
          ConditionReason.CAPIVersionIncompatibility,
          `${providerRef(p)} ${version} abides by contract ${contract}, but ${providerRef(core)} abides by contract ${coreContract}`,
          false,
        );
      }
    }
    const installedContract = pass.contract;
    if (installedContract && installedContract !== contract) {
      const running = pass.allProviders.filter((o) =>
        isSelf(o, p) ? p.spec?.paused !== true : o.spec?.paused !== true,
      );
      if (running.length > 0) {
        fail(
          ConditionReason.ContractChangeRequiresPause,
          `upgrading ${providerRef(p)} to ${version} changes its contract from ${installedContract} to ${contract}; pause every provider first (not paused: ${running.map(providerRef).join(', ')})`,
          true,
        );
      }
    }
    const unpausing = p.spec?.paused !== true && (pass.deployments ?? []).some(isPausedDeployment);
    if (unpausing) {
      const old = pass.allProviders.filter(
        (o) => !isSelf(o, p) && o.status?.contract && o.status.contract !== contract,
      );
      if (old.length > 0) {
        fail(
          ConditionReason.ProvidersOnOldContract,
          `cannot unpause ${providerRef(p)} (contract ${contract}) while providers abide by another contract: ${old
            .map((o) => `${providerRef(o)} (${o.status?.contract ?? ''})`)
            .join(', ')}`,
          true,
        );
      }
    }
    setPassCondition(pass, {
      type: ProviderCondition.PreflightCheckPassed,
      status: 'True',
      reason: ConditionReason.PreflightChecksPassed,
      message: 'All preflight checks passed',
    });
    return Promise.resolve(undefined);
  },
};
