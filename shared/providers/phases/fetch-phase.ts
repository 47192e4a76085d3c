// Fetch: reads the config variables, finds the release of the requested version (ConfigMaps, cache, URL, OCI) and
// writes a resolved version back into spec.version, as upstream does for an empty version. Downloads go through
// the fetch policy (HTTPS to public addresses unless allow-listed, bounded and re-checked redirects).
import { getConfigVariables } from '#shared/providers/current/get-config-variables.ts';
import { createGuardedFetch, defaultFetchPolicy } from '#shared/providers/fetch/fetch-policy.ts';
import { fetchProviderRelease } from '#shared/providers/fetch/fetch-provider-release.ts';
import { patchProvider } from '#shared/providers/apply/write-provider.ts';
import { findCoreProvider } from '#shared/providers/phases/preflight-phase.ts';
import { ConditionReason, ProviderCondition } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';

export const fetchPhase: Phase = {
  name: 'fetch',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ComponentsFetchError,
  async run(pass) {
    if (pass.cached) return undefined;
    const { kube, fieldManager } = pass.deps;
    pass.variables = await getConfigVariables(kube, pass.provider);
    const core = pass.provider.kind === 'CoreProvider' ? undefined : findCoreProvider(pass.allProviders);
    const policy = pass.deps.fetchPolicy ?? defaultFetchPolicy;
    const fetched = await fetchProviderRelease({
      kube,
      fetch: createGuardedFetch(pass.deps.fetch, policy),
      gitlabHosts: policy.gitlabHosts,
      fieldManager,
      provider: pass.provider,
      variables: pass.variables,
      preferredContract: core?.status?.contract,
    });
    if (fetched.cacheCreated) pass.changed.push(`created ${fetched.cacheCreated}`);
    pass.release = fetched.release;
    if (!pass.provider.spec?.version) {
      pass.provider = await patchProvider(
        kube,
        pass.provider,
        { spec: { version: fetched.release.version } },
        fieldManager,
      );
      pass.changed.push(`set spec.version to ${fetched.release.version}`);
    }
    return undefined;
  },
};
