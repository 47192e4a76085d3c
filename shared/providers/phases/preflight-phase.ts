// Preflight checks (upstream `preflightChecks`): semantic version, no downgrade, the core provider named
// `cluster-api` and alone, one provider per kind and name across namespaces, a fetch source for providers clusterctl
// does not know, and non-core providers wait until the core provider is Ready (paused ones: installed). Condition
// reasons and messages are the Cluster API Operator's.
import { providerKinds } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { providerRef } from '#shared/providers/current/get-provider.ts';
import { parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import { findPredefinedRepository } from '#shared/providers/fetch/predefined-repositories.ts';
import { isConditionTrue } from '#shared/providers/phases/compute-conditions.ts';
import {
  ConditionReason,
  PhaseError,
  ProviderCondition,
  waitRequeueMs,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase, ProviderPass } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';
import { isProviderPaused } from '#shared/providers/desired/is-provider-paused.ts';

/** Name clusterctl requires for the core provider. */
export const clusterApiProviderName = 'cluster-api';

function fail(reason: string, message: string, wait = false): never {
  throw new PhaseError(message, {
    type: ProviderCondition.PreflightCheckPassed,
    reason,
    wait,
    ...(wait ? { requeueAfterMs: waitRequeueMs } : {}),
  });
}

/** True when `a` was created before `b` (ties broken by namespace/name), i.e. `a` keeps its claim. */
function isOlder(a: Provider, b: Provider): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb;
  return providerRef(a) < providerRef(b);
}

function sameObject(a: Provider, b: Provider): boolean {
  return a.kind === b.kind && a.metadata.namespace === b.metadata.namespace && a.metadata.name === b.metadata.name;
}

/** The core provider the others depend on: the oldest CoreProvider. */
export function findCoreProvider(all: readonly Provider[]): Provider | undefined {
  return all.filter((p) => p.kind === 'CoreProvider').sort((a, b) => (isOlder(a, b) ? -1 : 1))[0];
}

function checkVersion(pass: ProviderPass): void {
  const p = pass.provider;
  const version = p.spec?.version;
  if (!version) return;
  const target = parseVersionSemantic(version);
  if (!target) {
    fail(ConditionReason.IncorrectVersionFormat, `could not parse "${version}" as version`);
  }
  const installed = pass.installedVersion ? parseVersionSemantic(pass.installedVersion) : undefined;
  if (
    installed &&
    (target.major < installed.major || (target.major === installed.major && target.minor < installed.minor))
  ) {
    // NOTE: the operator's message is `Downgrade is not supported for provider %s`, never formatted (v0.29.0); the
    // provider's name fills the verb here, and the versions follow.
    fail(
      ConditionReason.UnsupportedProviderDowngrade,
      `Downgrade is not supported for provider ${p.metadata.name ?? ''} (${providerRef(p)}: installed ${pass.installedVersion ?? ''}, requested ${version})`,
    );
  }
}

export const preflightPhase: Phase = {
  name: 'preflight',
  condition: ProviderCondition.PreflightCheckPassed,
  reason: 'PreflightCheckFailed',
  async run(pass) {
    const p = pass.provider;
    const name = p.metadata.name ?? '';
    const isCore = p.kind === 'CoreProvider';
    checkVersion(pass);
    if (isCore && name !== clusterApiProviderName) {
      fail(
        ConditionReason.IncorrectCoreProviderName,
        `Incorrect CoreProvider name: ${name}. It should be ${clusterApiProviderName}`,
      );
    }
    const fc = p.spec?.fetchConfig;
    if (!fc?.selector && !fc?.url && !fc?.oci && !findPredefinedRepository(providerKinds[p.kind].providerType, name)) {
      fail(
        ConditionReason.FetchConfigValidationError,
        'Either Selector, OCI URL or provider URL must be provided for a not predefined provider',
      );
    }
    // NOTE: as the operator, every provider of a duplicated kind and name is refused, whichever came first; one
    // already installed at the requested version keeps running (the operator re-applies it from its cache without a
    // preflight while its applied spec is unchanged).
    const keepsClaim = pass.installedVersion !== undefined && pass.installedVersion === p.spec?.version;
    for (const other of keepsClaim ? [] : pass.allProviders) {
      if (sameObject(other, p)) continue;
      if (isCore && other.kind === 'CoreProvider') {
        fail(ConditionReason.MoreThanOneExists, 'CoreProvider already exists in the cluster. Only one is allowed.');
      }
      if (!isCore && other.kind === p.kind && other.metadata.name === name) {
        // NOTE: the operator's own words, with name and namespace in its order.
        fail(
          ConditionReason.MoreThanOneExists,
          `There is already a ${name} with name ${other.metadata.namespace ?? ''} in the cluster. Only one is allowed.`,
        );
      }
    }
    if (!isCore) {
      const core = findCoreProvider(pass.allProviders);
      // NOTE: a paused provider may upgrade while the core provider is itself paused mid contract change; it only
      // needs the core provider installed.
      const ready = isProviderPaused(p)
        ? core?.status?.installedVersion !== undefined
        : isConditionTrue(core?.status?.conditions, ProviderCondition.Ready);
      if (!core || !ready) {
        fail(ConditionReason.WaitingForCoreProviderReady, 'Waiting for the CoreProvider to be installed.', true);
      }
    }
    setPassCondition(pass, {
      type: ProviderCondition.PreflightCheckPassed,
      status: 'True',
      reason: ConditionReason.PreflightChecksPassed,
      message: 'All preflight checks passed',
    });
    return undefined;
  },
};
