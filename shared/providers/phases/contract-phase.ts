// Contract rules: every provider implements a contract compatible with the core provider's, as clusterctl checks it
// (a v1beta2 core accepts v1beta1 providers while upstream supports that window). The proposal's additions: a
// change of the core provider's contract (the management cluster's) waits until every provider is paused, and
// unpausing waits until no provider is left on a contract the core provider's no longer accepts. Other providers
// change contract within the window without pausing anyone, as clusterctl upgrades them.
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { providerRef } from '#shared/providers/current/get-provider.ts';
import { isPausedDeployment } from '#shared/providers/apply/scale-deployments.ts';
import { computeCompatibleContracts } from '#shared/providers/desired/compute-compatible-contracts.ts';
import { findCoreProvider } from '#shared/providers/phases/preflight-phase.ts';
import {
  ConditionReason,
  PhaseError,
  ProviderCondition,
  waitRequeueMs,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';
import { isProviderPaused } from '#shared/providers/desired/is-provider-paused.ts';

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
    const isCore = p.kind === 'CoreProvider';
    const contract = pass.newContract ?? '';
    const version = pass.release?.version ?? p.spec?.version ?? '';
    const core = isCore ? undefined : findCoreProvider(pass.allProviders);
    const coreContract = isCore ? contract : core?.status?.contract;
    const compatible = coreContract ? computeCompatibleContracts(coreContract) : [];
    if (!isCore && core && coreContract && !compatible.includes(contract)) {
      fail(
        ConditionReason.CAPIVersionIncompatibility,
        `${providerRef(p)} ${version} implements the ${contract} contract version, while ${providerRef(core)} is compatible with ${compatible.join(', ')} contract versions`,
        false,
      );
    }
    const installedContract = pass.contract;
    if (isCore && installedContract && installedContract !== contract) {
      const running = pass.allProviders.filter((o) => !isProviderPaused(isSelf(o, p) ? p : o));
      if (running.length > 0) {
        fail(
          ConditionReason.ContractChangeRequiresPause,
          `upgrading ${providerRef(p)} to ${version} changes its contract from ${installedContract} to ${contract}; pause every provider first (not paused: ${running.map(providerRef).join(', ')})`,
          true,
        );
      }
    }
    const unpausing = !isProviderPaused(p) && (pass.deployments ?? []).some(isPausedDeployment);
    if (unpausing && coreContract) {
      const old = pass.allProviders.filter(
        (o) => !isSelf(o, p) && o.status?.contract && !compatible.includes(o.status.contract),
      );
      if (old.length > 0) {
        fail(
          ConditionReason.ProvidersOnOldContract,
          `cannot unpause ${providerRef(p)} (contract ${contract}) while providers implement a contract the core provider's ${coreContract} does not accept: ${old
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
