// Which Cluster API contract a provider version implements, from its metadata.yaml release series.
import { parse as parseYaml } from 'yaml';
import { Metadata } from '#shared/api/operator/v1alpha2/provider.ts';
import type { ReleaseSeries } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import type { ErrorFields } from '#shared/errors/index.ts';
import { parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import {
  ComponentsParseError,
  InvalidVersionError,
  ProviderReason,
  ReleaseSeriesNotFoundError,
  UnsupportedContractError,
} from '#shared/providers/desired/provider-components-error.ts';

/** Contracts the upstream operator accepts for the providers it installs. */
export const defaultSupportedContracts: readonly string[] = ['v1beta1', 'v1beta2'];
/**
 * The contract the Cluster API Operator v0.29 names in its refusal (`clusterv1.GroupVersion.Version`). NOTE: it names
 * only this one although it accepts both supported contracts; its words are kept so alerts matching them still fire,
 * and the accepted list follows them.
 */
const operatorContractWord = 'v1beta2';

type ProviderId = { readonly kind: string; readonly namespace?: string; readonly name: string };

/**
 * Parses a metadata.yaml (`clusterctl.cluster.x-k8s.io/v1alpha3` Metadata); errors name `source`.
 *
 * @example
 * parseMetadataYaml(text, 'metadata.yaml of CoreProvider capi-system/cluster-api v1.9.0');
 */
export function parseMetadataYaml(text: string, source: string): Metadata {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ComponentsParseError(
      `failed to parse ${source}: ${errorMessage(err).split('\n')[0] ?? ''}`,
      { reason: ProviderReason.ComponentsFetchError },
      { cause: err },
    );
  }
  const parsed = Metadata.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new ComponentsParseError(
      `failed to parse ${source}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`,
      {
        reason: ProviderReason.ComponentsFetchError,
      },
    );
  }
  return parsed.data;
}

/**
 * The release series (`major.minor`) a version belongs to, or undefined.
 *
 * @example
 * computeReleaseSeries(metadata, 'v1.9.3'); // { major: 1, minor: 9, contract: 'v1beta1' }
 */
export function computeReleaseSeries(metadata: Metadata, version: string): ReleaseSeries | undefined {
  const v = parseVersionSemantic(version);
  if (!v) return undefined;
  return (metadata.releaseSeries ?? []).find((rs) => (rs.major ?? 0) === v.major && (rs.minor ?? 0) === v.minor);
}

/**
 * The contract of `version`: its release series' contract, which must be one of `supportedContracts`. Throws
 * InvalidVersionError, ReleaseSeriesNotFoundError (version outside every series) or UnsupportedContractError, each
 * naming the provider and version.
 *
 * @example
 * computeMetadataContract(metadata, 'v1.9.0', { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' }); // 'v1beta1'
 */
export function computeMetadataContract(
  metadata: Metadata,
  version: string,
  provider: ProviderId,
  supportedContracts: readonly string[] = defaultSupportedContracts,
): string {
  const who = describeObject(provider.kind, provider.namespace, provider.name);
  const fields: Omit<ErrorFields, 'reason'> = {
    kind: provider.kind,
    name: provider.name,
    ...(provider.namespace ? { namespace: provider.namespace } : {}),
  };
  if (!parseVersionSemantic(version)) {
    throw new InvalidVersionError(
      `failed to parse version ${JSON.stringify(version)} of ${who}: not a semantic version`,
      {
        ...fields,
        fieldPath: 'spec.version',
        reason: ProviderReason.IncorrectVersionFormat,
      },
    );
  }
  const series = computeReleaseSeries(metadata, version);
  if (!series) {
    throw new ReleaseSeriesNotFoundError(
      `invalid provider metadata: version ${version} for the provider ${provider.name} does not match any release series (${who})`,
      {
        ...fields,
        reason: ProviderReason.CAPIVersionIncompatibility,
      },
    );
  }
  const contract = series.contract ?? '';
  if (!supportedContracts.includes(contract)) {
    // NOTE: the operator's words first (`capiVersionIncompatibilityMessage`), then which provider version it is.
    throw new UnsupportedContractError(
      `CAPI operator is only compatible with ${operatorContractWord} providers, detected ${contract} for provider ${provider.name}. (${who} ${version} implements contract ${JSON.stringify(contract)}; supported contracts are ${supportedContracts.join(', ')})`,
      { ...fields, reason: ProviderReason.CAPIVersionIncompatibility },
    );
  }
  return contract;
}
