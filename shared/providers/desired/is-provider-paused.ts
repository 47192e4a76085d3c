// Whether a provider is paused: the proposal's `spec.paused`, or Cluster API's pause annotation for provider CRDs that
// lack the field (the Cluster API Operator's own CRDs have no `spec.paused`).
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';

/** Cluster API's pause annotation, honoured on provider objects (any value; its presence pauses). */
export const providerPausedAnnotation = 'cluster.x-k8s.io/paused';

/**
 * A provider is paused when `spec.paused` is true or it carries `cluster.x-k8s.io/paused`.
 *
 * @example
 * isProviderPaused({ metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } }, spec: {} }); // true
 */
export function isProviderPaused(provider: Pick<Provider, 'metadata' | 'spec'>): boolean {
  return provider.spec?.paused === true || provider.metadata.annotations?.[providerPausedAnnotation] !== undefined;
}
