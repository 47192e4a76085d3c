// Cache (upstream `ApplyFromCache`): when the components cache Secret of the requested version carries the
// applied-spec hash that the provider carries too, and the hash still matches the spec, config Secret and selector
// ConfigMap, nothing changed since the last install — by us or by the Cluster API Operator. The pass then takes the
// components from the cache instead of fetching (air-gapped: the source may be gone) and installs nothing new.
// A cache holding the handoff (ours) while the provider opts out of it is not current: the components are rendered
// again from the source without it.
import { getComponentsCache } from '#shared/providers/current/get-components-cache.ts';
import {
  cacheContractAnnotation,
  computeOperatorHash,
  parseComponentsCache,
} from '#shared/providers/desired/compute-components-cache.ts';
import { handoffAnnotation, handoffAppliedValue, isHandoffEnabled } from '#shared/providers/desired/compute-handoff.ts';
import { appliedHashAnnotation, ConditionReason, ProviderCondition } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';

export const cachePhase: Phase = {
  name: 'cache',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ComponentsFetchError,
  async run(pass) {
    const state = await getComponentsCache(pass.deps.kube, pass.provider);
    pass.componentsCache = state;
    const secret = state.secret;
    if (!secret || !pass.provider.spec?.version) return undefined;
    const hash = computeOperatorHash({ ...state.hashInput, cacheData: secret.data });
    const onSecret = secret.metadata.annotations?.[appliedHashAnnotation];
    const onProvider = pass.provider.metadata.annotations?.[appliedHashAnnotation];
    // NOTE: the contract comes from status, else from our annotation on the cache; an operator-made cache of a
    // provider without status is fetched again, since only metadata.yaml tells its contract.
    const contract =
      pass.installedVersion === pass.provider.spec.version
        ? (pass.contract ?? secret.metadata.annotations?.[cacheContractAnnotation])
        : secret.metadata.annotations?.[cacheContractAnnotation];
    if (onSecret !== hash || onProvider !== hash || !contract) return undefined;
    const handoffCached = secret.metadata.annotations?.[handoffAnnotation] === handoffAppliedValue;
    if (handoffCached && !isHandoffEnabled(pass.provider)) return undefined;
    pass.cached = { objects: parseComponentsCache(secret), hash };
    pass.newContract = contract;
    return undefined;
  },
};
