// Provider object rules of the admission webhook (seed 004 and the operator's preflight checks, refused at the door
// instead of surfacing later as a condition): the core provider is named `cluster-api` and alone, one provider per
// kind and name across namespaces, a fetch source for providers clusterctl does not know, a semantic version.
// `fetchConfig` "exactly one of oci/url/selector" is part of the zod schema and reported when parsing.
import { providerKinds, type Provider } from '#shared/api/operator.ts';
import { parseSemver } from '#shared/providers/desired/semver.ts';
import { findPredefinedRepository } from '#shared/providers/fetch/predefined-repositories.ts';
import { clusterApiProviderName } from '#shared/providers/phases/preflight-phase.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';

function key(p: Provider): string {
  return `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
}

/**
 * Field errors of a provider object on its own.
 *
 * @example
 * validateProvider(coreProvider); // [] for a CoreProvider named cluster-api
 */
export function validateProvider(provider: Provider): FieldError[] {
  const name = provider.metadata.name ?? '';
  const errors: FieldError[] = [];
  if (provider.kind === 'CoreProvider' && name !== clusterApiProviderName)
    errors.push({
      type: 'Invalid',
      field: 'metadata.name',
      badValue: name,
      detail: `Incorrect CoreProvider name: ${name}. It should be ${clusterApiProviderName}`,
    });
  const version = provider.spec?.version;
  if (version !== undefined && !parseSemver(version))
    errors.push({ type: 'Invalid', field: 'spec.version', badValue: version, detail: 'must be a semantic version' });
  const fc = provider.spec?.fetchConfig;
  if (
    !fc?.selector &&
    !fc?.url &&
    !fc?.oci &&
    !findPredefinedRepository(providerKinds[provider.kind].providerType, name)
  )
    errors.push({
      type: 'Required',
      field: 'spec.fetchConfig',
      detail: `Either Selector, OCI URL or provider URL must be provided for ${provider.kind} ${key(provider)}, which is not a predefined provider`,
    });
  return errors;
}

/**
 * Refuses a second CoreProvider, and a second provider of one kind and name in another namespace.
 * `existing` are the stored objects of the provider's kind.
 *
 * @example
 * validateProviderIsSingle(newCoreProvider, await reader.listProviders('CoreProvider'));
 */
export function validateProviderIsSingle(provider: Provider, existing: readonly Provider[]): FieldError[] {
  const others = existing.filter((p) => p.kind === provider.kind && key(p) !== key(provider));
  if (provider.kind === 'CoreProvider') {
    const other = others[0];
    return other
      ? [
          {
            type: 'Forbidden',
            field: 'metadata.name',
            detail: `CoreProvider ${key(other)} already exists in the cluster. Only one is allowed.`,
          },
        ]
      : [];
  }
  const same = others.find((p) => p.metadata.name === provider.metadata.name);
  return same
    ? [
        {
          type: 'Forbidden',
          field: 'metadata.name',
          detail: `There is already a ${provider.kind} ${key(same)} in the cluster. Only one ${provider.kind} named ${provider.metadata.name ?? ''} is allowed.`,
        },
      ]
    : [];
}
