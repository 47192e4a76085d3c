// One version of a provider's release artefacts (metadata.yaml + components YAML), wherever it came from, and the
// error every source raises.
import { CapiError } from '#shared/errors/index.ts';
import type { ErrorFields } from '#shared/errors/index.ts';

export type ProviderRelease = {
  readonly version: string;
  readonly metadataYaml: string;
  readonly componentsYaml: string;
  /** Where it was read from, for messages (`ConfigMap capi-system/v1.9.0`, a URL). */
  readonly source: string;
};

/** Labels and keys of upstream's ConfigMap repositories (`api/v1alpha2/provider_types.go`). */
export const ConfigMapKeys = {
  versionLabel: 'provider.cluster.x-k8s.io/version',
  typeLabel: 'provider.cluster.x-k8s.io/type',
  nameLabel: 'provider.cluster.x-k8s.io/name',
  managedLabel: 'managed-by.operator.cluster.x-k8s.io',
  sourceLabel: 'provider.cluster.x-k8s.io/source',
  sourceAnnotation: 'provider.cluster.x-k8s.io/source',
  compressedAnnotation: 'provider.cluster.x-k8s.io/compressed',
  metadata: 'metadata',
  components: 'components',
  additionalManifests: 'manifests',
} as const;

/** Fetching a provider's release failed (no source, download error, malformed ConfigMap). */
export class ProviderFetchError extends CapiError {
  constructor(message: string, fields: ErrorFields = {}, options?: { cause?: unknown }) {
    super(message, { reason: 'ComponentsFetchError', ...fields }, options);
  }
}
